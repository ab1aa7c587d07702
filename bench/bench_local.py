"""Benchmark the embedded local model on the InfraNode suite prompts.

Runs the batched engine (shared prefix prefilled once, all items decoded together) over every
item, then naive per-item generation on a sample, and compares the outputs token for token.
Writes its section of docs/performance.md (between the bench:local markers).

Usage: uv run python bench/bench_local.py [--limit N] [--naive-sample K] [--no-write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import sys
import time
from pathlib import Path

from common import write_section

from tooleval.local.blas import blas_description
from tooleval.local.engine import Engine
from tooleval.local.tokenizer import ChatTokenizer, render_chatml

COMMAND = "uv run python bench/bench_local.py"


def suite_conversations() -> tuple[list[list[tuple[str, str]]], str]:
    """(role, content) conversations for every InfraNode item, and where they came from."""
    from tooleval.suites.infranode import load_tasks, load_tools
    from tooleval.suites.infranode.prompting import build_messages

    tools = load_tools()
    convs = []
    for task in load_tasks():
        messages = build_messages(task.question, tools)
        convs.append([(m.role, m.content or "") for m in messages])
    return (
        convs,
        "InfraNode suite via tooleval.suites.infranode.prompting.build_messages (prompt mode)",
    )


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(args: argparse.Namespace) -> dict[str, object]:
    t0 = time.perf_counter()
    engine = Engine.load(workers=args.workers)
    tok = ChatTokenizer(engine.model.tokenizer)
    load_s = time.perf_counter() - t0
    convs, source = suite_conversations()
    convs = convs[: args.limit] if args.limit else convs
    prompts = [tok.encode(render_chatml(c)) for c in convs]
    stop = {tok.im_end_id}
    t1, c1 = time.perf_counter(), time.process_time()
    result = engine.generate(prompts, args.max_new, stop)
    batch_s, batch_cpu = time.perf_counter() - t1, time.process_time() - c1
    rss_batch = peak_rss_mib()
    sample = list(range(0, len(prompts), max(1, len(prompts) // args.naive_sample)))
    sample = sample[: args.naive_sample]
    t2 = time.perf_counter()
    naive = {i: engine.generate_naive(prompts[i], args.max_new, stop) for i in sample}
    naive_s = time.perf_counter() - t2
    same = sum(naive[i] == result.tokens[i] for i in sample)
    return {
        "source": source,
        "items": len(prompts),
        "prompt_tokens_mean": sum(map(len, prompts)) / len(prompts),
        "prefix": result.prefix_length,
        "new_tokens": sum(map(len, result.tokens)),
        "max_new": args.max_new,
        "stopped": result.finish_reasons.count("stop"),
        "load_s": load_s,
        "batch_s": batch_s,
        "batch_cpu": batch_cpu,
        "phases": result.seconds,
        "workers": engine.workers,
        "rss_batch_mib": rss_batch,
        "naive_n": len(sample),
        "naive_s": naive_s,
        "naive_same": same,
        "rss_mib": peak_rss_mib(),
        "example": tok.decode(result.tokens[0])[:200],
    }


def render(r: dict[str, object]) -> str:
    items = int(str(r["items"]))
    naive_n = max(1, int(str(r["naive_n"])))
    naive_per = float(str(r["naive_s"])) / naive_n
    batch_s = float(str(r["batch_s"]))
    load = os.getloadavg()
    sec = r["phases"]
    assert isinstance(sec, dict)
    phases = " / ".join(f"{sec[k]:.1f} s" for k in ("prefix", "suffix", "decode"))
    return "\n".join(
        [
            "## Embedded model (local backend)",
            "",
            f"Measured {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC with `{COMMAND}`.",
            f"Machine: {os.cpu_count()} CPUs ({cpu_model()}), Python {platform.python_version()}, "
            f"numpy BLAS: {blas_description()}, {r['workers']} worker thread(s). "
            f"Load average at the end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} "
            "(the machine is shared with other jobs, so wall times are noisy; CPU time is the "
            "steadier measure).",
            "",
            f"Prompts: {r['source']}; {items} items, mean "
            f"{float(str(r['prompt_tokens_mean'])):.0f} prompt tokens, shared prefix "
            f"{r['prefix']} tokens. Greedy, at most {r['max_new']} new tokens, "
            f"stop at `<|im_end|>` ({r['stopped']}/{items} stopped before the limit).",
            "",
            "| measure | value |",
            "|---|---|",
            f"| model load (GGUF dequantised to float32) | {float(str(r['load_s'])):.1f} s |",
            f"| batched run, all items (prefix once + suffixes + decode) | **{batch_s:.1f} s** |",
            f"| CPU time of the batched run (all threads) | {float(str(r['batch_cpu'])):.1f} s |",
            f"| phases: prefix / suffixes / decode (wall) | {phases} |",
            f"| per item (batched) | {batch_s / items:.2f} s |",
            f"| new tokens generated | {r['new_tokens']} |",
            f"| naive per item (from scratch, {naive_n} sampled) | {naive_per:.1f} s |",
            f"| naive, all items (extrapolated) | ~{naive_per * items:.0f} s |",
            f"| batched == naive (sampled items) | {r['naive_same']}/{r['naive_n']} identical |",
            f"| peak RSS after the batched run | {float(str(r['rss_batch_mib'])):.0f} MiB |",
            f"| peak RSS overall | {float(str(r['rss_mib'])):.0f} MiB |",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N items")
    parser.add_argument("--naive-sample", type=int, default=8, help="items to rerun naively")
    parser.add_argument("--max-new", type=int, default=160)
    parser.add_argument("--workers", type=int, default=None, help="threads (default: CPUs)")
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args(argv)
    result = run(args)
    section = render(result)
    print(section)
    print(f"phases: {result['phases']}", file=sys.stderr)
    print(f"example output: {result['example']!r}", file=sys.stderr)
    if not args.no_write:
        write_section("local", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
