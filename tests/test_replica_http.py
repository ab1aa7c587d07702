"""The replica over a real loopback socket: envelopes, content type, 4xx, HEAD, 405, CLI."""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tooleval.commands import serve as serve_command
from tooleval.suites.infranode.api import InfraNodeReplica
from tooleval.suites.infranode.api.server import encode_body, running_server
from tooleval.suites.infranode.client import HttpTransport, execute_tool


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with running_server() as url:
        yield url


def fetch(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()


def fetch_json(url: str) -> tuple[int, dict[str, Any]]:
    status, headers, body = fetch(url)
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    return status, json.loads(body)


def test_base_url_is_loopback_with_ephemeral_port(base_url: str) -> None:
    assert base_url.startswith("http://127.0.0.1:")
    assert int(base_url.rsplit(":", 1)[1]) > 0


def test_success_envelope_over_http(base_url: str) -> None:
    status, body = fetch_json(f"{base_url}/api/v1/cities/koeln/weather")
    assert status == 200
    assert set(body) == {"data", "meta"}
    assert body["meta"]["source_status"] == "ok"
    assert body["data"]["payload"]["station_id"] == "02667"


def test_http_bytes_equal_in_process_bytes(base_url: str) -> None:
    path = "/api/v1/cities/hamburg/overview"
    _, _, raw = fetch(base_url + path)
    assert raw == encode_body(InfraNodeReplica().get(path))


def test_percent_encoded_alias_and_query(base_url: str) -> None:
    status, body = fetch_json(
        f"{base_url}/api/v1/cities/M%C3%BCnchen/stations?q=m%C3%BCnchen%20hbf"
    )
    assert status == 200
    assert [s["eva"] for s in body["data"]["payload"]["stations"]] == ["8000261"]


def test_not_covered_over_http(base_url: str) -> None:
    status, body = fetch_json(f"{base_url}/api/v1/cities/muenchen/district-heating")
    assert status == 200
    assert body == {
        "data": None,
        "meta": body["meta"]
        | {"source_status": "not_covered", "covered_cities": ["berlin", "hamburg"]},
    }


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/v1/cities/atlantis/weather", 404, "not_found"),
        ("/api/v1/nothing-here", 404, "not_found"),
        ("/api/v1/cities/berlin/pois?type=cafe", 422, "unprocessable"),
        ("/api/v1/stations/8x/departures", 422, "unprocessable"),
        ("/api/v1/compare?cities=berlin&resource=rain", 400, "invalid_request"),
        ("/api/v1/compare?resource=weather", 400, "invalid_request"),
        ("/api/v1/cities/berlin/stations?limit=zero", 422, "unprocessable"),
    ],
)
def test_documented_4xx_envelopes(base_url: str, path: str, status: int, code: str) -> None:
    got_status, body = fetch_json(base_url + path)
    assert got_status == status
    assert body["error"]["code"] == code
    assert set(body["error"]) == {"code", "message", "hint"}
    assert set(body["meta"]) >= {"correlation_id", "generated_at"}


def test_head_has_headers_but_no_body(base_url: str) -> None:
    status, headers, body = fetch(f"{base_url}/api/v1/cities", method="HEAD")
    assert status == 200
    assert body == b""
    assert int(headers["Content-Length"]) > 1000


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_write_methods_get_405_envelope(base_url: str, method: str) -> None:
    status, headers, raw = fetch(f"{base_url}/api/v1/cities", method=method)
    assert status == 405
    assert headers["Allow"] == "GET, HEAD"
    assert json.loads(raw)["error"]["code"] == "method_not_allowed"


def test_http_transport_runs_tools_against_the_server(base_url: str) -> None:
    transport = HttpTransport(base_url)
    compared = execute_tool(
        transport, "compare", {"cities": ["berlin", "koeln", "atlantis"], "resource": "air"}
    )
    assert compared.status == 200
    assert [row["source_status"] for row in compared.body["data"]] == ["ok", "ok", "not_found"]
    board = execute_tool(transport, "station_board_departures", {"eva": "8011162"})
    assert board.body["data"]["payload"]["kind"] == "station_departures"
    alias = execute_tool(transport, "get_city_overview", {"slug": "Frankfurt am Main"})
    assert alias.body["data"]["city"]["slug"] == "frankfurt-am-main"


def test_health_endpoint(base_url: str) -> None:
    response = httpx.get(f"{base_url}/health", timeout=10)
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_serve_command_registers_flags() -> None:
    parser = argparse.ArgumentParser()
    serve_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--port", "0", "--host", "127.0.0.1"])
    assert args.func is serve_command.run
    assert (args.host, args.port) == ("127.0.0.1", 0)
    defaults = parser.parse_args(["serve"])
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8787)
