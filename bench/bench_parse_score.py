"""Parse + score throughput on recorded-style outputs, items per second.

The corpus pairs every InfraNode task with realistic outputs: its gold call as bare JSON, in a
```json fence, wrapped in German prose, in <tool_call> tags, after a <think> block, as a
pythonic list and as Qwen3-Coder XML, a wrong tool, wrong arguments, a refusal with no call,
plus every output of the parser's fixtures (src/tooleval/parsing/fixtures/*.jsonl: one file
per dialect, text and native calls) paired with tasks in turn. Times what the runner does per
item: ``tooleval.parsing.parse_response`` with the suite's tools offered +
``tooleval.scoring.score_parse`` in prompt mode (``format_ok`` included), over the whole
corpus (wall and CPU), median of the rounds. Also times the InfraNode
executable-equivalence check (``exec_match``, which ``tooleval run`` adds to each answered
item) uncached, on a smaller sample. Writes the ``bench:parse`` section of
docs/performance.md.

Usage: uv run python bench/bench_parse_score.py [--items 200000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections import Counter
from itertools import cycle, islice
from pathlib import Path

from common import ROOT, header, median, write_section

from tooleval.parsing import parse_response
from tooleval.records import NativeToolCall, Task, ToolCall
from tooleval.scoring import score_parse
from tooleval.suites.infranode import load_tasks, load_tools

COMMAND = "uv run python bench/bench_parse_score.py"
FIXTURES = ROOT / "src" / "tooleval" / "parsing" / "fixtures"
TOOLS = load_tools()
GOAL = 20_000

Output = tuple[str | None, tuple[NativeToolCall, ...]]


def call_json(call: ToolCall) -> str:
    return json.dumps({"name": call.name, "arguments": dict(call.arguments)}, ensure_ascii=False)


def pythonic(call: ToolCall) -> str:
    keywords = ", ".join(f"{key}={value!r}" for key, value in call.arguments.items())
    return f"[{call.name}({keywords})]"


def qwen_xml(call: ToolCall) -> str:
    def text(value: object) -> str:
        return value if isinstance(value, str) else json.dumps(value)

    params = "".join(
        f"<parameter={key}>\n{text(value)}\n</parameter>\n" for key, value in call.arguments.items()
    )
    return f"<tool_call>\n<function={call.name}>\n{params}</function>\n</tool_call>"


def synthetic_outputs(task: Task) -> list[Output]:
    """Typical shapes of a model's answer to ``task``, right and wrong."""
    gold = call_json(task.gold)
    wrong_tool = call_json(ToolCall("get_city_overview", dict(task.gold.arguments)))
    wrong_args = call_json(ToolCall(task.gold.name, {"slug": "Muenchen"}))
    texts = [
        gold,
        f"```json\n{gold}\n```",
        f"Gerne! Dafür rufe ich dieses Werkzeug auf: {gold} – dann sehen wir weiter.",
        f"<tool_call>\n{gold}\n</tool_call>",
        f"<think>Welche Stadt ist gemeint? Ich nehme das passende Tool.</think>\n{gold}",
        pythonic(task.gold),
        qwen_xml(task.gold),
        wrong_tool,
        f"```\n{wrong_args}\n```",
        "Dazu habe ich leider keine Daten. Bitte frage etwas anderes.",
    ]
    return [(text, ()) for text in texts]


def fixture_outputs(folder: Path = FIXTURES) -> list[Output]:
    """Every recorded output (text or native calls) in the parser's fixture files."""
    outputs: list[Output] = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            native = tuple(
                NativeToolCall(str(c.get("name", "")), str(c.get("arguments", "")))
                for c in row.get("native") or ()
            )
            outputs.append((row.get("text"), native))
    return outputs


def corpus(items: int) -> tuple[list[tuple[Task, Output]], int]:
    """``items`` (task, output) pairs, and how many distinct outputs they cycle through."""
    tasks = load_tasks()
    pairs = [(task, out) for task in tasks for out in synthetic_outputs(task)]
    recorded = fixture_outputs()
    pairs += [(tasks[i % len(tasks)], out) for i, out in enumerate(recorded)]
    return list(islice(cycle(pairs), items)), len(pairs)


