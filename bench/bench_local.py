"""Benchmark the embedded local model, free and constrained decoding side by side.

1. End to end: the README's main job, ``tooleval run`` (constrained, the default) and
   ``tooleval run --decoding free``, each as its own process (start-up, model load, 91 items,
   results file), timed by wall clock and CPU; their scores come from the results files.
2. In process: one loaded engine runs the whole suite batched, free and constrained, with the
   phases (shared prefix, suffixes, decode) and the time spent computing llguidance masks; then
   a sample of items is regenerated naively (one at a time, from scratch) for both modes and
   compared token for token with the batched output.

Load averages are recorded before and after every timed step: the machine is shared, so rerun
this on a quiet machine before quoting a figure. Writes its section of docs/performance.md
(between the bench:local markers).

Usage: uv run python bench/bench_local.py [--limit N] [--naive-sample K] [--rounds R]
                                          [--skip-cli] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import ROOT, load_text, machine, now_utc, write_section

COMMAND = "uv run python bench/bench_local.py"
MODES = ("constrained", "free")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(decoding: str, limit: int, out: Path) -> dict[str, Any]:
    """One ``tooleval run`` process; wall, CPU, load and the scores it wrote."""
    cmd = [sys.executable, "-m", "tooleval.cli", "run", "--output", str(out)]
    if decoding == "free":
        cmd += ["--decoding", "free"]
    if limit:
        cmd += ["--limit", str(limit)]
    load_before, cpu0, t0 = load_text(), children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    document = json.loads(out.read_text(encoding="utf-8"))
    return {
        "decoding": decoding,
        "wall": wall,
        "cpu": cpu,
        "load": f"{load_before} → {load_text()}",
        "setup": document["setup"],
        "metrics": document["metrics"],
        "tokens": sum(i["usage"]["output_tokens"] or 0 for i in document["items"]),
        "length": sum(1 for i in document["items"] if i["finish_reason"] == "length"),
        "items": document["counts"]["answered"],
    }


def cli_rounds(rounds: int, limit: int) -> list[dict[str, Any]]:
    """Main job in both modes, alternating which goes first from round to round."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            order = MODES if r % 2 == 0 else MODES[::-1]
            for decoding in order:
                out = Path(tmp) / f"{decoding}-{r}.json"
                results.append(run_cli(decoding, limit, out))
                print(f"cli {decoding}: {results[-1]['wall']:.1f} s", file=sys.stderr)
    return results


class MaskTimer:
    """Wraps TokenGuide.restrict to add up the time llguidance mask computation takes."""

    def __init__(self) -> None:
        from tooleval.local import constrain

        self.seconds = 0.0
        self._original = constrain.TokenGuide.restrict
        timer = self

        def timed(guide: Any, logits: Any, sequences: Any) -> None:
            start = time.perf_counter()
            timer._original(guide, logits, sequences)
            timer.seconds += time.perf_counter() - start

        constrain.TokenGuide.restrict = timed  # type: ignore[method-assign]


