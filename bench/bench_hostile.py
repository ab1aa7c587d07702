"""Hostile servers, side by side: what the guards cost and what they save.

1. A dead endpoint: ``tooleval run`` against a port where nothing listens (default retries
   and workers), with the early stop and with it switched off (``DEAD_AFTER`` raised), both
   in the same run of this script.
2. A server that drips its answer one byte at a time, every gap far below the timeout: the
   guarded transport (the whole-request deadline of ``--timeout``) against a plain httpx
   client with the same timeout (which bounds each gap only).
3. ``tooleval mcp`` over stdio asked for a tool with a 1 MB argument.

Writes the ``bench:hostile`` section of docs/performance.md.

Usage: uv run python bench/bench_hostile.py [--limit 12] [--drip-bytes 300] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import header, timed_run, write_section

COMMAND = "uv run python bench/bench_hostile.py"
GAP_S = 0.05
TIMEOUT_S = 2.0


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dead_endpoint(limit: int, early_stop: bool, folder: Path) -> tuple[float, int]:
    """(wall seconds, items recorded) of a run against nothing."""
    out = folder / f"dead-{early_stop}.json"
    argv = ["run", "--backend", "openai", "--base-url", f"http://127.0.0.1:{closed_port()}/v1",
            "--model", "m", "--limit", str(limit), "--output", str(out)]  # fmt: skip
    patch = "" if early_stop else "r.DEAD_AFTER = 10**9; "
    code = (f"import tooleval.runner.requests as r; {patch}"
            f"from tooleval.cli import main; raise SystemExit(main({argv!r}))")  # fmt: skip
    result = timed_run([sys.executable, "-c", code])
    return result.wall_s, len(json.loads(out.read_text())["items"])


class Dripper:
    """Answers every request with a JSON body of ``size`` bytes, one byte per ``GAP_S``."""

    def __init__(self, size: int) -> None:
        self.body = json.dumps({"padding": "x" * (size - 15)}).encode()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stop.is_set():
            conn, _ = self.sock.accept()
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(self.body)}\r\n"
            conn.sendall((head + "Content-Type: application/json\r\n\r\n").encode())
            try:
                for index in range(len(self.body)):
                    if self.stop.wait(GAP_S):
                        return
                    conn.sendall(self.body[index : index + 1])
            except OSError:
                return  # the client gave up


def drip(size: int) -> tuple[float, float, str]:
    """(guarded seconds, plain httpx seconds, the guarded error class)."""
    import httpx

    from tooleval.providers.base import ProviderError
    from tooleval.providers.openai_compat import OpenAICompatProvider
    from tooleval.records import GenerationRequest, Message

    server = Dripper(size)
    request = GenerationRequest(messages=(Message("user", "x"),), max_tokens=8)
    provider = OpenAICompatProvider("m", base_url=server.url, timeout_s=TIMEOUT_S)
    start = time.perf_counter()
    try:
        provider.generate(request)
        kind = "answered"
    except ProviderError as error:
        kind = error.error_class.value
    guarded = time.perf_counter() - start
    start = time.perf_counter()
    with httpx.Client(timeout=TIMEOUT_S) as client:
        client.post(f"{server.url}/chat/completions", json={}).read()
    plain = time.perf_counter() - start
    server.stop.set()
    return guarded, plain, kind


def mcp_large_argument() -> float:
    """Seconds from sending a 1 MB slug to ``tooleval mcp`` to its reply."""
    process = subprocess.Popen([sys.executable, "-m", "tooleval.cli", "mcp"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "1"}}}  # fmt: skip
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "weather", "arguments": {"slug": "a" * 2**20}}}  # fmt: skip
    process.stdin.write(json.dumps(init).encode() + b"\n")
    process.stdin.flush()
    process.stdout.readline()
    start = time.perf_counter()
    process.stdin.write(json.dumps(call).encode() + b"\n")
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    elapsed = time.perf_counter() - start
    process.kill()
    process.wait()
    assert reply["result"]["isError"] is True
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--drip-bytes", type=int, default=300)
    parser.add_argument("--no-write", action="store_true", help="leave docs/performance.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stop_s, stop_items = dead_endpoint(args.limit, True, Path(tmp))
        full_s, full_items = dead_endpoint(args.limit, False, Path(tmp))
    guarded, plain, kind = drip(args.drip_bytes)
    mcp_s = mcp_large_argument()
    drip_s = args.drip_bytes * GAP_S
    lines = [
        *header("Hostile servers", COMMAND, compared=False),
        "| attack | without the guard | with it |",
        "|---|---|---|",
        f"| nothing listening, `--limit {args.limit}`, default retries (4) and workers (4) "
        f"| {full_s:.1f} s, {full_items} items failed one by one "
        f"| {stop_s:.1f} s, stopped after {stop_items} items (`unreachable`) |",
        f"| {args.drip_bytes}-byte answer dripped one byte per {GAP_S * 1000:.0f} ms "
        f"({drip_s:.0f} s), timeout {TIMEOUT_S:.0f} s | plain httpx: {plain:.1f} s "
        f"(each gap is under the timeout) | {guarded:.1f} s, `{kind}` |",
        f"| `tooleval mcp`: a 1 MB slug | 36 s of CPU (reported in issue #14) "
        f"| {mcp_s * 1000:.0f} ms, a tool error |",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("hostile", text)


if __name__ == "__main__":
    main()
