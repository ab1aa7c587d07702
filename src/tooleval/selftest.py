"""Self-test of a suite without any model: prompts, gold scores, wrong calls, parser fixtures.

Every check is a named record; ``run_selftest`` returns them all so the CLI can print a summary
and exit non-zero on any failure. The parser checks run every shipped fixture file (one per
tool-call dialect, see ``tooleval.parsing.cases``), one check per file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from tooleval.metrics import aggregate, metric_names
from tooleval.parsing import parse_text
from tooleval.parsing.cases import ParseCase, case_mismatch, load_cases, parse_case
from tooleval.records import ItemScore, Task, ToolCall, ToolSpec
from tooleval.scoring import score_call, score_parse
from tooleval.suites import Suite


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str = ""


def check_prompts(suite: Suite[Task]) -> Iterator[Check]:
    prefixes: set[str] = set()
    for task in suite.tasks:
        system, user = suite.messages(task, "prompt")
        prefixes.add(system.content or "")
        if task.question != user.content or not system.content:
            yield Check(f"prompt:{task.id}", False, "user message is not the question")
    prefix = next(iter(prefixes), "")
    missing = sorted(t.name for t in suite.tools if f'"name":"{t.name}"' not in prefix)
    yield Check("prompts:shared-prefix", len(prefixes) == 1, f"{len(prefixes)} system prompts")
    yield Check("prompts:all-tools-rendered", not missing, f"missing: {missing}")


def _answer(task: Task, tools: Sequence[ToolSpec]) -> ItemScore:
    """The score of the gold call written exactly as the prompt asks for it."""
    text = json.dumps(task.gold.to_json(), ensure_ascii=False)
    return score_parse(task, parse_text(text, tools), "prompt")


def check_gold(suite: Suite[Task]) -> Iterator[Check]:
    pairs = [(t.category, _answer(t, suite.tools)) for t in suite.tasks]
    metrics = aggregate(pairs, suite.categories)
    bad = {k: v for k, v in metrics.items() if v != 1.0}
    yield Check("gold:every-metric-1.0", not bad, f"below 1.0: {bad}")
    yield Check("gold:metric-names", set(metrics) == set(metric_names(suite.categories)))


def _swap_tool(task: Task, tools: list[str]) -> ToolCall:
    other = next(n for n in tools if n != task.gold.name)
    return ToolCall(other, task.gold.arguments)


def _break_args(task: Task) -> ToolCall:
    args: dict[str, Any] = dict(task.gold.arguments)
    key = next(iter(args))
    value = args[key]
    args[key] = [*value[:-1], "atlantis"] if isinstance(value, list) else f"{value}-x"
    return ToolCall(task.gold.name, args)


def _reorder(task: Task) -> ToolCall:
    args: dict[str, Any] = {
        k: list(reversed(v)) if isinstance(v, list) else v for k, v in task.gold.arguments.items()
    }
    return ToolCall(task.gold.name, args)


def _expect(score: ItemScore, **wanted: int) -> bool:
    return all(getattr(score, name) == value for name, value in wanted.items())


def check_wrong_calls(suite: Suite[Task]) -> Iterator[Check]:
    tools = [t.name for t in suite.tools]
    probes: list[tuple[str, Callable[[Task], ToolCall | None], dict[str, int]]] = [
        ("wrong-tool", lambda t: _swap_tool(t, tools), {"tool_match": 0, "call_match": 0}),
        ("wrong-args", _break_args, {"tool_match": 1, "args_match": 0, "call_match": 0}),
        ("no-call", lambda t: None, {"parsed": 0, "call_match": 0}),
        ("reordered-lists", _reorder, {"call_match": 1}),
    ]
    for category in suite.categories:
        tasks = [t for t in suite.tasks if t.category == category]
        for label, make, wanted in probes:
            failures = [t.id for t in tasks if not _expect(score_call(t, make(t)), **wanted)]
            yield Check(f"wrong:{category}:{label}", bool(tasks) and not failures, f"{failures}")


def check_parser(cases: Sequence[ParseCase], tools: Sequence[ToolSpec]) -> Iterator[Check]:
    """One check per fixture file: every case parses to its expected call (or failure)."""
    for family, group in groupby(cases, key=lambda case: case.family):
        members = list(group)
        wrong = [m for m in (case_mismatch(c, parse_case(c, tools)) for c in members) if m]
        detail = "; ".join(wrong[:3]) if wrong else f"{len(members)} cases"
        yield Check(f"parser:{family}", not wrong, detail)


def _parser_tools() -> tuple[ToolSpec, ...]:
    """The parser fixtures are InfraNode outputs: they are read with its tools offered."""
    from tooleval.suites.infranode import load_tools

    return load_tools()


def run_selftest(suite: Suite[Task]) -> list[Check]:
    checks = [*check_prompts(suite), *check_gold(suite), *check_wrong_calls(suite)]
    checks.extend(check_parser(load_cases(), _parser_tools()))
    checks.append(Check("suite:has-tasks", bool(suite.tasks), f"{len(suite.tasks)} tasks"))
    return checks
