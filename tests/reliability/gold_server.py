"""A deterministic OpenAI-compatible loopback server that answers from the question.

Every InfraNode question maps to one fixed answer (the gold call, a wrong tool, wrong
arguments or prose, chosen by a hash of the question), so a run's results depend only on which
items were asked, never on the order, timing or number of processes. ``hook`` sees every
request before it is answered (crash tests kill the client from there); ``fault`` may replace
the answer with a misbehaviour (fault-matrix tests).
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tooleval.suites import load_suite


@dataclass(frozen=True)
class Fault:
    """A misbehaviour: an HTTP answer, a delay, a dropped connection or a cut-off body."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    disconnect: bool = False
    short_by: int = 0  # announce this many bytes more than are sent, then close

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


def completion(message: Mapping[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-gold",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gold",
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def answer_for(question: str, gold: Mapping[str, Any]) -> str:
    """The fixed answer text for a question: mostly right, sometimes wrong in one of 3 ways."""
    kind = hashlib.sha256(question.encode()).digest()[0] % 8
    if kind == 5:
        return json.dumps({"name": "get_city_overview", "arguments": gold["arguments"]})
    if kind == 6:
        return json.dumps({"name": gold["name"], "arguments": {"slug": "atlantis"}})
    if kind == 7:
        return "Das weiß ich leider nicht."
    return json.dumps({"name": gold["name"], "arguments": gold["arguments"]})


def gold_answers() -> dict[str, str]:
    """question -> answer text for every InfraNode task."""
    return {
        task.question: answer_for(task.question, task.gold.to_json())
        for task in load_suite("infranode").tasks
    }


class QuietServer(ThreadingHTTPServer):
    """Connections a killed client left behind end in broken pipes; that is expected here."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


Hook = Callable[[int, str], None]
FaultRule = Callable[[int, str], Fault | None]


class GoldServer:
    """Use as a context manager; ``base_url`` ends in ``/v1``. ``requests`` counts answers
    asked for; ``questions`` lists the user message of every request, in arrival order."""

    def __init__(self, hook: Hook | None = None, fault: FaultRule | None = None) -> None:
        self.answers = gold_answers()
        self.hook = hook
        self.fault = fault
        self.lock = threading.Lock()
        self.questions: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.bodies: list[bytes] = []
        self.stopping = threading.Event()
        self._httpd = QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        with self.lock:
            return len(self.questions)

    def __enter__(self) -> GoldServer:
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

    def _register(self, raw: bytes, headers: dict[str, str]) -> tuple[int, str]:
        try:
            body = json.loads(raw)
            question = str(body["messages"][-1]["content"])
        except (ValueError, KeyError, IndexError, TypeError):
            question = ""
        with self.lock:
            self.questions.append(question)
            self.headers.append(headers)
            self.bodies.append(raw)
            return len(self.questions), question

    def respond(self, number: int, question: str) -> Fault:
        fault = self.fault(number, question) if self.fault else None
        if fault is not None:
            return fault
        text = self.answers.get(question, "unbekannte Frage")
        return Fault(body=completion({"role": "assistant", "content": text}))

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                number, question = server._register(raw, headers)
                if server.hook is not None:
                    server.hook(number, question)
                self._send(server.respond(number, question))

            def _send(self, fault: Fault) -> None:
                if fault.delay_s and server.stopping.wait(fault.delay_s):
                    return
                if fault.disconnect:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                payload = fault.payload()
                self.send_response(fault.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload) + fault.short_by))
                for name, value in fault.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                if fault.short_by:
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)

        return Handler
