"""A real HTTP server around ``InfraNodeReplica`` (stdlib ``ThreadingHTTPServer``).

Robust under load and abuse: a listen backlog of ``BACKLOG`` (the standard library's 5 made
200 concurrent connections stall for seconds), keep-alive connections closed after
``IDLE_TIMEOUT_S`` without a request, and every request the replica cannot answer (a bug)
answered with the 500 envelope instead of a dropped connection.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

from tooleval.suites.infranode.api import errors
from tooleval.suites.infranode.api.envelope import ApiResponse, error
from tooleval.suites.infranode.api.handler import InfraNodeReplica, split_request

JSON_TYPE = "application/json; charset=utf-8"
BACKLOG = 1024
IDLE_TIMEOUT_S = 30.0


def encode_body(response: ApiResponse) -> bytes:
    return json.dumps(response.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class ReplicaRequestHandler(BaseHTTPRequestHandler):
    """GET/HEAD answer from the replica; other methods get the 405 envelope."""

    replica: ClassVar[InfraNodeReplica] = InfraNodeReplica()
    server_version = "InfraNodeReplica/1.0"
    protocol_version = "HTTP/1.1"

    timeout = IDLE_TIMEOUT_S  # an idle keep-alive connection is closed after this

    def do_GET(self) -> None:
        self._answer(self._replica_answer(), with_body=True)

    def do_HEAD(self) -> None:
        self._answer(self._replica_answer(), with_body=False)

    def _replica_answer(self) -> ApiResponse:
        """The replica's answer; the 500 envelope if it fails (it never should)."""
        try:
            return self.replica.get(self.path)
        except Exception as exc:  # a bug must not cost the client its answer
            request, _ = split_request("/", None)
            message = f"Interner Fehler ({type(exc).__name__})."
            return error(request, 500, "internal_error", message, None)

    def _not_allowed(self) -> None:
        try:
            request, _ = split_request(self.path, None)
        except ValueError:
            request, _ = split_request("/", None)
        self._answer(
            errors.method_not_allowed(request, self.command),
            with_body=True,
            extra={"Allow": "GET, HEAD"},
        )

    do_POST = do_PUT = do_PATCH = do_DELETE = _not_allowed

    def _answer(
        self, response: ApiResponse, *, with_body: bool, extra: dict[str, str] | None = None
    ) -> None:
        body = encode_body(response)
        self.send_response(response.status)
        self.send_header("Content-Type", JSON_TYPE)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet by default; the replica is used in tests and benchmarks."""


class ReplicaServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = BACKLOG

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away mid-answer is not worth a traceback on stderr."""
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def make_server(
    host: str, port: int, idle_timeout_s: float = IDLE_TIMEOUT_S
) -> ThreadingHTTPServer:
    """The replica's server on ``host:port`` (0: any free port); idle keep-alive connections
    are closed after ``idle_timeout_s``."""
    handler = type("Handler", (ReplicaRequestHandler,), {"timeout": idle_timeout_s})
    return ReplicaServer((host, port), handler)


def serve(host: str = "127.0.0.1", port: int = 8787) -> None:
    """Serve the replica until interrupted."""
    with make_server(host, port) as server:
        print(f"InfraNode replica on http://{host}:{server.server_address[1]}", flush=True)
        with suppress(KeyboardInterrupt):
            server.serve_forever()


@contextmanager
def running_server(host: str = "127.0.0.1") -> Iterator[str]:
    """Start the replica on an ephemeral port in a thread; yield its base URL."""
    server = make_server(host, 0)
    thread = threading.Thread(target=server.serve_forever, name="infranode-replica", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
