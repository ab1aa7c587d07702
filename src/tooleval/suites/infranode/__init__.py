"""The InfraNode suite: twelve tools over the InfraNode open-data API, 91 German tasks.

Tools and tasks ship inside the package; see README.md beside this file. The pieces of the
suite plug-in: ``prompting`` (the German prompt), ``scoring.score_parse`` (single call),
``replica_exec_match``, and ``dialogue`` (episodes against the API replica or a base URL).

Importing this package needs the standard library alone: the lm-eval task imports it inside
lm-eval's own environment (see integrations/lm_eval). The replica, the HTTP client and the
dialogue are imported when ``load_suite`` or ``replica_exec_match`` first runs.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING

from tooleval.fileio import package_json, package_text
from tooleval.records import Message, Mode, Task, ToolCall, ToolSpec
from tooleval.scoring import score_parse
from tooleval.suites.base import Suite, tool_specs_from_json
from tooleval.suites.infranode.prompting import build_messages
from tooleval.tasks import iter_jsonl_text, task_from_json

if TYPE_CHECKING:
    from tooleval.suites.infranode.client import Transport

SUITE_NAME = "infranode"
SUITE_VERSION = "2.1.0"
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


@cache
def load_tools() -> tuple[ToolSpec, ...]:
    """The twelve tools as a model sees them (from the packaged tools.json)."""
    return tool_specs_from_json(package_json(__name__, TOOLS_FILE), TOOLS_FILE)


@cache
def load_tasks() -> tuple[Task, ...]:
    """The packaged tasks (the generator's default output)."""
    rows = iter_jsonl_text(package_text(__name__, TASKS_FILE), TASKS_FILE)
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


def load_suite(
    api_base_url: str | None = None,
    max_result_chars: int = 4000,
    tools: tuple[ToolSpec, ...] | None = None,
    tasks: tuple[Task, ...] | None = None,
    transport: Transport | None = None,
) -> Suite[Task]:
    """The suite; episodes run against the replica, the API at ``api_base_url``, or
    ``transport``. ``tools``/``tasks`` replace the packaged ones (e.g. a generated tasks file).
    """
    from tooleval.suites.infranode.client import make_transport
    from tooleval.suites.infranode.dialogue import InfraNodeDialogue

    tools = load_tools() if tools is None else tools
    transport = transport or make_transport(api_base_url)

    def messages(task: Task, mode: Mode) -> tuple[Message, ...]:
        return build_messages(task.question, tools, mode)

    dialogue = InfraNodeDialogue(tools, transport, max_result_chars)
    return Suite(
        SUITE_NAME,
        SUITE_VERSION,
        tools,
        load_tasks() if tasks is None else tasks,
        CATEGORIES,
        messages,
        scorer=score_parse,
        exec_match=replica_exec_match,
        dialogue=dialogue,
    )
