"""Per-city data types: honest source_status, then a canonical record (or list) per key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tooleval.suites.infranode.api import payloads_env, payloads_places, payloads_stats
from tooleval.suites.infranode.api.boards import city_board_payload, station_catalog
from tooleval.suites.infranode.api.envelope import record
from tooleval.suites.infranode.api.facts import (
    City,
    catalog_index,
    local_features,
    partial_coverage,
    snapshot,
)
from tooleval.suites.infranode.api.seeded import Dice

GENERATORS: dict[str, Callable[[City, Dice], dict[str, Any]]] = {
    **payloads_env.GENERATORS,
    **payloads_stats.GENERATORS,
    **payloads_places.GENERATORS,
}
# REST paths that are real but not catalogue keys (source id per path).
EXTRA_KEYS = {"parking": "parkendd", "charging-status": "bnetza"}
ALWAYS_DISABLED = frozenset({"hospitals-atlas"})
ALWAYS_NO_DATA = frozenset({"webcams"})
STATION_KEYS = frozenset(
    {"stations", "station-departures", "station-arrivals", "station-facilities"}
)
ROAD_EVENT_SOURCES = {
    "berlin": "berlin_viz",
    "hamburg": "hamburg_baustellen",
    "koeln": "koeln_verkehr",
    "muenchen": "muenchen_baustellen",
    "dortmund": "dortmund_baustellen",
    "stuttgart": "mobidata_bw",
    "bremen": "bremen_baustellen",
    "dresden": "sperrinfosys",
    "leipzig": "sperrinfosys",
}
LICENSE_OVERRIDES = {("district-heating", "berlin"): "dl_de_zero_2_0"}


@dataclass(frozen=True)
class Outcome:
    """What a per-city data endpoint answers: status, data (None unless ok), extra meta."""

    status: str
    data: Any
    meta: dict[str, Any]


def is_city_key(key: str) -> bool:
    return key in catalog_index() or key in EXTRA_KEYS


def coverage_gap(key: str, slug: str) -> tuple[str, ...] | None:
    """The covered slugs when ``key`` is partial and excludes ``slug``; else None."""
    covered = partial_coverage().get(key)
    if covered is None or slug in covered:
        return None
    return covered


def city_status(key: str, city: City) -> tuple[str, dict[str, Any]]:
    """The honest ``source_status`` (and extra meta) before any value is made."""
    covered = coverage_gap(key, city.slug)
    if covered is not None:
        return "not_covered", {"covered_cities": list(covered)}
    if key in ALWAYS_DISABLED:
        return "disabled", {}
    if key in ALWAYS_NO_DATA:
        return "no_data", {}
    if key in local_features() and city.slug not in local_features()[key]:
        return "no_data", {}
    if key in STATION_KEYS and not station_catalog(city.slug):
        return "no_data", {}
    return "ok", {}


def source_for(key: str, slug: str) -> str:
    if key == "road-events":
        return ROAD_EVENT_SOURCES.get(slug, "berlin_viz")
    if key in EXTRA_KEYS:
        return EXTRA_KEYS[key]
    return catalog_index()[key].source


def city_record(key: str, city: City, payload: dict[str, Any], observed: bool) -> dict[str, Any]:
    suffix = f", Stand: {snapshot().observed_at}" if key == "flood" else ""
    return record(
        city.slug,
        source_for(key, city.slug),
        payload,
        city=city,
        observed=observed,
        attribution_suffix=suffix,
        license_id=LICENSE_OVERRIDES.get((key, city.slug)),
    )


STATIC_KEYS = frozenset(
    {
        "base",
        "geo",
        "demographics",
        "indicators",
        "unemployment",
        "tourism",
        "construction",
        "accidents",
        "crime-stats",
        "vehicle-registrations",
        "election",
        "holidays",
        "energy",
        "solar",
        "solar-roofs",
        "land-values",
        "tax-rates",
        "business-registrations",
        "insolvencies",
        "population-density",
        "district-heating",
        "health",
        *payloads_places.OSM_LABELS,
    }
)


def pagination(total: int) -> dict[str, Any]:
    return {"total": total, "returned": total, "limit": None, "offset": 0, "truncated": False}


def poi_pagination(payload: dict[str, Any]) -> dict[str, Any]:
    """The honest slice of a capped POI sample."""
    truncated = bool(payload["truncated"])
    return {
        "total": payload["total_available"],
        "returned": payload["count"],
        "limit": payloads_places.SAMPLE_CAP if truncated else None,
        "offset": 0,
        "truncated": truncated,
    }


def _special(key: str, city: City, dice: Dice) -> Outcome | None:
    if key == "transit":
        stops = [
            city_record(key, city, p, False) for p in payloads_places.transit_stops(city, dice)
        ]
        return Outcome("ok", stops, {"pagination": pagination(len(stops))})
    if key == "energy":
        rows = [city_record(key, city, payloads_stats.energy(city, dice), False)]
        return Outcome("ok", rows, {"pagination": pagination(len(rows))})
    if key == "public-tenders":
        notices = payloads_places.public_tenders(city, dice)
        rec = city_record(key, city, {"kind": "public_tenders"}, False)
        data = {
            "notices": notices,
            "count": len(notices),
            "license_id": rec["license_id"],
            "license_tier": rec["license_tier"],
            "attribution": rec["attribution"],
        }
        return Outcome("ok", data, {})
    if key in ("station-departures", "station-arrivals"):
        payload = city_board_payload(city.slug, key.removeprefix("station-"))
        if payload is None:
            return Outcome("no_data", None, {})
        return Outcome("ok", city_record(key, city, payload, True), {})
    return None


def city_data(key: str, city: City) -> Outcome:
    """The answer of ``/cities/{slug}/{key}`` for every catalogue key except pois and stations."""
    status, extra = city_status(key, city)
    if status != "ok":
        return Outcome(status, None, extra)
    dice = Dice(city.slug, key)
    special = _special(key, city, dice)
    if special is not None:
        return special
    payload = GENERATORS[key](city, dice)
    extra = {"pagination": poi_pagination(payload)} if payload.get("kind") == "poi" else {}
    return Outcome("ok", city_record(key, city, payload, key not in STATIC_KEYS), extra)
