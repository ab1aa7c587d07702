"""Self-test of a suite without any model: prompts, gold scores, wrong calls, parser fixtures.

Every check is a named record; ``run_selftest`` returns them all so the CLI can print a summary
and exit non-zero on any failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tooleval.metrics import aggregate, metric_names
from tooleval.parsing import parse_text
from tooleval.records import ItemScore, Task, ToolCall
from tooleval.scoring import score_call
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


def check_gold(suite: Suite[Task]) -> Iterator[Check]:
    pairs = [(t.category, score_call(t, t.gold)) for t in suite.tasks]
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


PARSER_CASES: tuple[tuple[str, dict[str, Any] | None], ...] = (
    ('{"name": "weather", "arguments": {"slug": "koeln"}}', {"slug": "koeln"}),
    ('```json\n{"name": "weather", "parameters": {"slug": "koeln"}}\n```', {"slug": "koeln"}),
    (
        'Gern! {"name": "weather", "arguments": "{\\"slug\\": \\"koeln\\"}"} Fertig.',
        {"slug": "koeln"},
    ),
    (
        '<tool_call>{"name": "weather", "arguments": {"slug": "koeln"}}</tool_call>',
        {"slug": "koeln"},
    ),
    ("Das Wetter in Köln ist schön.", None),
    ('{"name": "weather", "arguments": {"slug": ', None),
)


def check_parser() -> Iterator[Check]:
    for index, (text, expected) in enumerate(PARSER_CASES):
        result = parse_text(text)
        got = dict(result.first.arguments) if result.first else None
        ok = got == expected and (expected is None or result.first is not None)
        yield Check(f"parser:{index}", ok, json.dumps({"got": got, "reason": result.reason}))


def run_selftest(suite: Suite[Task]) -> list[Check]:
    checks = [*check_prompts(suite), *check_gold(suite), *check_wrong_calls(suite)]
    checks.extend(check_parser())
    checks.append(Check("suite:has-tasks", bool(suite.tasks), f"{len(suite.tasks)} tasks"))
    return checks
