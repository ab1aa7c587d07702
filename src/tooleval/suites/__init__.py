"""Benchmark suites shipped with tooleval, looked up by name in one table."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.records import Task, ToolCall, ToolSpec

ExecMatch = Callable[[Task, ToolCall | None], int]


@dataclass(frozen=True)
class Suite:
    """A named, versioned set of tools and tasks with its category list (in report order).

    ``exec_match``, where a suite can execute calls, tells whether a call gets the gold call's
    answer from the API even when it is not canonical (reported apart from ``call_match``).
    """

    name: str
    version: str
    tools: tuple[ToolSpec, ...]
    tasks: tuple[Task, ...]
    categories: tuple[str, ...]
    exec_match: ExecMatch | None = field(default=None, compare=False)

    @property
    def tools_hash(self) -> str:
        return tools_hash(self.tools)


def tools_hash(tools: Sequence[ToolSpec]) -> str:
    """A short, stable fingerprint of a tool list as a model sees it."""
    canonical = json.dumps(
        [t.to_mcp() for t in tools], sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def tool_specs_from_json(items: Sequence[Any], source: str) -> tuple[ToolSpec, ...]:
    """Build ToolSpecs from an MCP ``tools/list``-shaped list, naming ``source`` on bad input."""
    specs: list[ToolSpec] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError(f"{source}: tool #{index} has no string 'name'")
        schema = item.get("inputSchema", item.get("parameters"))
        if not isinstance(schema, dict):
            raise ValueError(f"{source}: tool {item['name']!r} has no object 'inputSchema'")
        specs.append(ToolSpec(item["name"], str(item.get("description", "")), schema))
    return tuple(specs)


SUITE_NAMES = ("infranode",)


def load_suite(name: str) -> Suite:
    """The suite called ``name``; unknown names raise ValueError listing the valid ones."""
    if name == "infranode":
        from tooleval.suites import infranode

        return infranode.load_suite()
    raise ValueError(f"unknown suite {name!r}; choose one of: {', '.join(SUITE_NAMES)}")
