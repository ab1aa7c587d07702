"""Rate limit accuracy: ``tooleval run --rpm R`` against the loopback server.

The server (bench/server.py) answers after a fixed latency and records every request's
arrival time. From those times: the overall achieved rate (requests - 1 over the time between
the first and the last arrival, per minute), the most requests in any sliding 60 s window, and
the most in any sliding 10 s window (scaled to a minute, a stricter check of even spacing).
Goal: achieved rate within [0.95 R, R], never above R in any window.
Writes the ``bench:rpm`` section of docs/performance.md.

Usage: uv run python bench/bench_rpm.py [--rpm 600] [--limit 40] [--repeats 10] [--rounds 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

from common import LoopbackServer, check, header, load_text, timed_run, write_section

COMMAND = "uv run python bench/bench_rpm.py"


def max_in_window(times: Sequence[float], window: float) -> int:
    """The most arrivals in any half-open window [t, t + window) starting at an arrival."""
    ordered = sorted(times)
    return max(
        (bisect_right(ordered, t + window - 1e-9) - i for i, t in enumerate(ordered)), default=0
    )


def achieved_rpm(times: Sequence[float]) -> float:
    ordered = sorted(times)
    if len(ordered) < 2:
        return float("nan")
    return (len(ordered) - 1) / (ordered[-1] - ordered[0]) * 60.0


def one_run(server: LoopbackServer, args: argparse.Namespace, folder: Path) -> dict[str, float]:
    exe = Path(sys.executable).with_name("tooleval")
    argv = [
        str(exe), "run", "--backend", "openai", "--base-url", f"{server.url}/v1",
        "--model", "bench", "--limit", str(args.limit), "--repeats", str(args.repeats),
        "--concurrency", str(args.concurrency), "--rpm", str(args.rpm),
        "--output", str(folder / f"rpm-{len(list(folder.iterdir()))}.json"),
    ]  # fmt: skip
    server.reset()
    result = check(timed_run(argv), "tooleval run --rpm")
    times = sorted(server.arrivals())
    gaps = [b - a for a, b in pairwise(times)]
    stats = {
        "requests": float(len(times)),
        "rate": achieved_rpm(times),
        "max60": float(max_in_window(times, 60.0)),
        "max10x6": 6.0 * max_in_window(times, 10.0),
        "rate_after_first": achieved_rpm(times[1:]),
        "first_gap_ms": 1000 * gaps[0] if gaps else float("nan"),
        "min_gap_ms": 1000 * min(gaps, default=0.0),
        "wall": result.wall_s,
        "cpu": result.cpu_s,
        "rss": result.peak_rss_mib,
    }
    print(" ".join(f"{k} {v:.2f}" for k, v in stats.items()), f"load {load_text()}", flush=True)
    return stats


def render(args: argparse.Namespace, runs: list[dict[str, float]]) -> str:
    r = args.rpm
    ok = all(0.95 * r <= s["rate"] <= r and s["max60"] <= r for s in runs)
    lines = header("Rate limit (`--rpm`)", COMMAND, compared=False)
    lines += [
        f"`tooleval run --rpm {r:g}` over {args.limit} tasks × {args.repeats} repeats "
        f"= {args.limit * args.repeats} requests, concurrency {args.concurrency}, loopback "
        f"server latency {args.latency_ms:.0f} ms. Rates come from the server's arrival "
        "timestamps: achieved rate = (requests − 1) / (last − first arrival); also without "
        "the first request, and the most arrivals in any 60 s and any 10 s window (× 6, a "
        "stricter check of even spacing, for information). Goal: achieved rate within "
        f"[0.95 R, R], at most R in any 60 s window → **{'met' if ok else 'NOT met'}**.",
        "",
        "| run | requests | achieved rate | without the 1st | max in 60 s | max in 10 s × 6 "
        "| 1st gap / min gap | wall | CPU | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(runs, 1):
        lines.append(
            f"| {i} | {s['requests']:.0f} | **{s['rate']:.1f}/min** ({s['rate'] / r:.4f} R) | "
            f"{s['rate_after_first']:.1f}/min | {s['max60']:.0f} | {s['max10x6']:.0f} | "
            f"{s['first_gap_ms']:.0f} / {s['min_gap_ms']:.1f} ms (slot {60000 / r:.0f} ms) | "
            f"{s['wall']:.1f} s | {s['cpu']:.1f} s | {s['rss']:.0f} MiB |"
        )
    if args.limit * args.repeats < r:
        lines += [
            "",
            f"The run is shorter than a minute, so every 60 s window holds all requests (fewer "
            f"than R = {r:g}).",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rpm", type=float, default=600.0)
    parser.add_argument("--limit", type=int, default=40, help="tasks (× --repeats = requests)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(args.latency_ms) as server:
        runs = [one_run(server, args, Path(tmp)) for _ in range(args.rounds)]
    section = render(args, runs)
    print(section)
    if not args.no_write:
        write_section("rpm", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
