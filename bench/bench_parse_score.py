"""Parse + score throughput on recorded-style outputs, items per second, side by side.

The corpus pairs every InfraNode task with realistic outputs: its gold call as bare JSON, in a
```json fence, wrapped in German prose, in <tool_call> tags, after a <think> block, as a
pythonic list and as Qwen3-Coder XML, a wrong tool, wrong arguments, a refusal with no call,
plus every output of the parser's fixtures (src/tooleval/parsing/fixtures/*.jsonl: one file
per dialect, text and native calls) paired with tasks in turn. A round times what the runner
does per item, ``parse_response`` with the suite's tools offered + ``score_parse`` in prompt
mode (``format_ok`` included), on one thread, over ``--items`` items of one of two mixes: the
whole corpus, and the fixture outputs alone (the real dialect mix, with their prose, reasoning
and failures).

Side by side: with ``--against REF`` the same rounds run, alternately, on the source tree of
a git revision (exported with ``git archive``; its older API without tools or mode is called as
it was), so the ratio of the two parsers comes from one run on one machine. Each round is a
fresh worker process (``--worker``) that times only its loop.

The goal (``GOAL`` items/s) is judged on wall time when the worker had its core, i.e. its CPU
time was at least ``FULL_CORE`` of its wall time; on a busy machine (other jobs held the cores)
it is judged on CPU time, what one core delivers, and the section says so. Also times the
InfraNode ``exec_match`` (uncached, in this process). Writes the ``bench:parse`` section of
docs/performance.md.

Usage: uv run python bench/bench_parse_score.py [--items 100000] [--rounds 3] [--against REF]
       [--wait-quiet SECONDS]
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from itertools import cycle, islice
from pathlib import Path
from typing import Any

COMMAND = "uv run python bench/bench_parse_score.py"
HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "src" / "tooleval" / "parsing" / "fixtures"
GOAL = 20_000
FULL_CORE = 0.9
"""A worker whose CPU time is at least this share of its wall time had a core to itself."""
MIXES = ("corpus", "fixtures")

Row = dict[str, Any]  # {"task": id, "text": str | None, "native": [[name, arguments], ...]}


# --- the corpus (built in this process, from this tree) ---------------------------------------


def call_json(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def pythonic(name: str, arguments: dict[str, Any]) -> str:
    keywords = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return f"[{name}({keywords})]"


def qwen_xml(name: str, arguments: dict[str, Any]) -> str:
    def text(value: object) -> str:
        return value if isinstance(value, str) else json.dumps(value)

    params = "".join(f"<parameter={k}>\n{text(v)}\n</parameter>\n" for k, v in arguments.items())
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def synthetic_texts(name: str, arguments: dict[str, Any]) -> list[str]:
    """Typical shapes of a model's answer to a task with this gold call, right and wrong."""
    gold = call_json(name, arguments)
    return [
        gold,
        f"```json\n{gold}\n```",
        f"Gerne! Dafür rufe ich dieses Werkzeug auf: {gold} – dann sehen wir weiter.",
        f"<tool_call>\n{gold}\n</tool_call>",
        f"<think>Welche Stadt ist gemeint? Ich nehme das passende Tool.</think>\n{gold}",
        pythonic(name, arguments),
        qwen_xml(name, arguments),
        call_json("get_city_overview", arguments),
        f"```\n{call_json(name, {'slug': 'Muenchen'})}\n```",
        "Dazu habe ich leider keine Daten. Bitte frage etwas anderes.",
    ]


def fixture_outputs(folder: Path = FIXTURES) -> list[tuple[str | None, list[list[str]]]]:
    """Every recorded output (text, native calls) in the parser's fixture files."""
    outputs = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                native = [
                    [str(c.get("name", "")), str(c.get("arguments", ""))]
                    for c in row.get("native") or ()
                ]
                outputs.append((row.get("text"), native))
    return outputs


def corpora() -> dict[str, list[Row]]:
    """The two mixes, each a list of distinct rows (workers cycle through them)."""
    from tooleval.suites.infranode import load_tasks

    tasks = load_tasks()
    synthetic = [
        {"task": t.id, "text": text, "native": []}
        for t in tasks
        for text in synthetic_texts(t.gold.name, dict(t.gold.arguments))
    ]
    recorded = [
        {"task": tasks[i % len(tasks)].id, "text": text, "native": native}
        for i, (text, native) in enumerate(fixture_outputs())
    ]
    return {"corpus": synthetic + recorded, "fixtures": recorded}


# --- the worker (a fresh process on one source tree) ------------------------------------------


