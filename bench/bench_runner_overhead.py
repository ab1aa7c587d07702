"""Runner overhead against the latency bound: tooleval vs lm-eval on a loopback server.

The server (bench/server.py, its own process) answers every chat completion after a fixed
latency L with a valid tool call. With N items and concurrency C no client can finish the
requests faster than the bound ceil(N / C) * L. Each round runs, alternately, tooleval and
lm-eval's ``local-chat-completions`` (``num_concurrent=C``) on the same server, the same
InfraNode items and the same N: 91 items once, and 91 items x 10 (tooleval ``--repeats 10``,
lm-eval a task that includes ours with ``repeats: 10``).

Two times per run: the *process wall* (start to exit, including interpreter start-up and
imports) and the *request span* (first request reaching the server to the last answer, from
the server's own timestamps). Medians over the rounds; CPU time and peak RSS per process.
Writes the ``bench:runner`` section of docs/performance.md.

Usage: uv run python bench/bench_runner_overhead.py [--rounds 3] [--latency-ms 200]
       [--concurrency 16] [--no-lm-eval] [--no-write]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from common import (
    ROOT,
    LoopbackServer,
    Timed,
    check,
    header,
    load_text,
    median,
    timed_run,
    write_section,
)

COMMAND = "uv run python bench/bench_runner_overhead.py"
LM_EVAL = ROOT / ".venv-lmeval" / "bin" / "lm_eval"
SUITE_ITEMS = 91
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


@dataclass
class Series:
    """All runs of one command: per-run process wall, request span, CPU, RSS, requests."""

    name: str
    items: int
    walls: list[float] = field(default_factory=list)
    spans: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)


def bound(items: int, concurrency: int, latency_s: float) -> float:
    return math.ceil(items / concurrency) * latency_s


def tooleval_argv(url: str, repeats: int, concurrency: int, output: Path) -> list[str]:
    exe = Path(sys.executable).with_name("tooleval")
    return [
        str(exe), "run", "--backend", "openai", "--base-url", f"{url}/v1", "--model", "bench",
        "--repeats", str(repeats), "--concurrency", str(concurrency), "--output", str(output),
    ]  # fmt: skip


def lm_eval_task(folder: Path, repeats: int) -> str:
    """The task name to run: ours, or one that includes ours with ``repeats`` copies."""
    if repeats == 1:
        return "infranode_tools_de"
    from tooleval.integrations.lm_eval import task_dir

    name = f"infranode_tools_de_x{repeats}"
    (folder / f"{name}.yaml").write_text(
        f"include: {Path(str(task_dir())) / 'infranode_tools_de.yaml'}\n"
        f"task: {name}\nrepeats: {repeats}\n",
        encoding="utf-8",
    )
    return name


def lm_eval_argv(
    url: str, repeats: int, concurrency: int, folder: Path, lm_eval: Path
) -> list[str]:
    from tooleval.integrations.lm_eval import task_dir

    include = folder if repeats > 1 else Path(str(task_dir()))
    args = (
        f"model=bench,base_url={url}/v1/chat/completions,num_concurrent={concurrency},"
        "tokenized_requests=False,eos_string=<|im_end|>,max_retries=1"
    )
    return [
        str(lm_eval), "--model", "local-chat-completions", "--model_args", args,
        "--apply_chat_template", "--include_path", str(include),
        "--tasks", lm_eval_task(folder, repeats), "--output_path", str(folder / "out"),
    ]  # fmt: skip


def measure(server: LoopbackServer, argv: Sequence[str], series: Series, what: str) -> None:
    server.reset()
    result: Timed = check(timed_run(argv, env={**os.environ, **OFFLINE}), what)
    arrivals = server.arrivals()
    span = (max(arrivals) - min(arrivals) + server.latency_s) if arrivals else float("nan")
    series.walls.append(result.wall_s)
    series.spans.append(span)
    series.cpus.append(result.cpu_s)
    series.rss.append(result.peak_rss_mib)
    series.requests.append(len(arrivals))
    print(
        f"{series.name:<22} wall {result.wall_s:6.2f} s  span {span:6.2f} s  "
        f"cpu {result.cpu_s:5.2f} s  rss {result.peak_rss_mib:5.0f} MiB  "
        f"requests {len(arrivals)}  load {load_text()}",
        flush=True,
    )


def plan(args: argparse.Namespace, folder: Path) -> list[tuple[Series, Callable[[str], list[str]]]]:
    """The compared commands, in the order each round runs them."""
    c = args.concurrency

    def tooleval_for(repeats: int) -> Callable[[str], list[str]]:
        return lambda url: tooleval_argv(url, repeats, c, folder / f"t-{time.time_ns()}.json")

    def lm_eval_for(repeats: int) -> Callable[[str], list[str]]:
        return lambda url: lm_eval_argv(url, repeats, c, folder, args.lm_eval_path)

    runs: list[tuple[Series, Callable[[str], list[str]]]] = []
    for repeats in (args.repeats, 1):
        n = SUITE_ITEMS * repeats
        runs.append((Series(f"tooleval N={n}", n), tooleval_for(repeats)))
        if args.lm_eval:
            runs.append((Series(f"lm-eval N={n}", n), lm_eval_for(repeats)))
    return runs


def run(args: argparse.Namespace) -> tuple[list[Series], list[str]]:
    loads: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(args.latency_ms) as server:
        runs = plan(args, Path(tmp))
        for index in range(args.rounds):
            print(f"round {index + 1}/{args.rounds}", flush=True)
            for series, argv in runs:
                measure(server, argv(server.url), series, series.name)
            loads.append(load_text().split(",")[0])
            time.sleep(0.5)
    return [series for series, _ in runs], loads


def row(s: Series, b: float) -> str:
    wall, span = median(s.walls), median(s.spans)
    return (
        f"| {s.name} | {b:.2f} s | **{span:.2f} s** ({span / b:.3f}×) | {wall:.2f} s "
        f"({wall / b:.2f}×) | {median(s.cpus):.2f} s | {max(s.rss):.0f} MiB | "
        f"{min(s.requests)}–{max(s.requests)} |"
    )


def ratios(series: list[Series]) -> list[str]:
    by_name = {s.name: s for s in series}
    lines = []
    for s in series:
        other = by_name.get(s.name.replace("tooleval", "lm-eval"))
        if s.name.startswith("tooleval") and other is not None and other is not s:
            lines.append(
                f"| N={s.items} | {median(s.spans) / median(other.spans):.3f} | "
                f"{median(s.walls) / median(other.walls):.3f} | "
                f"{median(s.cpus) / median(other.cpus):.3f} | {max(s.rss) / max(other.rss):.2f} |"
            )
    return lines


def render(args: argparse.Namespace, series: list[Series], loads: list[str]) -> str:
    lat = args.latency_ms / 1000.0
    lines = header("Runner overhead against the latency bound", COMMAND, loads)
    lines += [
        f"Loopback server `bench/server.py` (own process, asyncio, HTTP/1.1 keep-alive) answers "
        f"every request after L = {args.latency_ms:.0f} ms with a valid tool call. "
        f"Concurrency C = {args.concurrency} for both harnesses (`--concurrency` / "
        f"`num_concurrent`). Bound = ceil(N / C) · L. {args.rounds} rounds, commands alternated "
        "in each round; medians. *Span* = first request at the server to the last answer "
        "(server timestamps): the harness's request loop. *Process wall* adds interpreter "
        "start-up, imports and writing results. lm-eval runs the same 91 items; for N = 910 "
        f"it runs a task that includes ours with `repeats: {args.repeats}` (910 requests), "
        f"tooleval `--repeats {args.repeats}`.",
        "",
        "| command | bound | span (÷ bound) | process wall (÷ bound) | CPU | peak RSS | requests |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [row(s, bound(s.items, args.concurrency, lat)) for s in series]
    pairs = ratios(series)
    if pairs:
        lines += [
            "",
            "tooleval ÷ lm-eval (medians; below 1 means tooleval is faster or leaner):",
            "",
            "| items | span | process wall | CPU | peak RSS |",
            "|---|---|---|---|---|",
            *pairs,
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--lm-eval-path", type=Path, default=LM_EVAL)
    parser.add_argument("--no-lm-eval", dest="lm_eval", action="store_false")
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args(argv)
    if args.lm_eval and not args.lm_eval_path.exists():
        print(f"no lm_eval at {args.lm_eval_path}: run scripts/setup-lm-eval.sh; skipping it")
        args.lm_eval = False
    series, loads = run(args)
    section = render(args, series, loads)
    print(section)
    if not args.no_write:
        write_section("runner", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
