"""The InfraNode suite: twelve tools over the InfraNode open-data API, 91 German tasks.

Tools and tasks ship inside the package; see README.md beside this file.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from tooleval.records import Task, ToolCall, ToolSpec
from tooleval.suites import Suite, tool_specs_from_json
from tooleval.tasks import iter_jsonl_text, task_from_json

SUITE_NAME = "infranode"
SUITE_VERSION = "2.0.0"
CATEGORIES = (
    "routing_broad",
    "routing_named",
    "resource_key",
    "slug_resolution",
    "poi_type",
    "compare_multi",
    "not_covered",
    "two_step",
)
DEFAULT_COUNTS = {
    "routing_broad": 12,
    "routing_named": 12,
    "resource_key": 24,
    "slug_resolution": 8,
    "poi_type": 12,
    "compare_multi": 5,
    "not_covered": 12,
    "two_step": 6,
}
TOOLS_FILE = "tools.json"
TASKS_FILE = "tasks.jsonl"


def _package_text(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


@cache
def load_tools() -> tuple[ToolSpec, ...]:
    """The twelve tools as a model sees them (from the packaged tools.json)."""
    return tool_specs_from_json(json.loads(_package_text(TOOLS_FILE)), TOOLS_FILE)


@cache
def load_tasks() -> tuple[Task, ...]:
    """The packaged tasks (the generator's default output)."""
    rows = iter_jsonl_text(_package_text(TASKS_FILE), TASKS_FILE)
    return tuple(task_from_json(row, f"{TASKS_FILE}:{line}") for line, row in rows)


_EXEC_CACHE: dict[str, int] = {}
_EXEC_CACHE_MAX = 50_000


def _exec_key(task: Task, call: ToolCall) -> str | None:
    """Everything ``exec_match`` depends on, as one string; None when it cannot be encoded."""
    try:
        target = task.provenance.get("target_station")
        parts = [task.id, task.gold.name, task.gold.arguments, task.alternatives, target, call.name]
        return json.dumps([*parts, call.arguments], sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return None


def replica_exec_match(task: Task, call: ToolCall | None) -> int:
    """``exec_match`` against the in-process replica (offline, reproducible).

    The replica answers a call the same way every time (volatile members aside), so results
    are memoised per task and call: repeats that make the same call are not executed again
    (executing one call costs milliseconds, on the runner's request path).
    """
    from tooleval.suites.infranode.client import make_transport
    from tooleval.suites.infranode.execmatch import exec_match

    if call is None:
        return 0
    key = _exec_key(task, call)
    cached = _EXEC_CACHE.get(key) if key is not None else None
    if cached is not None:
        return cached
    result = exec_match(task, call, make_transport(None))
    if key is not None:
        if len(_EXEC_CACHE) >= _EXEC_CACHE_MAX:
            _EXEC_CACHE.clear()
        _EXEC_CACHE[key] = result
    return result


def load_suite() -> Suite:
    return Suite(
        SUITE_NAME, SUITE_VERSION, load_tools(), load_tasks(), CATEGORIES, replica_exec_match
    )