def scorer() -> Any:
    """parse + score of the tree on ``sys.path``, called as its API allows."""
    from tooleval.parsing import parse_response
    from tooleval.records import NativeToolCall
    from tooleval.scoring import score_parse
    from tooleval.suites.infranode import load_tools

    tools = load_tools()
    with_tools = "tools" in inspect.signature(parse_response).parameters
    with_mode = "mode" in inspect.signature(score_parse).parameters

    def one(task: Any, text: str | None, native: tuple[Any, ...]) -> str | None:
        parsed = parse_response(text, native, tools) if with_tools else parse_response(text, native)
        score_parse(task, parsed, "prompt") if with_mode else score_parse(task, parsed)
        return parsed.extractor

    def prepare(rows: list[Row]) -> list[tuple[Any, str | None, tuple[Any, ...]]]:
        from tooleval.suites.infranode import load_tasks

        by_id = {task.id: task for task in load_tasks()}
        return [
            (by_id[r["task"]], r["text"], tuple(NativeToolCall(n, a) for n, a in r["native"]))
            for r in rows
        ]

    return one, prepare


def worker(corpus: Path, items: int) -> int:
    one, prepare = scorer()
    rows = prepare(json.loads(corpus.read_text(encoding="utf-8")))
    pairs = list(islice(cycle(rows), items))
    extractors: Counter[str] = Counter()
    wall, cpu = time.perf_counter(), time.process_time()
    for task, text, native in pairs:
        extractors[one(task, text, native) or "none"] += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    import tooleval

    source = str(Path(tooleval.__file__).resolve().parent.parent)
    print(json.dumps({"wall": wall, "cpu": cpu, "extractors": extractors, "source": source}))
    return 0


# --- the driver -------------------------------------------------------------------------------


