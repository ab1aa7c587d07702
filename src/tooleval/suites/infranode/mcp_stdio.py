"""The stdio wire of the InfraNode MCP server: every line a client sends gets the answer
JSON-RPC 2.0 requires, so a client never waits for a reply that will not come.

The SDK's stdio transport drops a line it cannot read without a word. Here each line passes
``gate`` first; only well-formed JSON-RPC 2.0 messages reach the SDK, and every other line
is answered at once (with the request's ``id`` when it has a usable one, else ``null``):

- ``-32700`` Parse error: not UTF-8, not JSON;
- ``-32600`` Invalid Request: not an object (an array: MCP has no batches), ``jsonrpc`` not
  ``"2.0"``, no string ``method`` (and not a response), an ``id`` that is neither a string nor
  an integer, ``params`` that are not structured, nesting deeper than ``MAX_DEPTH``, a line
  longer than ``MAX_LINE_BYTES``, or an envelope the SDK's own schema refuses.

A well-formed notification (no ``id``) is never answered, as the specification says; an
unknown method or bad parameters of a well-formed request are the SDK's to answer.
"""

from __future__ import annotations

import json
import threading
from typing import IO, Any

import mcp_types as types

MAX_LINE_BYTES = 4 * 2**20
MAX_DEPTH = 64
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children)
    return deepest


def error_reply(code: int, message: str, request_id: Any = None) -> str:
    """One JSON-RPC error response as a line (without the newline)."""
    error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(error, ensure_ascii=False)


def _usable_id(message: dict[str, Any]) -> Any:
    found = message.get("id")
    ok = isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool))
    return found if ok else None


def _envelope_problem(message: dict[str, Any]) -> str | None:
    """Why ``message`` is not a JSON-RPC 2.0 request, notification or response (or None)."""
    if message.get("jsonrpc") != "2.0":
        return "'jsonrpc' must be \"2.0\""
    if "id" in message and _usable_id(message) is None:
        return "'id' must be a string or an integer"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "'method' must be a string"
        if "params" in message and not isinstance(message["params"], dict | list):
            return "'params' must be an object or an array"
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None  # a response to a request of the server
    return "a request needs a 'method'"


def gate(raw: bytes) -> tuple[str | None, str | None]:
    """``(line for the SDK, reply to send)`` for one line a client sent: exactly one is set,
    except for a blank line and an ill-formed notification the SDK drops (both None)."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return None, error_reply(PARSE_ERROR, f"Parse error: not UTF-8 (byte {exc.start + 1})")
    if not text:
        return None, None
    try:
        message = json.loads(text)
    except RecursionError:
        return None, error_reply(
            INVALID_REQUEST, f"Invalid Request: nested deeper than {MAX_DEPTH}"
        )
    except ValueError as exc:
        return None, error_reply(PARSE_ERROR, f"Parse error: {exc}")
    if isinstance(message, list):
        return None, error_reply(INVALID_REQUEST, "Invalid Request: batches are not supported")
    if not isinstance(message, dict):
        return None, error_reply(INVALID_REQUEST, "Invalid Request: not a JSON object")
    request_id = _usable_id(message)
    problem = _envelope_problem(message)
    if problem is None and _depth(message) > MAX_DEPTH:
        problem = f"nested deeper than {MAX_DEPTH}"
    if problem is None:
        try:
            types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError as exc:
            problem = str(exc).splitlines()[0]
            if "id" not in message:
                return None, None  # a notification the SDK cannot read: never answered
    if problem is not None:
        return None, error_reply(INVALID_REQUEST, f"Invalid Request: {problem}", request_id)
    return text + "\n", None


class LineWriter:
    """The server's stdout, one whole line per write (the SDK's replies and the gate's share
    it, so no two lines interleave)."""

    def __init__(self, sink: IO[bytes]) -> None:
        self._sink = sink
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self._sink.write(text.encode("utf-8"))
            self._sink.flush()
        return len(text)

    def flush(self) -> None:
        with self._lock:
            self._sink.flush()


class GatedStdin:
    """The server's stdin as the SDK reads it (``readline``): only lines ``gate`` lets through;
    every other line is answered on ``out`` at once."""

    def __init__(self, source: IO[bytes], out: LineWriter) -> None:
        self._source = source
        self._out = out

    def _skip_rest_of_line(self) -> None:
        while True:
            chunk = self._source.readline(2**16)
            if not chunk or chunk.endswith(b"\n"):
                return

    def readline(self, size: int = -1) -> str:
        while True:
            raw = self._source.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return ""
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self._skip_rest_of_line()
                limit = f"longer than {MAX_LINE_BYTES} bytes"
                self._out.write(error_reply(INVALID_REQUEST, f"Invalid Request: {limit}") + "\n")
                continue
            line, reply = gate(raw)
            if reply is not None:
                self._out.write(reply + "\n")
            if line is not None:
                return line
