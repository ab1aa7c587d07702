"""The register list, the city overview, compare and the sources list."""

from __future__ import annotations

from typing import Any

from tooleval.suites.infranode.api.citydata import Outcome, city_data, coverage_gap
from tooleval.suites.infranode.api.facts import City, catalog, cities, sources

CORE_TIER = "full"
HIGHLIGHTS = {"weather": "weather", "air": "air-uba", "departures": "station-departures"}


def register_entry(city: City) -> dict[str, Any]:
    geo = {"lat": city.geo[0], "lon": city.geo[1]} if city.geo else None
    return {
        "slug": city.slug,
        "name_de": city.name_de,
        "state": city.state,
        "ags": city.ags,
        "is_state_capital": city.is_state_capital,
        "qid": city.qid,
        "osm_relation": city.osm_relation,
        "geo": geo,
        "population": city.population,
        "dwd_station_ids": [],
        "gtfs_stop_ref": None,
        "coverage": city.tier,
    }


def register_list() -> list[dict[str, Any]]:
    """Core cities first (register order = population order), then the others A-Z."""
    core = [c for c in cities() if c.tier == CORE_TIER]
    auto = sorted((c for c in cities() if c.tier != CORE_TIER), key=lambda c: c.slug)
    return [register_entry(city) for city in core + auto]


def data_type_item(key: str, city: City) -> dict[str, Any]:
    entry = next(e for e in catalog() if e.key == key)
    item: dict[str, Any] = {
        "type": key,
        "label": entry.label_de,
        "label_en": entry.label_en,
        "tool": entry.tool,
        "path": f"/api/v1/cities/{city.slug}/{key}",
        "available": True,
    }
    covered = coverage_gap(key, city.slug)
    if covered is not None:
        item["available"] = False
        item["covered_cities"] = list(covered)
        item["note"] = (
            f"{entry.label_de} ist für {city.name_de} noch nicht verfügbar; derzeit in "
            f"{len(covered)} Städten abgedeckt. Die Abdeckung wird laufend erweitert."
        )
    return item


def highlight(key: str, city: City) -> dict[str, Any]:
    outcome: Outcome = city_data(key, city)
    item: dict[str, Any] = {"data": outcome.data, "source_status": outcome.status}
    if outcome.status == "ok":
        item["cache_status"] = "HIT"
    return item


def overview(city: City) -> dict[str, Any]:
    items = [data_type_item(entry.key, city) for entry in catalog()]
    available = sum(1 for item in items if item["available"])
    return {
        "city": register_entry(city),
        "data_types": items,
        "highlights": {name: highlight(key, city) for name, key in HIGHLIGHTS.items()},
        "summary": {
            "data_types_total": len(items),
            "data_types_available": available,
            "cities_total": len(cities()),
            "headline": f"Für {city.name_de} liefert InfraNode {available} von {len(items)} "
            "Datenarten, von Wetter und Luft bis Bahn, Energie und Statistik.",
            "note": "InfraNode wächst laufend: weitere Datenarten und Städte kommen hinzu.",
        },
    }


def compare_row(name: str, city: City | None, resource: str) -> dict[str, Any]:
    if city is None:
        return {"city": name, "data": None, "source_status": "not_found"}
    key = "air-uba" if resource == "air" else resource
    outcome = city_data(key, city)
    row: dict[str, Any] = {"city": city.slug, "data": outcome.data, "source_status": outcome.status}
    if outcome.status == "ok":
        row["cache_status"] = "HIT"
    return row


def source_rows() -> list[dict[str, Any]]:
    rows = []
    for source in sources():
        rows.append(
            {
                "source": source.source,
                "name": source.name,
                "enabled": source.source != "klinik_atlas",
                "breaker_state": "CLOSED",
                "license": source.license_id,
                "license_tier": source.license_tier,
                "attribution": source.attribution,
            }
        )
    return rows
