"""A loopback TCP server that answers HTTP by hand, for what ``LoopbackServer`` cannot do:
drip an answer byte by byte (headers or body), stream a huge or compressed body, send raw
bytes. It reads each request (headers and ``Content-Length`` body), then hands the socket to
``behave(number, socket)``; it records how many requests came and how many body bytes each
answer got out before the client hung up.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import zlib
from collections.abc import Callable, Iterator
from types import TracebackType

Behave = Callable[[int, socket.socket], None]


def read_request(conn: socket.socket) -> bytes:
    """One request's bytes (headers and body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


class RawServer:
    """Use as a context manager; ``base_url`` is ``http://127.0.0.1:<port>/v1``."""

    def __init__(self, behave: Behave) -> None:
        self.behave = behave
        self.requests: list[bytes] = []
        self.sent: list[int] = []  # body bytes each answer got out
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.05)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._sock.close()

    def pause(self, seconds: float) -> bool:
        """Wait ``seconds``; True when the server is stopping."""
        return self._stop.wait(seconds)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            request = read_request(conn)
            if not request:
                return
            self.requests.append(request)
            self.sent.append(0)
            number = len(self.requests)
            with contextlib.suppress(OSError):  # the client hung up: what many tests wait for
                self.behave(number, conn)


def head(status: int = 200, length: int | None = None, **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status} X", "Content-Type: application/json", "Connection: close"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def dripping(server: RawServer, body: bytes, gap_s: float, in_headers: bool = False) -> Behave:
    """Send ``body`` one byte every ``gap_s`` (the headers too, with ``in_headers``) until the
    client hangs up or the server stops; ``server.sent`` counts the bytes dripped."""

    def behave(number: int, conn: socket.socket) -> None:
        whole = head(length=len(body)) + body
        start = 0 if in_headers else len(whole) - len(body)
        conn.sendall(whole[:start])
        for index in range(start, len(whole)):
            if server.pause(gap_s):
                return
            conn.sendall(whole[index : index + 1])
            server.sent[number - 1] += 1

    return behave


def gzip_bomb(decoded_bytes: int) -> bytes:
    """``decoded_bytes`` zeros, gzip-compressed (about a thousand times smaller)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(2**20)
    parts = [packer.compress(block) for _ in range(decoded_bytes // len(block))]
    return b"".join(parts) + packer.flush()


def streaming(server: RawServer, chunks: Callable[[], Iterator[bytes]], **headers: str) -> Behave:
    """Send the headers, then every chunk (no length: the body ends when the connection
    closes); counts the body bytes sent."""

    def behave(number: int, conn: socket.socket) -> None:
        conn.sendall(head(**headers))
        for chunk in chunks():
            conn.sendall(chunk)
            server.sent[number - 1] += len(chunk)

    return behave
