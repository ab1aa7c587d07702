"""The memoised InfraNode exec_match gives the uncached answer, also when asked again."""

from __future__ import annotations

from tooleval.records import ToolCall
from tooleval.suites import infranode
from tooleval.suites.infranode.client import make_transport
from tooleval.suites.infranode.execmatch import exec_match


def sample_calls(task_index: int) -> list[ToolCall | None]:
    task = infranode.load_tasks()[task_index]
    slug = task.gold.arguments.get("slug")
    calls: list[ToolCall | None] = [
        task.gold,
        ToolCall("get_city_overview", {"slug": "kiel"}),
        ToolCall(task.gold.name, {**task.gold.arguments, "unexpected": [1, {"b": 2}]}),
        ToolCall("no_such_tool", {}),
        None,
    ]
    if isinstance(slug, str):
        calls.append(ToolCall(task.gold.name, {**task.gold.arguments, "slug": slug.upper()}))
    return calls


def test_cached_exec_match_equals_uncached_on_repeat() -> None:
    tasks = infranode.load_tasks()
    transport = make_transport(None)
    seen = {0: 0, 1: 0}
    for index in range(0, len(tasks), 9):
        task = tasks[index]
        for call in sample_calls(index):
            expected = exec_match(task, call, transport)
            assert infranode.replica_exec_match(task, call) == expected
            assert infranode.replica_exec_match(task, call) == expected  # from the cache
            seen[expected] += 1
    assert seen[0] > 0 and seen[1] > 0  # both outcomes were exercised


def test_same_call_for_another_task_is_not_served_from_the_cache() -> None:
    tasks = infranode.load_tasks()
    first = tasks[0]
    other = next(t for t in tasks if t.gold != first.gold)
    assert infranode.replica_exec_match(first, first.gold) == 1
    assert infranode.replica_exec_match(other, first.gold) == exec_match(
        other, first.gold, make_transport(None)
    )
