"""The servers tooleval runs for others, under malformed input and load: the MCP server over
stdio answers every line as JSON-RPC 2.0 requires and bounds argument sizes; the replica's
HTTP server answers odd numbers and paths with its envelope, queues a burst of connections and
closes idle keep-alive connections.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.suites.infranode.api import server as replica_server
from tooleval.suites.infranode.mcp_stdio import INVALID_REQUEST, PARSE_ERROR, gate

REPLY_WAIT_S = 30.0


class McpProcess:
    """``tooleval mcp`` over stdio, initialised, one line at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tooleval.cli", "mcp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "test", "version": "1"}}}  # fmt: skip
        assert self.ask(json.dumps(init).encode())["id"] == 0
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], REPLY_WAIT_S)
        assert ready, "no reply"
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def ask(self, line: bytes) -> dict[str, Any]:
        self.send(line)
        return self.reply()

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


@pytest.fixture(scope="module")
def mcp() -> Iterator[McpProcess]:
    process = McpProcess()
    yield process
    process.close()


MALFORMED: dict[str, tuple[bytes, int, Any]] = {
    "not JSON": (b"hello", PARSE_ERROR, None),
    "not UTF-8": (b'\xff\xfe{"jsonrpc": "2.0"}', PARSE_ERROR, None),
    "a batch": (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', INVALID_REQUEST, None),
    "an empty batch": (b"[]", INVALID_REQUEST, None),
    "a string": (b'"ping"', INVALID_REQUEST, None),
    "no method": (b'{"jsonrpc": "2.0", "id": 2}', INVALID_REQUEST, 2),
    "JSON-RPC 1.0": (b'{"jsonrpc": "1.0", "id": 3, "method": "ping"}', INVALID_REQUEST, 3),
    "no jsonrpc": (b'{"id": "x", "method": "ping"}', INVALID_REQUEST, "x"),
    "method a number": (b'{"jsonrpc": "2.0", "id": 4, "method": 4}', INVALID_REQUEST, 4),
    "params a number": (
        b'{"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": 5}',
        INVALID_REQUEST,
        5,
    ),
    "id an object": (b'{"jsonrpc": "2.0", "id": {}, "method": "ping"}', INVALID_REQUEST, None),
    "id a boolean": (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
    "nested 300 deep": (
        b'{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"a": '
        + b"[" * 300
        + b"]" * 300
        + b"}}",
        INVALID_REQUEST,
        6,
    ),
    "nested 100,000 deep": (
        b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        INVALID_REQUEST,
        None,
    ),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_every_malformed_line_gets_its_json_rpc_error(name: str, mcp: McpProcess) -> None:
    line, code, request_id = MALFORMED[name]
    answer = mcp.ask(line)
    assert answer["jsonrpc"] == "2.0" and answer["error"]["code"] == code
    assert answer["id"] == request_id


def test_a_notification_gets_no_reply_but_requests_go_on(mcp: McpProcess) -> None:
    mcp.send(b'{"jsonrpc": "2.0", "method": "notifications/unknown"}')
    mcp.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"x": [1]}}')
    # structurally invalid is not a notification: JSON-RPC 2.0 answers it with id null
    ill_formed = mcp.ask(b'{"jsonrpc": "2.0", "method": "notifications/x", "params": 5}')
    assert ill_formed["id"] is None and ill_formed["error"]["code"] == INVALID_REQUEST
    assert mcp.ask(b'{"jsonrpc": "2.0", "id": 7, "method": "ping"}') == {
        "jsonrpc": "2.0", "id": 7, "result": {},
    }  # fmt: skip


@pytest.mark.parametrize("size", [1001, 2**20])
def test_an_oversized_argument_is_a_tool_error_not_a_cpu_sink(size: int, mcp: McpProcess) -> None:
    call = {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
            "params": {"name": "weather", "arguments": {"slug": "a" * size}}}  # fmt: skip
    answer = mcp.ask(json.dumps(call).encode())
    result = answer["result"]
    assert result["isError"] is True and "longer than" in result["content"][0]["text"]


def test_a_line_over_the_size_bound_is_refused_and_the_stream_goes_on(mcp: McpProcess) -> None:
    from tooleval.suites.infranode.mcp_stdio import MAX_LINE_BYTES

    answer = mcp.ask(b'{"jsonrpc": "2.0", "id": 9, "x": "' + b"y" * MAX_LINE_BYTES + b'"}')
    assert (
        answer["error"]["code"] == INVALID_REQUEST and "longer than" in answer["error"]["message"]
    )
    assert mcp.ask(b'{"jsonrpc": "2.0", "id": 10, "method": "ping"}')["id"] == 10


@settings(max_examples=400, deadline=None)
@given(
    st.binary(max_size=80)
    | st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
                inner,
                max_size=5,
            )
        ),
        max_leaves=12,
    ).map(lambda v: json.dumps(v).encode())
)
def test_the_gate_answers_or_passes_any_line(raw: bytes) -> None:
    line, reply = gate(raw)
    assert line is None or reply is None
    if reply is not None:
        answer = json.loads(reply)
        assert answer["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST)
        assert answer["id"] is None or isinstance(answer["id"], str | int)
    if line is not None:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"


# --- the replica over HTTP ------------------------------------------------------------------


@pytest.fixture
def replica() -> Iterator[tuple[str, int]]:
    server = replica_server.make_server("127.0.0.1", 0, idle_timeout_s=0.3)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "127.0.0.1", int(server.server_address[1])
    server.shutdown()
    server.server_close()


def get(address: tuple[str, int], path: str) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection(*address, timeout=REPLY_WAIT_S)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/v1/sources?limit=" + "9" * 5000, 200),
        ("/api/v1/sources?limit=%C2%B2", 400),
        ("/api/v1/sources?page=%D9%A3", 400),
        ("/api/v1/cities/berlin/stations?limit=" + "7" * 5000, 200),
        ("//[x/api/v1/cities", 404),
    ],
)
def test_odd_numbers_and_paths_get_the_envelope(
    path: str, status: int, replica: tuple[str, int]
) -> None:
    code, body = get(replica, path)
    assert code == status and ("data" in body or body["error"]["code"])


def test_a_failing_request_gets_the_500_envelope(
    replica: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: str, query: Any = None) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(replica_server.ReplicaRequestHandler.replica, "get", broken)
    code, body = get(replica, "/api/v1/cities")
    assert code == 500 and body["error"]["code"] == "internal_error"


def test_an_idle_keep_alive_connection_is_closed(replica: tuple[str, int]) -> None:
    with socket.create_connection(replica, timeout=REPLY_WAIT_S) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        first = conn.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        rest = b""
        while chunk := conn.recv(65536):  # returns b"" once the server closed it
            rest += chunk
    assert b"HTTP/1.1" not in rest


def test_a_burst_of_connections_is_queued_while_the_server_is_busy() -> None:
    server = replica_server.make_server("127.0.0.1", 0)
    address = server.server_address
    connections = []
    try:
        for _ in range(300):  # nothing accepts them yet: they wait in the listen queue
            connections.append(socket.create_connection(address, timeout=3.0))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        for conn in connections:
            conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answers = [conn.recv(12) for conn in connections]
    finally:
        for conn in connections:
            conn.close()
        server.shutdown()
        server.server_close()
    assert answers == [b"HTTP/1.1 200"] * 300
