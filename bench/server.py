"""A loopback OpenAI-compatible chat server for the benchmarks: fixed latency, valid tool call.

Every ``POST .../chat/completions`` is answered after ``--latency-ms`` with a chat completion
whose ``content`` is a JSON tool call. Requests are served concurrently (asyncio, HTTP/1.1
keep-alive), so any number of clients in flight wait L each, never in a queue.

``GET /stats`` returns the arrival times (Unix seconds) of all completions since the last
``POST /reset``. On start the server prints its port on stdout (``--port 0`` picks one).

Usage: python bench/server.py [--port 0] [--latency-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time

CALL = json.dumps({"name": "get_city_overview", "arguments": {"slug": "kiel"}})
MAX_HEADER = 65536


def completion_body(model: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": CALL},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 2700, "completion_tokens": 20, "total_tokens": 2720},
        }
    ).encode()


def http_response(status: str, body: bytes, keep_alive: bool) -> bytes:
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: {'keep-alive' if keep_alive else 'close'}"
        "\r\n\r\n"
    )
    return head.encode() + body


class Bench:
    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.arrivals: list[float] = []

    async def answer(self, method: str, path: str, body: bytes) -> tuple[str, bytes]:
        if method == "POST" and path.rstrip("/").endswith("/chat/completions"):
            self.arrivals.append(time.time())
            try:
                model = str(json.loads(body or b"{}").get("model", "bench"))
            except ValueError:
                return "400 Bad Request", b'{"error": {"message": "invalid JSON"}}'
            await asyncio.sleep(self.latency_s)
            return "200 OK", completion_body(model)
        if method == "GET" and path == "/stats":
            return "200 OK", json.dumps({"arrivals": self.arrivals}).encode()
        if method == "POST" and path == "/reset":
            self.arrivals = []
            return "200 OK", b"{}"
        return "404 Not Found", b'{"error": {"message": "not found"}}'

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = [*lines[0].split(" ", 2), "", ""][:3]
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (line.partition(":") for line in lines[1:] if line)
                }
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                keep = headers.get("connection", "").lower() != "close"
                status, payload = await self.answer(method, path, body)
                writer.write(http_response(status, payload, keep))
                await writer.drain()
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()


async def serve(port: int, latency_s: float) -> None:
    bench = Bench(latency_s)
    server = await asyncio.start_server(
        bench.handle, "127.0.0.1", port, limit=MAX_HEADER, backlog=1024
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, args.latency_ms / 1000.0))


if __name__ == "__main__":
    main()
