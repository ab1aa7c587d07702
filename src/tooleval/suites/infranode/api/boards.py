"""Station catalogues (StaDa facts) and departure/arrival boards (seeded by EVA)."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any

from tooleval.namefold import name_matches
from tooleval.suites.infranode.api.facts import (
    Station,
    fixed_city_boards,
    snapshot,
    stations_by_city,
)
from tooleval.suites.infranode.api.seeded import Dice

MAX_BOARD_ENTRIES = 40
DERIVED_BOARD_MAX_EVAS = 6
LONG_DISTANCE = ("ICE", "IC", "EC")
LOCAL = ("RE", "RB", "S")


def station_catalog(slug: str) -> tuple[Station, ...]:
    """All known stations of a city, sorted by category (1 = largest, unknown last), then name."""
    stations = stations_by_city().get(slug, ())
    return tuple(sorted(stations, key=lambda s: (s.category or 99, s.name)))


def board_evas(slug: str) -> frozenset[str]:
    """The EVAs a city's ``station-departures``/``station-arrivals`` board merges."""
    return frozenset(_board_eva_list(slug))


def off_board_stations(slug: str) -> tuple[Station, ...]:
    """Stations of a city that its main board does not cover (for two-step tasks)."""
    covered = board_evas(slug)
    return tuple(s for s in station_catalog(slug) if covered.isdisjoint(s.evas))


def _board_eva_list(slug: str) -> tuple[str, ...]:
    fixed = fixed_city_boards().get(slug)
    if fixed is not None:
        return fixed
    evas: list[str] = []
    for station in station_catalog(slug):
        evas.extend(eva for eva in station.evas if eva not in evas)
    return tuple(evas[:DERIVED_BOARD_MAX_EVAS])


@cache
def _station_by_eva() -> dict[str, Station]:
    index: dict[str, Station] = {}
    for stations in stations_by_city().values():
        for station in stations:
            for eva in station.evas:
                index.setdefault(eva, station)
    return index


def station_for_eva(eva: str) -> Station | None:
    return _station_by_eva().get(eva)


def filter_stations(
    stations: tuple[Station, ...], query: str | None, limit: int | None
) -> list[Station]:
    picked = [s for s in stations if query is None or name_matches(query, s.name)]
    return picked if limit is None else picked[:limit]


def station_json(station: Station, ags: str | None) -> dict[str, Any]:
    return {
        "eva": station.eva,
        "evas": list(station.evas),
        "name": station.name,
        "category": station.category,
        "lat": station.lat,
        "lon": station.lon,
        "zip": station.zip,
        "ags": ags,
    }


def _other_stations() -> list[str]:
    names = sorted({s.name for s in _station_by_eva().values() if s.category == 1})
    return names


def _train(dice: Dice, big: bool) -> tuple[str, str, bool]:
    category = dice.choice(LONG_DISTANCE if big and dice.chance(0.4) else LOCAL)
    number = str(
        dice.integer(100, 2999) if category in LONG_DISTANCE else dice.integer(10000, 39999)
    )
    line = (
        f"{category} {number}" if category in LONG_DISTANCE else f"{category}{dice.integer(1, 9)}"
    )
    return category, line, category in LONG_DISTANCE


def _messages(dice: Dice, start: datetime) -> list[dict[str, Any]]:
    if not dice.chance(0.2):
        return []
    stamp = (start - timedelta(minutes=dice.integer(5, 40))).isoformat()
    text = dice.choice(
        ("Verzögerung im Betriebsablauf", "Reparatur an der Strecke", "Personalausfall")
    )
    return [{"type": "q", "code": str(dice.integer(30, 99)), "category": text, "timestamp": stamp}]


def board_entries(eva: str, station: Station, direction: str) -> list[dict[str, Any]]:
    """Seeded departures or arrivals of one station for the two hours after the snapshot."""
    dice = Dice("board", direction, eva)
    start = datetime.fromisoformat(snapshot().local_time)
    big = station.category is not None and station.category <= 2
    others = [name for name in _other_stations() if name != station.name] or ["Hauptbahnhof"]
    entries = []
    for _ in range(dice.integer(14, 36) if big else dice.integer(6, 16)):
        category, line, long_distance = _train(dice, big)
        planned = start + timedelta(minutes=dice.integer(0, 119))
        cancelled = dice.chance(0.04)
        entries.append(
            {
                "stop_id": f"{eva}-{dice.digits(6)}",
                "station": station.name,
                "line": line,
                "category": category,
                "train_number": line.split(" ")[-1] if long_distance else dice.digits(5),
                "long_distance": long_distance,
                ("destination" if direction == "departures" else "origin"): dice.choice(others),
                "planned_time": planned.isoformat(),
                "platform": str(dice.integer(1, 14)),
                "delay_minutes": None
                if cancelled
                else dice.choice((0, 0, 0, 1, 2, 3, 5, 8, 12, 25)),
                "cancelled": cancelled,
                "messages": _messages(dice, planned),
            }
        )
    return entries


def board_payload(evas: tuple[str, ...], direction: str) -> dict[str, Any] | None:
    """The merged board of the given EVAs, or None when none of them is a known station."""
    entries: list[dict[str, Any]] = []
    for eva in evas:
        station = station_for_eva(eva)
        if station is not None:
            entries.extend(board_entries(eva, station, direction))
    if not entries:
        return None
    entries.sort(key=lambda e: (e["planned_time"], e["stop_id"]))
    entries = entries[:MAX_BOARD_ENTRIES]
    singular = "departure" if direction == "departures" else "arrival"
    return {
        "kind": f"station_{direction}",
        f"{singular}_count": len(entries),
        "long_distance_count": sum(1 for e in entries if e["long_distance"]),
        direction: entries,
    }


def city_board_payload(slug: str, direction: str) -> dict[str, Any] | None:
    return board_payload(_board_eva_list(slug), direction)