def export_tree(ref: str, into: Path) -> Path:
    """``src`` of the git revision ``ref``, unpacked under ``into``."""
    archive = into / "src.tar"
    with archive.open("wb") as sink:
        subprocess.run(["git", "archive", ref, "src"], cwd=HERE.parent, stdout=sink, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def run_worker(source: Path, corpus: Path, items: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    argv = [sys.executable, str(Path(__file__)), "--worker", str(corpus), "--items", str(items)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"worker on {source} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(result["source"]) != source.resolve():
        raise SystemExit(f"worker read {result['source']}, not {source}")
    return result


def wait_until_quiet(seconds: float) -> float:
    """Wait up to ``seconds`` for a 1-minute load average that leaves a core free (below the
    CPU count minus a half); return the last reading."""
    limit, deadline = (os.cpu_count() or 1) - 0.5, time.monotonic() + seconds
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(min(15.0, max(0.0, deadline - time.monotonic())))
    return os.getloadavg()[0]


def measure(
    sides: dict[str, Path], files: dict[str, Path], args: argparse.Namespace
) -> dict[str, Any]:
    """``{(side, mix): [round results]}``: every side and mix once per round, alternately."""
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for index in range(args.rounds):
        for mix in MIXES:
            for side, source in sides.items():
                found = run_worker(source, files[mix], args.items)
                results.setdefault((side, mix), []).append(found)
                rate, cpu = args.items / found["wall"], found["cpu"]
                print(f"round {index + 1} {mix:8s} {side}: {rate:,.0f}/s wall, {cpu:.2f} s CPU")
    return results


def exec_match_rate(rows: list[Row], sample: int) -> float:
    """Items per second of the uncached InfraNode exec_match on the first calls of ``rows``."""
    from tooleval.parsing import parse_response
    from tooleval.records import NativeToolCall
    from tooleval.suites.infranode import load_tasks, load_tools
    from tooleval.suites.infranode.client import make_transport
    from tooleval.suites.infranode.execmatch import exec_match

    tools, by_id, transport = load_tools(), {t.id: t for t in load_tasks()}, make_transport(None)
    firsts = [
        (
            by_id[r["task"]],
            parse_response(r["text"], tuple(NativeToolCall(*c) for c in r["native"]), tools).first,
        )
        for r in islice(cycle(rows), sample)
    ]
    start = time.process_time()
    for task, call in firsts:
        exec_match(task, call, transport)
    return len(firsts) / max(1e-9, time.process_time() - start)


def median_of(rounds: list[dict[str, Any]], key: str) -> float:
    from common import median

    return median([r[key] for r in rounds])


def verdict(wall: float, cpu: float, items: int) -> str:
    """Met or not on wall time when the worker had its core, else on CPU time, said so."""
    share = cpu / wall
    if share >= FULL_CORE:
        return f"{'met' if items / wall >= GOAL else 'NOT met'} (wall time; CPU {share:.0%} of it)"
    met = "met" if items / cpu >= GOAL else "NOT met"
    return (
        f"{met} on CPU time; wall time not judged: the worker had a core only {share:.0%} of "
        "the time, other jobs held the rest"
    )


def render(args: argparse.Namespace, sides: list[str], data: dict[str, Any]) -> str:
    from common import header

    results, sizes = data["results"], data["sizes"]
    lines = header(
        "Parse + score throughput", COMMAND + (f" --against {args.against}" if args.against else "")
    )
    ours = results[(sides[0], "corpus")]
    wall, cpu = median_of(ours, "wall"), median_of(ours, "cpu")
    lines += [
        f"Each round: {args.items:,} items on one thread in a fresh process, cycling through "
        f"the **corpus** ({sizes['corpus']} distinct outputs: each InfraNode task's gold call "
        "as bare JSON, fenced, prose-wrapped, in `<tool_call>` tags, after a `<think>` block, "
        "as a pythonic list and as Qwen3-Coder XML, a wrong tool, wrong arguments and a "
        "refusal, plus every parser fixture) or the **fixtures** alone "
        f"({sizes['fixtures']} recorded outputs, one file per dialect, with their prose and "
        "failures). Timed: `parse_response` with the suite's tools + `score_parse` in prompt "
        f"mode (with `format_ok`). Median of {args.rounds} rounds; the sides ran alternately. "
        f"1-minute load average before and after: {data['loads'][0]:.1f}, "
        f"{data['loads'][1]:.1f}.",
        "",
        f"Goal ≥ {GOAL:,} items/s on the corpus → **{verdict(wall, cpu, args.items)}**.",
        "",
        "| side | mix | wall items/s | CPU items/s | µs per item (CPU) | rounds (wall) |",
        "|---|---|---|---|---|---|",
    ]
    for mix in MIXES:
        for side in sides:
            rounds = results[(side, mix)]
            w, c = median_of(rounds, "wall"), median_of(rounds, "cpu")
            shown = ", ".join(f"{r['wall']:.2f} s" for r in rounds)
            lines.append(
                f"| {side} | {mix} | {args.items / w:,.0f} | {args.items / c:,.0f} | "
                f"{1e6 * c / args.items:.1f} | {shown} |"
            )
    if len(sides) == 2:
        for mix in MIXES:
            ratio = median_of(results[(sides[0], mix)], "cpu") / median_of(
                results[(sides[1], mix)], "cpu"
            )
            lines.append(f"\nCPU time per item, {mix}: this tree / {sides[1]} = **{ratio:.2f} ×**.")
    for side in sides:
        used = Counter[str]()
        used.update(results[(side, "corpus")][-1]["extractors"])
        lines.append(
            f"\nExtractors on the corpus ({side}): "
            + ", ".join(f"{k} {v}" for k, v in used.most_common())
            + "."
        )
    lines += [
        "",
        f"InfraNode `exec_match`, uncached (CPU, this tree): {data['exec_rate']:,.0f} items/s. "
        f"Peak RSS of the driver: {data['rss']:.0f} MiB.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000, help="items per round and mix")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", metavar="REF", help="also time the parser of git revision REF")
    parser.add_argument("--exec-sample", type=int, default=2000)
    parser.add_argument(
        "--wait-quiet", type=float, default=0.0, metavar="SECONDS",
        help="first wait up to SECONDS for a load average that leaves a core free",
    )  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.items)
    sys.path.insert(0, str(HERE))
    with tempfile.TemporaryDirectory(prefix="bench-parse-") as tmp:
        folder = Path(tmp)
        mixes = corpora()
        files = {mix: folder / f"{mix}.json" for mix in MIXES}
        for mix, path in files.items():
            path.write_text(json.dumps(mixes[mix], ensure_ascii=False), encoding="utf-8")
        sides = {"this tree": HERE.parent / "src"}
        if args.against:
            (folder / "ref").mkdir()
            sides[args.against] = export_tree(args.against, folder / "ref")
        before = wait_until_quiet(args.wait_quiet)
        data = {
            "results": measure(sides, files, args),
            "loads": (before, os.getloadavg()[0]),
            "sizes": {mix: len(rows) for mix, rows in mixes.items()},
            "exec_rate": exec_match_rate(mixes["corpus"], args.exec_sample),
            "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        }
    section = render(args, list(sides), data)
    print(section)
    if not args.no_write:
        from common import write_section

        write_section("parse", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
