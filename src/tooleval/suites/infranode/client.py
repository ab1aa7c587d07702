"""Map the twelve InfraNode tools to API requests and run them over a transport.

``tool_request`` is pure (tool call -> path + query); a ``Transport`` performs the GET, either
in-process against the replica or over HTTP against a base URL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import quote

import httpx

from tooleval.scoring import is_omitted
from tooleval.suites.infranode.api import ApiResponse, InfraNodeReplica

LIVE_BASE_URL = "https://infranode.dev"
HTTP_TIMEOUT_S = 30.0
Query = dict[str, str]


class Transport(Protocol):
    def get(self, path: str, query: Mapping[str, str]) -> ApiResponse: ...


class ReplicaTransport:
    """In-process: calls ``InfraNodeReplica.get`` directly, no socket."""

    def __init__(self, replica: InfraNodeReplica | None = None) -> None:
        self.replica = replica or InfraNodeReplica()

    def get(self, path: str, query: Mapping[str, str]) -> ApiResponse:
        return self.replica.get(path, query)


class ApiUnreachable(ConnectionError):
    """The API at a base URL gave no HTTP answer (refused, unknown host, timed out); the
    message names the URL and the cause in one line."""


class HttpTransport:
    """HTTP GET against a base URL (the replica server, or the live API)."""

    def __init__(self, base_url: str = LIVE_BASE_URL, timeout_s: float = HTTP_TIMEOUT_S) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def get(self, path: str, query: Mapping[str, str]) -> ApiResponse:
        try:
            response = httpx.get(self.base_url + path, params=dict(query), timeout=self.timeout_s)
        except httpx.HTTPError as exc:
            cause = str(exc) or type(exc).__name__
            raise ApiUnreachable(
                f"cannot reach the InfraNode API at {self.base_url}: {cause}"
            ) from None
        try:
            body = response.json()
        except ValueError:
            body = {
                "error": {"code": "invalid_response", "message": response.text[:500], "hint": None}
            }
        if not isinstance(body, dict):
            body = {"data": body}
        return ApiResponse(response.status_code, body)


class MemoTransport:
    """Remembers the answers of a deterministic transport (the replica), so a repeated request
    is answered without executing it again. Not for the live API, whose answers change."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.answers: dict[tuple[str, tuple[tuple[str, str], ...]], ApiResponse] = {}

    def get(self, path: str, query: Mapping[str, str]) -> ApiResponse:
        key = (path, tuple(sorted(query.items())))
        if key not in self.answers:
            self.answers[key] = self.inner.get(path, query)
        return self.answers[key]


def make_transport(base_url: str | None) -> Transport:
    """None -> the in-process replica; otherwise HTTP to ``base_url``."""
    return ReplicaTransport() if base_url is None else HttpTransport(base_url)


def _text(tool: str, arguments: Mapping[str, Any], name: str) -> str:
    """A required argument as text, without surrounding whitespace (as the scorer compares it)."""
    if name not in arguments or arguments[name] is None:
        raise ValueError(f"tool {tool!r}: missing required argument {name!r}")
    return str(arguments[name]).strip()


def _segment(tool: str, arguments: Mapping[str, Any], name: str) -> str:
    return quote(_text(tool, arguments, name), safe="")


def _city(suffix: str) -> Callable[[str, Mapping[str, Any]], tuple[str, Query]]:
    def build(tool: str, arguments: Mapping[str, Any]) -> tuple[str, Query]:
        return f"/api/v1/cities/{_segment(tool, arguments, 'slug')}{suffix}", {}

    return build


def _city_data(tool: str, arguments: Mapping[str, Any]) -> tuple[str, Query]:
    slug, resource = _segment(tool, arguments, "slug"), _segment(tool, arguments, "resource")
    return f"/api/v1/cities/{slug}/{resource}", {}


def _pois(tool: str, arguments: Mapping[str, Any]) -> tuple[str, Query]:
    return f"/api/v1/cities/{_segment(tool, arguments, 'slug')}/pois", {
        "type": _text(tool, arguments, "type")
    }


def _compare(tool: str, arguments: Mapping[str, Any]) -> tuple[str, Query]:
    cities = arguments.get("cities")
    if cities is None:
        raise ValueError(f"tool {tool!r}: missing required argument 'cities'")
    joined = (
        ",".join(str(c).strip() for c in cities)
        if isinstance(cities, list | tuple)
        else str(cities)
    )
    return "/api/v1/compare", {"cities": joined, "resource": _text(tool, arguments, "resource")}


def _stations(tool: str, arguments: Mapping[str, Any]) -> tuple[str, Query]:
    """Optional ``q`` and ``limit`` are sent only when given (``null`` or blank means omitted)."""
    query: Query = {
        name: str(arguments[name]).strip()
        for name in ("q", "limit")
        if name in arguments and not is_omitted(arguments[name])
    }
    return f"/api/v1/cities/{_segment(tool, arguments, 'slug')}/stations", query


def _board(direction: str) -> Callable[[str, Mapping[str, Any]], tuple[str, Query]]:
    def build(tool: str, arguments: Mapping[str, Any]) -> tuple[str, Query]:
        return f"/api/v1/stations/{_segment(tool, arguments, 'eva')}/{direction}", {}

    return build


def _fixed(path: str) -> Callable[[str, Mapping[str, Any]], tuple[str, Query]]:
    return lambda tool, arguments: (path, {})


TOOL_ROUTES: dict[str, Callable[[str, Mapping[str, Any]], tuple[str, Query]]] = {
    "list_cities": _fixed("/api/v1/cities"),
    "get_city_overview": _city("/overview"),
    "get_city": _city("/base"),
    "weather": _city("/weather"),
    "air_quality": _city("/air-uba"),
    "get_city_data": _city_data,
    "pois": _pois,
    "compare": _compare,
    "stations": _stations,
    "station_board_departures": _board("departures"),
    "station_board_arrivals": _board("arrivals"),
    "sources": _fixed("/api/v1/sources"),
}


def tool_request(name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """The path (segments percent-encoded) and query string parameters for one tool call."""
    route = TOOL_ROUTES.get(name)
    if route is None:
        raise ValueError(f"unknown InfraNode tool {name!r}; known: {', '.join(TOOL_ROUTES)}")
    return route(name, arguments)


def execute_tool(transport: Transport, name: str, arguments: Mapping[str, Any]) -> ApiResponse:
    path, query = tool_request(name, arguments)
    return transport.get(path, query)


def body_status(body: Mapping[str, Any]) -> str:
    """The answer's source status; for compare, ``ok`` only if every city answered ``ok``."""
    meta = body.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("source_status"), str):
        return str(meta["source_status"])
    rows = body.get("data")
    if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
        statuses = [r.get("source_status", "ok") for r in rows]
        return next((s for s in statuses if s != "ok"), "ok")
    return "ok"
