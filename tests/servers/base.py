"""The scripted loopback HTTP server shared by the provider-specific servers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``body`` is sent as given when it is bytes or str, JSON-encoded otherwise. ``delay_s``
    waits before answering (interrupted when the server stops). ``disconnect`` closes the
    connection without any response.
    """

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    disconnect: bool = False

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body, ensure_ascii=False).encode()


@dataclass(frozen=True)
class Received:
    """One request as the server saw it. Header names are lower-cased."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


Router = Callable[[str, str], bool]


class ScriptedServer:
    """A loopback server answering ``accepts(method, path)`` requests from a reply script.

    Use as a context manager; ``base_url`` is ``http://127.0.0.1:<port>`` plus ``prefix``.
    Requests the router rejects get a 404 JSON error and are still recorded.
    """

    def __init__(self, replies: Iterable[Reply], accepts: Router, prefix: str = "") -> None:
        self._replies = list(replies)
        if not self._replies:
            raise ValueError("a ScriptedServer needs at least one Reply")
        self._accepts = accepts
        self._prefix = prefix
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.received: list[Received] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self._prefix}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next_reply(self, record: Received) -> Reply:
        with self._lock:
            index = len(self.received)
            self.received.append(record)
        return self._replies[min(index, len(self._replies) - 1)]

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
                record = Received(self.command, self.path, headers, body)
                if not server._accepts(self.command, self.path):
                    with server._lock:
                        server.received.append(record)
                    self._send(Reply(404, {"error": {"message": f"no route {self.path}"}}))
                    return
                self._send(server._next_reply(record))

            def _send(self, reply: Reply) -> None:
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                if reply.disconnect:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                payload = reply.encoded()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler


def closed_port() -> int:
    """A loopback port with nothing listening on it (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def truncated(body: Mapping[str, Any]) -> str:
    """The JSON text of ``body`` cut off in the middle, sent with a matching length."""
    text = json.dumps(body)
    return text[: len(text) // 2]
