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
SUITE_VERSION = "1.0.0"
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


def replica_exec_match(task: Task, call: ToolCall | None) -> int:
    """``exec_match`` against the in-process replica (offline, reproducible)."""
    from tooleval.suites.infranode.client import make_transport
    from tooleval.suites.infranode.execmatch import exec_match

    return exec_match(task, call, make_transport(None))


def load_suite() -> Suite:
    return Suite(
        SUITE_NAME, SUITE_VERSION, load_tools(), load_tasks(), CATEGORIES, replica_exec_match
    )