def time_round(pairs: list[tuple[Task, Output]]) -> tuple[float, float, Counter[str]]:
    extractors: Counter[str] = Counter()
    wall, cpu = time.perf_counter(), time.process_time()
    for task, (text, native) in pairs:
        parsed = parse_response(text, native, TOOLS)
        score_parse(task, parsed, "prompt")
        extractors[parsed.extractor or "none"] += 1
    return time.perf_counter() - wall, time.process_time() - cpu, extractors


def exec_match_rate(pairs: list[tuple[Task, Output]], sample: int) -> float:
    """Items per second of the uncached InfraNode exec_match on the first calls of ``pairs``."""
    from tooleval.suites.infranode.client import make_transport
    from tooleval.suites.infranode.execmatch import exec_match

    transport = make_transport(None)
    firsts = [(task, parse_response(text, native, TOOLS).first) for task, (text, native) in pairs]
    firsts = firsts[:sample]
    start = time.process_time()
    for task, call in firsts:
        exec_match(task, call, transport)
    return len(firsts) / max(1e-9, time.process_time() - start)


def render(args: argparse.Namespace, result: dict[str, object]) -> str:
    walls, cpus = result["walls"], result["cpus"]
    assert isinstance(walls, list) and isinstance(cpus, list)
    rate_wall, rate_cpu = args.items / median(walls), args.items / median(cpus)
    met = "met" if rate_cpu >= GOAL else "NOT met"
    lines = header("Parse + score throughput", COMMAND, compared=False)
    lines += [
        f"{args.items} items cycling through {result['distinct']} distinct (task, output) pairs: "
        "each InfraNode task's gold call as bare JSON, fenced, prose-wrapped, in "
        "`<tool_call>` tags, after a `<think>` block, as a pythonic list and as Qwen3-Coder "
        "XML, a wrong tool, wrong arguments and a refusal, plus every model output of the "
        "parser fixtures (`src/tooleval/parsing/fixtures/*.jsonl`, one file per dialect, text "
        "and native calls). Timed: `parse_response` with the suite's tools + `score_parse` "
        "in prompt mode (with `format_ok`), one thread, median of "
        f"{args.rounds} rounds. Goal ≥ {GOAL:,} items/s → **{met}**, judged on CPU time: the "
        "work runs on one thread, so its CPU time is what one core delivers, while its wall "
        "time also counts the time other jobs held the cores (see the load average above; "
        "on an idle core the two agree).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| throughput (wall) | **{rate_wall:,.0f} items/s** |",
        f"| throughput (CPU) | {rate_cpu:,.0f} items/s |",
        f"| per item | {1e6 / rate_wall:.1f} µs |",
        f"| rounds (wall) | {', '.join(f'{w:.2f} s' for w in walls)} |",
        f"| extractors used | {result['extractors']} |",
        f"| InfraNode `exec_match`, uncached (CPU) | {result['exec_rate']:,.0f} items/s |",
        f"| peak RSS | {result['rss']:.0f} MiB |",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--exec-sample", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args(argv)
    pairs, distinct = corpus(args.items)
    walls, cpus, extractors = [], [], Counter[str]()
    for index in range(args.rounds):
        wall, cpu, extractors = time_round(pairs)
        walls.append(wall)
        cpus.append(cpu)
        print(f"round {index + 1}: {args.items / wall:,.0f} items/s wall, {cpu:.2f} s CPU")
    result: dict[str, object] = {
        "walls": walls,
        "cpus": cpus,
        "distinct": distinct,
        "extractors": ", ".join(f"{k} {v}" for k, v in extractors.most_common()),
        "exec_rate": exec_match_rate(pairs, args.exec_sample),
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }
    section = render(args, result)
    print(section)
    if not args.no_write:
        write_section("parse", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
