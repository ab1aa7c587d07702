"""Collection endpoints with query parameters: ``/compare`` and ``/sources``."""

from __future__ import annotations

from typing import Any

from tooleval.suites.infranode.api import errors
from tooleval.suites.infranode.api.envelope import ApiResponse, Request, base_meta, success
from tooleval.suites.infranode.api.facts import city_index, compare_max_cities, compare_resources
from tooleval.suites.infranode.api.overview import compare_row, source_rows
from tooleval.suites.infranode.api.slugs import resolve_slug

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
COMPARE_SORTS = ("city", "source_status")
SOURCE_SORTS = ("source", "enabled", "license")


HUGE = 10**18


def whole_number(raw: str) -> int | None:
    """A query value as a whole number >= 0 (ASCII digits only; beyond 18 digits it counts as
    ``HUGE``, so a 5,000-digit value is a large number, not a crash); None otherwise."""
    text = raw.strip()
    if not text or not (text.isascii() and text.isdigit()):
        return None
    return int(text) if len(text) <= 18 else HUGE


def _int_param(request: Request, name: str, default: int, minimum: int) -> int | str:
    raw = request.query.get(name)
    if raw is None or raw == "":
        return default
    value = whole_number(raw)
    if value is None or value < minimum:
        return f"Parameter {name} muss eine ganze Zahl >= {minimum} sein, nicht '{raw[:40]}'."
    return value


def page_params(request: Request, sorts: tuple[str, ...]) -> dict[str, Any] | str:
    """page/limit/offset/sort/order, or a German error message for a 400."""
    page = _int_param(request, "page", 1, 1)
    limit = _int_param(request, "limit", DEFAULT_LIMIT, 1)
    offset = _int_param(request, "offset", 0, 0)
    for value in (page, limit, offset):
        if isinstance(value, str):
            return value
    sort, order = request.query.get("sort"), request.query.get("order", "asc")
    if sort is not None and sort not in sorts:
        return f"Unbekanntes Sortierfeld '{sort}'; erlaubt: {', '.join(sorts)}."
    if order not in ("asc", "desc"):
        return f"Unbekannte Sortierrichtung '{order}'; erlaubt: asc, desc."
    assert isinstance(page, int) and isinstance(limit, int) and isinstance(offset, int)
    limit = min(limit, MAX_LIMIT)
    start = offset + (page - 1) * limit
    return {
        "page": page,
        "limit": limit,
        "offset": offset,
        "start": start,
        "sort": sort,
        "desc": order == "desc",
    }


def _page(rows: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    if params["sort"] is not None:
        rows = sorted(rows, key=lambda row: str(row[params["sort"]]), reverse=params["desc"])
    return rows[params["start"] : params["start"] + params["limit"]]


def split_cities(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def compare(request: Request) -> ApiResponse:
    resource = request.query.get("resource", "")
    allowed = compare_resources()
    if resource not in allowed:
        return errors.invalid_request(
            request,
            f"Unbekannte Vergleichs-Ressource '{resource}'.",
            f"Erlaubt: {', '.join(allowed)}.",
        )
    names = split_cities(request.query.get("cities", ""))[: compare_max_cities()]
    if not names:
        return errors.invalid_request(
            request,
            "Der Parameter cities ist leer.",
            "Gib kommasepariert Stadt-Slugs an, z.B. cities=berlin,koeln.",
        )
    params = page_params(request, COMPARE_SORTS)
    if isinstance(params, str):
        return errors.invalid_request(request, params, None)
    rows = []
    for name in names:
        slug = resolve_slug(name)
        rows.append(compare_row(name, city_index()[slug] if slug else None, resource))
    meta = base_meta(request) | {"resource": resource, "total": len(rows)}
    return success(_page(rows, params), meta)


def sources_page(request: Request) -> ApiResponse:
    params = page_params(request, SOURCE_SORTS)
    if isinstance(params, str):
        return errors.invalid_request(request, params, None)
    rows = source_rows()
    meta = base_meta(request) | {
        "page": params["page"],
        "limit": params["limit"],
        "offset": params["offset"],
        "total": len(rows),
    }
    return success(_page(rows, params), meta)
