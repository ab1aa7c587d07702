"""The one loopback HTTP server of the tests; the wire-format servers and the gold server of
the reliability tests are built on it (each only says how it answers).

``LoopbackServer`` runs a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 with an ephemeral port,
records every request (``Received``) and answers each with the ``Reply`` its ``respond``
function picks. ``ScriptedServer`` answers from a script of replies (one per request, in
order; the last one repeats), with fixed replies for some paths if given. Its ``rules`` (the
wire format's ``Rules``: ``strict_openai``, ``strict_gemini``, ``strict_anthropic``) first
validate each request the way the real API does and answer a 400 (or what the real server
answers) instead of the script when it breaks one; ``rejected`` lists those answers.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Protocol


@dataclass(frozen=True)
class Reply:
    """One answer.

    ``body`` is sent as given when it is bytes or str, JSON-encoded otherwise. ``delay_s``
    waits before answering (interrupted when the server stops). ``disconnect`` closes the
    connection without any response. ``short_by`` announces that many bytes more than are
    sent, then closes (a body cut off in transfer).
    """

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    disconnect: bool = False
    short_by: int = 0

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body, ensure_ascii=False).encode()


@dataclass(frozen=True)
class Received:
    """One request as the server saw it. Header names are lower-cased; ``body`` is the decoded
    JSON (or the text when it is not JSON), ``raw`` the bytes."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: bytes = b""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


Respond = Callable[[int, Received], Reply]
Router = Callable[[str, str], bool]


class Rules(Protocol):
    """A wire format's request validation: ``check`` returns the API's error answer for a
    request it rejects (None: accepted); ``sent`` sees every scripted answer that went out, so
    rules can remember what the "model" issued (signatures, thinking blocks)."""

    def check(self, received: Received) -> Reply | None: ...

    def sent(self, reply: Reply) -> None: ...


class QuietServer(ThreadingHTTPServer):
    """Connections a killed client left behind end in broken pipes; that is expected here."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


class LoopbackServer:
    """A loopback server answering every request with ``respond(number, received)`` (number
    counts requests from 1). Use as a context manager; ``base_url`` is
    ``http://127.0.0.1:<port>`` plus ``prefix``."""

    def __init__(self, respond: Respond, prefix: str = "") -> None:
        self.respond = respond
        self._prefix = prefix
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self.received: list[Received] = []
        self._httpd = QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self._prefix}"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _record(self, record: Received) -> int:
        with self._lock:
            self.received.append(record)
            return len(self.received)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
                headers = {k.lower(): v for k, v in self.headers.items()}
                record = Received(self.command, self.path, headers, body, raw)
                self._send(server.respond(server._record(record), record))

            def _send(self, reply: Reply) -> None:
                if reply.delay_s and server.stopping.wait(reply.delay_s):
                    return
                if reply.disconnect:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                payload = reply.encoded()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload) + reply.short_by))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                if reply.short_by:
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)

        return Handler


class ScriptedServer(LoopbackServer):
    """Answers requests the router ``accepts(method, path)`` from a reply script; other
    requests get ``fixed[(method, path)]`` if given, else a 404 JSON error (and are still
    recorded)."""

    def __init__(
        self,
        replies: Iterable[Reply],
        accepts: Router,
        prefix: str = "",
        fixed: Mapping[tuple[str, str], Reply] | None = None,
        rules: Rules | None = None,
    ) -> None:
        self._replies = list(replies)
        if not self._replies:
            raise ValueError("a ScriptedServer needs at least one Reply")
        self._accepts = accepts
        self._fixed = dict(fixed or {})
        self._used = 0
        self.rules = rules
        self.rejected: list[Reply] = []
        super().__init__(self._answer, prefix)

    def _answer(self, number: int, record: Received) -> Reply:
        fixed = self._fixed.get((record.method, record.path))
        if fixed is not None:
            return fixed
        if not self._accepts(record.method, record.path):
            return Reply(404, {"error": {"message": f"no route {record.path}"}})
        with self._lock:
            rejection = self.rules.check(record) if self.rules is not None else None
            if rejection is not None:
                self.rejected.append(rejection)
                return rejection
            index, self._used = self._used, self._used + 1
            reply = self._replies[min(index, len(self._replies) - 1)]
            if self.rules is not None:
                self.rules.sent(reply)
        return reply

    def __enter__(self) -> ScriptedServer:
        super().__enter__()
        return self


def closed_port() -> int:
    """A loopback port with nothing listening on it (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def truncated(body: Mapping[str, Any]) -> str:
    """The JSON text of ``body`` cut off in the middle, sent with a matching length."""
    text = json.dumps(body)
    return text[: len(text) // 2]
