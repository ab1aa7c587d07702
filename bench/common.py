"""Shared helpers for the benchmarks: machine description, timed subprocesses, docs sections.

Each benchmark owns one section of docs/performance.md, delimited by
``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->``; ``write_section`` replaces only that
section (or appends it) and writes the file atomically.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
BENCH = Path(__file__).resolve().parent


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> str:
    """One line: CPUs, CPU model, memory, Python."""
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f", {int(line.split()[1]) / 1024 / 1024:.0f} GiB RAM"
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({cpu_model()}){mem}, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}"
    )


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f}, {five:.1f}, {fifteen:.1f}"


def now_utc() -> str:
    return f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC"


def header(
    title: str, command: str, loads: Sequence[str] = (), *, compared: bool = True
) -> list[str]:
    """The first lines of a section: title, date, command, machine, load averages."""
    seen = f" 1-minute load average after each step: {'; '.join(loads)}." if loads else ""
    how = (
        "compared commands run alternately and medians are reported."
        if compared
        else "CPU time is the steadier measure."
    )
    return [
        f"## {title}",
        "",
        f"Measured {now_utc()} with `{command}`.",
        f"Machine: {machine()}. Load average at the end: {load_text()}.{seen} "
        f"The machine is shared with other jobs, so wall times are noisy; {how}",
        "",
    ]


def write_section(name: str, body: str, doc: Path = DOC) -> None:
    """Replace (or append) the ``bench:NAME`` section of ``doc``, atomically."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    section = f"{start}\n{body.strip()}\n\n{end}"
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    tmp = doc.with_suffix(".md.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, doc)


@dataclass(frozen=True)
class Timed:
    """One finished subprocess: wall and CPU seconds, peak RSS, exit code, output tail."""

    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    returncode: int
    output: str


def timed_run(argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path = ROOT) -> Timed:
    """Run ``argv``, measuring its wall time, user+system CPU and peak RSS (via wait4).

    The rusage of wait4 covers the child and every descendant it waited for; ru_maxrss is
    the largest of them.
    """
    log = Path(tempfile.gettempdir()) / f"bench-{os.getpid()}-{time.time_ns()}.log"
    with log.open("w+b") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv), stdout=sink, stderr=subprocess.STDOUT, env=dict(env or os.environ), cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        sink.seek(0)
        output = sink.read().decode("utf-8", "replace")
    log.unlink(missing_ok=True)
    return Timed(
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mib=usage.ru_maxrss / 1024.0,
        returncode=proc.returncode,
        output=output,
    )


def check(result: Timed, what: str) -> Timed:
    if result.returncode != 0:
        sys.stderr.write(result.output[-4000:])
        raise SystemExit(f"{what} failed with exit code {result.returncode}")
    return result


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt_runs(values: Sequence[float], unit: str = "s") -> str:
    return ", ".join(f"{v:.2f}" for v in values) + f" {unit}"


def python_of_project() -> str:
    """The interpreter running the benchmark (the project's venv under ``uv run``)."""
    return sys.executable


class LoopbackServer:
    """bench/server.py in its own process (so it never shares the GIL with the client)."""

    def __init__(self, latency_ms: float) -> None:
        self.latency_s = latency_ms / 1000.0
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(BENCH / "server.py"),
                "--port",
                "0",
                "--latency-ms",
                str(latency_ms),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}"

    def _call(self, method: str, path: str) -> bytes:
        import urllib.request

        request = urllib.request.Request(
            self.url + path, method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return bytes(response.read())

    def reset(self) -> None:
        self._call("POST", "/reset")

    def arrivals(self) -> list[float]:
        import json

        return [float(t) for t in json.loads(self._call("GET", "/stats"))["arrivals"]]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
