"""Calls a model could make for a task, derived from its gold call: the material of the
property ``call_match = 1 => exec_match = 1`` (and of the stations rule's completeness).

Variants cover the gold call itself, every accepted alternative, padded and blank strings,
``null`` optional arguments, reordered city lists and, for stations tasks, many spellings of the
station filter ``q`` crossed with ``limit`` values around the station's position.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.scoring import ABSENT, ListingTarget, listing_target
from tooleval.suites.infranode.api.facts import Station, city_index, stations_by_city

_UMLAUT_E = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_UMLAUT_PLAIN = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss"})


def with_argument(call: ToolCall, name: str, value: Any) -> ToolCall:
    """``call`` with ``name`` set to ``value`` (``ABSENT`` removes it)."""
    arguments = {k: v for k, v in call.arguments.items() if k != name}
    if value is not ABSENT:
        arguments[name] = value
    return ToolCall(call.name, arguments)


def general_variants(task: Task) -> Iterator[ToolCall]:
    """The gold call, its alternatives, padded strings, null extras and reversed lists."""
    gold = task.gold
    yield gold
    for name, values in task.alternatives.items():
        for value in values:
            yield with_argument(gold, name, value)
    for name, value in gold.arguments.items():
        if isinstance(value, str):
            yield with_argument(gold, name, f"  {value} ")
        if isinstance(value, list):
            yield with_argument(gold, name, list(reversed(value)))
    yield ToolCall(gold.name, {**gold.arguments, "q": None})
    yield ToolCall(gold.name, {**gold.arguments, "note": "   "})
    yield ToolCall(f" {gold.name} ", dict(gold.arguments))


def spellings(name: str, city: str) -> list[Any]:
    """Ways to write a station filter: full and partial names, case, separators, umlauts."""
    rest = name[len(city) :].strip(" -()") if name.startswith(city) else name
    words = [
        name,
        name.lower(),
        name.upper(),
        name.replace("-", " "),
        name.replace(" ", "-"),
        name.translate(_UMLAUT_E),
        name.translate(_UMLAUT_PLAIN),
        f"  {name}  ",
        rest,
        rest.lower(),
        rest[:4],
        city,
        f"{city} {rest}",
        f"{city}-{rest}",
    ]
    return [*dict.fromkeys(words), None, "", "   ", 42, "zzz-no-station"]


def limits(rank: int) -> list[Any]:
    return [None, 1, rank - 1, rank, rank + 1, 100, 500, 0, -1, str(rank), float(rank), True]


def listing_variants(task: Task, target: ListingTarget) -> Iterator[ToolCall]:
    """Stations calls with many ``q`` spellings crossed with ``limit`` values."""
    city = city_name(task.gold.arguments.get("slug"))
    rank = target.rank(None) or 1
    for q in spellings(target.name, city):
        for limit in limits(rank):
            arguments: dict[str, Any] = {**task.gold.arguments, "q": q, "limit": limit}
            yield ToolCall(task.gold.name, arguments)
    for other in target.listing:
        if other != target.name:
            yield ToolCall(task.gold.name, {**task.gold.arguments, "q": other})
    yield from board_variants(task, target)


BOARDS = ("station_board_departures", "station_board_arrivals")


def board_variants(task: Task, target: ListingTarget) -> Iterator[ToolCall]:
    """Direct board calls in both directions: the station's EVA number (plain, padded, as an
    integer), its other EVA numbers, and an EVA number of another station."""
    station = station_record(task.gold.arguments.get("slug"), target.name)
    evas = list(station.evas) if station is not None else []
    others = [e for e in evas if e != target.eva]
    for board in BOARDS:
        if target.eva is not None:
            for eva in (target.eva, f" {target.eva} ", int(target.eva), *others):
                yield ToolCall(board, {"eva": eva})
            yield ToolCall(board, {"eva": target.eva, "slug": task.gold.arguments.get("slug")})
        yield ToolCall(board, {"eva": "8011160"})


def station_record(slug: Any, name: str) -> Station | None:
    """The station record named ``name`` in the city ``slug`` (None when unknown)."""
    rows = stations_by_city().get(slug, ()) if isinstance(slug, str) else ()
    return next((s for s in rows if s.name == name), None)


def city_name(slug: Any) -> str:
    """The register name of a slug ('' when unknown)."""
    city = city_index().get(slug) if isinstance(slug, str) else None
    return city.name_de if city is not None else ""


def call_variants(task: Task) -> list[ToolCall]:
    """Every variant of the task's gold call, without duplicates."""
    target = listing_target(task)
    calls = list(general_variants(task))
    if target is not None:
        calls.extend(listing_variants(task, target))
    unique: dict[str, ToolCall] = {}
    for call in calls:
        unique.setdefault(repr((call.name, sorted_items(call.arguments))), call)
    return list(unique.values())


def sorted_items(arguments: Mapping[str, Any]) -> list[tuple[str, str]]:
    return sorted((k, repr(v)) for k, v in arguments.items())
