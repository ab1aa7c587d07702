"""Build the demo report in docs/report.md: scripted fake-backend runs plus optional real runs.

Four runs of the fake backend (``tooleval.providers.fake``) over the full InfraNode suite,
each a deterministic persona: ``fake-gold`` answers every gold call, ``fake-sloppy`` makes the
mistakes real models make (umlaut slugs, guessed resource keys, overview first on
not_covered, the departure board before the station list), once in prompt and once in native
mode, and ``fake-careful`` loses a sixth of its requests to a spent quota (an incomplete run).
Further results files (e.g. a run of the embedded model) can be added with ``--include``.

    uv run python scripts/make_demo_report.py --out demo-results --include local/smollm2.json \
        --images docs/img
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from tooleval.providers.base import ErrorClass
from tooleval.providers.fake import FakeProvider, FakeReply
from tooleval.records import NativeToolCall, Task, ToolCall
from tooleval.report import build_report, load_runs, rich_table, write_report
from tooleval.runner import RunConfig, run_suite
from tooleval.suites import Suite, load_suite

Persona = Callable[[Task, int], ToolCall | None]
UMLAUTS = (("ue", "ü"), ("oe", "ö"), ("ae", "ä"))


def gold(task: Task, _: int) -> ToolCall | None:
    return task.gold


def with_args(call: ToolCall, **changes: object) -> ToolCall:
    return ToolCall(call.name, {**call.arguments, **changes})


def umlaut_slug(slug: str) -> str:
    for plain, umlaut in UMLAUTS:
        slug = slug.replace(plain, umlaut)
    return slug


def sloppy(task: Task, index: int) -> ToolCall | None:
    """Typical mistakes, on a fixed share of each category (``index`` counts within it)."""
    call, slug = task.gold, task.gold.arguments.get("slug")
    category = task.category
    if category == "routing_broad" and index % 3 == 0:
        return ToolCall("get_city", {"slug": slug})
    if category == "resource_key" and index % 2 == 0:
        return with_args(call, resource="indicators")
    if category == "slug_resolution" and index % 2 == 0 and isinstance(slug, str):
        return with_args(
            call, slug=umlaut_slug(slug) + ("" if umlaut_slug(slug) != slug else "-stadt")
        )
    if category == "poi_type" and index % 3 == 1:
        return with_args(call, type="playground")
    if category == "compare_multi" and index % 2 == 0:
        return ToolCall(
            "get_city_data",
            {"slug": call.arguments["cities"][0], "resource": call.arguments["resource"]},
        )
    if category == "not_covered" and index % 3 != 2:
        return ToolCall("get_city_overview", {"slug": slug}) if index != 4 else None
    if category == "two_step" and index % 2 == 1:
        return ToolCall("station_board_departures", {"eva": "8000000"})
    return call


def careful(task: Task, index: int) -> ToolCall | None:
    """Right almost everywhere, but always looks at the overview on not_covered."""
    if task.category == "not_covered":
        return ToolCall("get_city_overview", {"slug": task.gold.arguments.get("slug")})
    if task.category == "resource_key" and index % 4 == 0:
        return with_args(task.gold, resource="indicators")
    return task.gold


def reply(task: Task, call: ToolCall | None, native: bool) -> FakeReply:
    if call is None:
        return FakeReply(text="Dazu liegen mir keine Daten vor.", task_id=task.id)
    if native:
        args = json.dumps(dict(call.arguments), ensure_ascii=False)
        return FakeReply(tool_calls=(NativeToolCall(call.name, args, "call-1"),), task_id=task.id)
    text = json.dumps({"name": call.name, "arguments": dict(call.arguments)}, ensure_ascii=False)
    return FakeReply(text=text, task_id=task.id)


def script(
    suite: Suite,
    persona: Persona,
    native: bool = False,
    quota_every: int = 0,
    prose_every: int = 0,
) -> FakeProvider:
    """Replies for every task; ``prose_every``: every n-th answer names the tool in prose."""
    seen: dict[str, int] = {}
    replies: list[FakeReply] = []
    for number, task in enumerate(suite.tasks):
        index = seen.get(task.category, 0)
        seen[task.category] = index + 1
        if quota_every and number % quota_every == quota_every - 1:
            replies.append(FakeReply(error=ErrorClass.QUOTA_EXHAUSTED, task_id=task.id))
        elif prose_every and number % prose_every == prose_every - 1:
            text = f"Dafür würde ich {task.gold.name} für diese Stadt aufrufen."
            replies.append(FakeReply(text=text, task_id=task.id))
        else:
            replies.append(reply(task, persona(task, index), native))
    return FakeProvider(replies, questions={t.id: t.question for t in suite.tasks})


def run_fake(out: Path, suite: Suite, name: str, provider: FakeProvider, **config: object) -> None:
    file_name = str(config.pop("file", name))
    values: dict[str, object] = {
        "backend": "fake",
        "model": name,
        "output": out / f"{file_name}.json",
        "concurrency": 4,
        "fresh": True,
        "max_retries": 0,
    }
    values.update(config)
    run_suite(RunConfig(**values), provider, suite=suite)  # type: ignore[arg-type]


def make_runs(out: Path) -> None:
    suite = load_suite("infranode")
    run_fake(out, suite, "fake-gold", script(suite, gold))
    run_fake(out, suite, "fake-sloppy", script(suite, sloppy, prose_every=9))
    native = script(suite, sloppy, native=True)
    run_fake(out, suite, "fake-sloppy", native, mode="native", file="fake-sloppy-native")
    run_fake(out, suite, "fake-careful", script(suite, careful, quota_every=6))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, required=True, help="folder for results + report")
    parser.add_argument("--include", type=Path, nargs="*", default=[], help="more results files")
    parser.add_argument("--images", type=Path, default=None, help="copy the PNG charts here")
    parser.add_argument("--compare", nargs=2, action="append", default=[], metavar=("A", "B"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    make_runs(args.out)
    for extra in args.include:
        shutil.copy(extra, args.out / extra.name)
    report = build_report(load_runs([args.out]), [tuple(c) for c in args.compare])
    Console(width=200).print(rich_table(report))
    written = write_report(report, args.out)
    if args.images:
        args.images.mkdir(parents=True, exist_ok=True)
        for path in written:
            if path.suffix == ".png":
                shutil.copy(path, args.images / path.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