def in_process(limit: int, naive_sample: int, max_new: int) -> dict[str, Any]:
    from tooleval.local.blas import blas_description
    from tooleval.local.constrain import compile_tools
    from tooleval.local.engine import Engine
    from tooleval.local.tokenizer import ChatTokenizer
    from tooleval.suites import load_suite

    t0 = time.perf_counter()
    engine = Engine.load()
    tok = ChatTokenizer(engine.model.tokenizer)
    load_s = time.perf_counter() - t0
    suite = load_suite("infranode")
    tasks = suite.tasks[:limit] if limit else suite.tasks
    stops = {tok.im_end_id, tok.eos_id}
    t1 = time.perf_counter()
    grammar = compile_tools(tok.to_json(), stops, suite.tools)
    compile_s = time.perf_counter() - t1
    prompts = [
        tok.encode(engine.model.chat_template.render([(m.role, m.content or "") for m in conv]))
        for conv in (suite.messages(t, "prompt") for t in tasks)
    ]
    timer = MaskTimer()
    guides: dict[str, Callable[[int], Any] | None] = {"free": None, "constrained": grammar.guide}
    runs: dict[str, Any] = {}
    for mode in MODES:
        engine._last_prefix = None  # each mode pays the shared prefix once
        timer.seconds = 0.0
        c0, w0, load_before = time.process_time(), time.perf_counter(), load_text()
        result = engine.generate(prompts, max_new, stops, guides=guides[mode])
        runs[mode] = {
            "wall": time.perf_counter() - w0,
            "cpu": time.process_time() - c0,
            "phases": result.seconds,
            "mask_s": timer.seconds,
            "tokens": sum(map(len, result.tokens)),
            "stopped": result.finish_reasons.count("stop"),
            "load": f"{load_before} → {load_text()}",
            "result": result.tokens,
        }
        print(f"engine {mode}: {runs[mode]['wall']:.1f} s", file=sys.stderr)
    step = max(1, len(prompts) // max(1, naive_sample))
    sample = list(range(0, len(prompts), step))[:naive_sample]
    for mode in MODES:
        w0 = time.perf_counter()
        same = sum(
            engine.generate_naive(prompts[i], max_new, stops, guides=guides[mode])
            == runs[mode]["result"][i]
            for i in sample
        )
        runs[mode]["naive_same"] = same
        runs[mode]["naive_s"] = (time.perf_counter() - w0) / max(1, len(sample))
    return {
        "items": len(prompts),
        "prompt_tokens_mean": sum(map(len, prompts)) / len(prompts),
        "load_s": load_s,
        "compile_s": compile_s,
        "blas": blas_description(),
        "workers": engine.workers,
        "naive_n": len(sample),
        "max_new": max_new,
        "runs": runs,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def render_cli(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["(end-to-end runs skipped: --skip-cli)"]
    lines = [
        "| `tooleval run` | setup | wall | CPU | load avg before → after | new tokens | cut at "
        "max tokens | parsed | tool_match | call_match |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = r["metrics"]
        flag = "" if r["decoding"] == "constrained" else " --decoding free"
        lines.append(
            f"| `tooleval run{flag}` | {r['setup']} | **{r['wall']:.1f} s** | {r['cpu']:.1f} s "
            f"| {r['load']} | {r['tokens']} | {r['length']}/{r['items']} | {pct(m['parsed'])} "
            f"| {pct(m['tool_match'])} | {pct(m['call_match'])} |"
        )
    return lines


def render_engine(e: dict[str, Any]) -> list[str]:
    lines = [
        "| engine, whole suite batched | wall | CPU | prefix / suffixes / decode | "
        "llguidance masks | new tokens | stopped | batched == naive | naive per item |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        r = e["runs"][mode]
        ph = r["phases"]
        phases = " / ".join(f"{ph[k]:.1f}" for k in ("prefix", "suffix", "decode"))
        mask = f"{r['mask_s']:.2f} s" if mode == "constrained" else "–"
        lines.append(
            f"| {mode} | **{r['wall']:.1f} s** | {r['cpu']:.1f} s | {phases} s | {mask} "
            f"| {r['tokens']} | {r['stopped']}/{e['items']} | {r['naive_same']}/{e['naive_n']} "
            f"| {r['naive_s']:.1f} s |"
        )
    return lines


def render(cli: list[dict[str, Any]], e: dict[str, Any]) -> str:
    return "\n".join(
        [
            "## Embedded model (local backend): free and constrained decoding",
            "",
            f"Measured {now_utc()} with `{COMMAND}`.",
            f"Machine: {machine()}; numpy BLAS: {e['blas']}; {e['workers']} worker thread(s). "
            f"Load average at the end: {load_text()}. The machine is shared with other jobs, "
            "so wall times are noisy (each row gives the load average around it); CPU time is "
            "the steadier measure. Rerun the command on a quiet machine to refresh.",
            "",
            f"Prompts: the InfraNode suite in prompt mode, {e['items']} items, mean "
            f"{e['prompt_tokens_mean']:.0f} prompt tokens; greedy, at most {e['max_new']} new "
            "tokens. *Constrained* = llguidance restricts every step to a valid call of the "
            "suite's tools (tooleval.local.constrain).",
            "",
            "End to end (process start, model load, all items, results file; goal ≤ 90 s):",
            "",
            *render_cli(cli),
            "",
            f"In one process (model load {e['load_s']:.1f} s, grammar compile "
            f"{e['compile_s']:.2f} s, peak RSS {e['rss_mib']:.0f} MiB):",
            "",
            *render_engine(e),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N items")
    parser.add_argument("--naive-sample", type=int, default=2, help="items to rerun naively")
    parser.add_argument("--rounds", type=int, default=1, help="end-to-end rounds per mode")
    parser.add_argument("--max-new", type=int, default=160)
    parser.add_argument("--skip-cli", action="store_true", help="no end-to-end runs")
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args(argv)
    os.environ.setdefault("NO_COLOR", "1")
    cli = [] if args.skip_cli else cli_rounds(args.rounds, args.limit)
    engine = in_process(args.limit, args.naive_sample, args.max_new)
    section = render(cli, engine)
    print(section)
    if not args.no_write:
        write_section("local", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
