"""The replica's facts: the packaged JSON files under ``suites/infranode/data``, loaded once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from tooleval.fileio import package_json

DATA_PACKAGE = "tooleval.suites.infranode"


@dataclass(frozen=True)
class Snapshot:
    contract_date: str
    coverage_date: str
    observed_at: str
    retrieved_at: str
    local_time: str
    replica_label: str
    api_version: str


@dataclass(frozen=True)
class City:
    slug: str
    name_de: str
    state: str
    population: int
    tier: str
    is_state_capital: bool
    ags: str | None
    qid: str | None
    osm_relation: int | None
    geo: tuple[float, float] | None


@dataclass(frozen=True)
class Alias:
    alias: str
    slug: str
    documented: bool


@dataclass(frozen=True)
class CatalogEntry:
    key: str
    label_de: str
    label_en: str
    tool: str
    kind: str
    source: str


@dataclass(frozen=True)
class Station:
    eva: str
    evas: tuple[str, ...]
    name: str
    category: int | None
    lat: float | None
    lon: float | None
    zip: str | None


@dataclass(frozen=True)
class Source:
    source: str
    name: str
    license_id: str
    license_tier: str
    attribution: str
    modified: bool


def read_data(name: str) -> dict[str, Any]:
    """One packaged data file as a JSON object; a clear error names a broken file."""
    value = package_json(DATA_PACKAGE, "data", name)
    if not isinstance(value, dict):
        raise ValueError(f"data/{name}: expected a JSON object at the top level")
    return value


@cache
def snapshot() -> Snapshot:
    return Snapshot(**read_data("snapshot.json"))


def _city(row: dict[str, Any]) -> City:
    geo = row["geo"]
    return City(
        slug=row["slug"],
        name_de=row["name_de"],
        state=row["state"],
        population=int(row["population"]),
        tier=row["tier"],
        is_state_capital=bool(row["is_state_capital"]),
        ags=row["ags"],
        qid=row["qid"],
        osm_relation=row["osm_relation"],
        geo=(float(geo["lat"]), float(geo["lon"])) if geo else None,
    )


@cache
def cities() -> tuple[City, ...]:
    """The 84 register cities in population order (as stored)."""
    return tuple(_city(row) for row in read_data("cities.json")["cities"])


@cache
def city_index() -> dict[str, City]:
    return {city.slug: city for city in cities()}


@cache
def aliases() -> tuple[Alias, ...]:
    return tuple(Alias(**row) for row in read_data("cities.json")["aliases"])


@cache
def catalog() -> tuple[CatalogEntry, ...]:
    """The 63 catalogue entries in catalogue order."""
    return tuple(CatalogEntry(**row) for row in read_data("catalog.json")["data_types"])


@cache
def catalog_index() -> dict[str, CatalogEntry]:
    return {entry.key: entry for entry in catalog()}


@cache
def partial_coverage() -> dict[str, tuple[str, ...]]:
    """Partial keys (catalogue keys and a few REST-only ones) -> sorted covered slugs."""
    partial = read_data("coverage.json")["partial"]
    return {key: tuple(sorted(slugs)) for key, slugs in partial.items()}


@cache
def local_features() -> dict[str, dict[str, str]]:
    """Per data type, the cities that have its local feature (and its name, e.g. the river of
    a gauge); every other city answers ``no_data`` for that type."""
    rows = read_data("local_features.json")["features"]
    return {
        key: {str(slug): str(name) for slug, name in by_city.items()}
        for key, by_city in rows.items()
    }


@cache
def poi_types() -> tuple[str, ...]:
    return tuple(sorted(read_data("poi_types.json")["types"]))


@cache
def compare_resources() -> tuple[str, ...]:
    return tuple(read_data("compare.json")["resources"])


def compare_max_cities() -> int:
    return int(read_data("compare.json")["max_cities"])


def _station(row: dict[str, Any]) -> Station:
    return Station(
        eva=row["eva"],
        evas=tuple(row["evas"]),
        name=row["name"],
        category=row["category"],
        lat=row["lat"],
        lon=row["lon"],
        zip=row["zip"],
    )


@cache
def stations_by_city() -> dict[str, tuple[Station, ...]]:
    rows = read_data("stations.json")["stations"]
    return {slug: tuple(_station(row) for row in items) for slug, items in rows.items()}


@cache
def fixed_city_boards() -> dict[str, tuple[str, ...]]:
    boards = read_data("stations.json")["city_boards"]
    return {slug: tuple(evas) for slug, evas in boards.items()}


@cache
def sources() -> tuple[Source, ...]:
    return tuple(Source(**row) for row in read_data("sources.json")["sources"])


@cache
def source_index() -> dict[str, Source]:
    return {source.source: source for source in sources()}
