"""``InfraNodeReplica``: answers API paths in-process with the live envelopes and statuses."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import parse_qsl, unquote

from tooleval.suites.infranode.api import errors
from tooleval.suites.infranode.api.boards import (
    board_payload,
    filter_stations,
    station_catalog,
    station_for_eva,
    station_json,
)
from tooleval.suites.infranode.api.citydata import city_data, city_record, city_status, is_city_key
from tooleval.suites.infranode.api.envelope import (
    ApiResponse,
    Request,
    base_meta,
    empty,
    record,
    status_meta,
    success,
)
from tooleval.suites.infranode.api.facts import City, city_index, poi_types, snapshot
from tooleval.suites.infranode.api.overview import overview, register_entry, register_list
from tooleval.suites.infranode.api.payloads_places import typed_poi
from tooleval.suites.infranode.api.queries import compare, sources_page, whole_number
from tooleval.suites.infranode.api.seeded import Dice
from tooleval.suites.infranode.api.slugs import resolve_slug

PREFIX = ("api", "v1")
EVA_PATTERN = re.compile(r"^[0-9]{6,8}$")
STATIONS_MAX_LIMIT = 100


def split_request(path: str, query: Mapping[str, str] | None) -> tuple[Request, list[str]]:
    """Decode a path (percent-encoded or not, optional ``?query``) into segments + query.
    Any text is a path here (``//[x`` too: no URL parser that could raise)."""
    raw_path, _, raw_query = path.partition("#")[0].partition("?")
    merged = dict(parse_qsl(raw_query, keep_blank_values=True))
    merged.update(query or {})
    segments = [unquote(s) for s in raw_path.split("/") if s]
    return Request("/" + "/".join(segments), merged), segments


class InfraNodeReplica:
    """The offline InfraNode API: ``get(path, query)`` -> ``ApiResponse``; no I/O, no clock."""

    def get(self, path: str, query: Mapping[str, str] | None = None) -> ApiResponse:
        request, segments = split_request(path, query)
        if segments in (["health"], [*PREFIX, "health"]):
            return ApiResponse(200, health_body())
        if segments[:2] != list(PREFIX):
            return errors.unknown_path(request)
        return self._route(request, segments[2:])

    def _route(self, request: Request, rest: list[str]) -> ApiResponse:
        if rest == ["cities"]:
            return success(register_list(), base_meta(request))
        if rest == ["sources"]:
            return sources_page(request)
        if rest == ["compare"]:
            return compare(request)
        if len(rest) == 3 and rest[0] == "stations" and rest[2] in ("departures", "arrivals"):
            return station_board(request, rest[1], rest[2])
        if rest[:1] == ["cities"] and len(rest) in (2, 3):
            return city_route(request, rest[1], rest[2] if len(rest) == 3 else None)
        return errors.unknown_path(request)


def health_body() -> dict[str, object]:
    snap = snapshot()
    return {
        "status": "ok",
        "version": snap.api_version,
        "redis": False,
        "replica": True,
        "snapshot_date": snap.contract_date,
    }


def city_route(request: Request, name: str, key: str | None) -> ApiResponse:
    if key is not None and key not in CITY_HANDLERS and not is_city_key(key):
        return errors.unknown_path(request)
    slug = resolve_slug(name)
    if slug is None:
        return errors.unknown_city(request, name)
    city = city_index()[slug]
    if key is None:
        return success(register_entry(city), base_meta(request))
    handler = CITY_HANDLERS.get(key, data_route)
    return handler(request, city, key)


def data_route(request: Request, city: City, key: str) -> ApiResponse:
    outcome = city_data(key, city)
    if outcome.status != "ok":
        return empty(request, outcome.status, **outcome.meta)
    return success(outcome.data, status_meta(request, "ok", **outcome.meta))


def overview_route(request: Request, city: City, key: str) -> ApiResponse:
    return success(overview(city), status_meta(request, "ok"))


def pois_route(request: Request, city: City, key: str) -> ApiResponse:
    poi_type = request.query.get("type")
    if poi_type not in poi_types():
        return errors.bad_poi_type(request, poi_type)
    payload = typed_poi(city, Dice(city.slug, "pois", poi_type), poi_type)
    rec = city_record("pois", city, payload, False)
    return success(rec, status_meta(request, "ok"))


def parse_limit(raw: str | None) -> int | str | None:
    """``limit`` of the stations catalogue: None, a clamped int, or an error message."""
    if raw is None:
        return None
    value = whole_number(raw)
    if value is None or value < 1:
        return f"limit muss eine ganze Zahl >= 1 sein, nicht '{raw[:40]}'."
    return min(value, STATIONS_MAX_LIMIT)


def stations_route(request: Request, city: City, key: str) -> ApiResponse:
    limit = parse_limit(request.query.get("limit"))
    if isinstance(limit, str):
        return errors.unprocessable(
            request, limit, "Erlaubt ist limit=1 bis 100 (größere Werte werden geklemmt)."
        )
    status, extra = city_status(key, city)
    if status != "ok":
        return empty(request, status, **extra)
    picked = filter_stations(station_catalog(city.slug), request.query.get("q") or None, limit)
    if not picked:
        return empty(request, "no_data")
    payload = {
        "kind": "station_catalog",
        "station_count": len(picked),
        "stations": [station_json(s, city.ags) for s in picked],
    }
    return success(city_record(key, city, payload, False), status_meta(request, "ok"))


def station_board(request: Request, eva: str, direction: str) -> ApiResponse:
    if not EVA_PATTERN.match(eva):
        return errors.bad_eva(request, eva)
    if station_for_eva(eva) is None:
        return empty(request, "no_data")
    payload = board_payload((eva,), direction)
    if payload is None:
        return empty(request, "no_data")
    rec = record(eva, "db_timetables", payload, city=None, observed=True)
    return success(rec, status_meta(request, "ok"))


CITY_HANDLERS: dict[str, Callable[[Request, City, str], ApiResponse]] = {
    "overview": overview_route,
    "pois": pois_route,
    "stations": stations_route,
}
