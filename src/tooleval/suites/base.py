"""The suite plug-in interface: everything a benchmark suite gives the rest of tooleval.

A ``Suite`` is a named, versioned set of tasks and tools with

- its message builder, ``messages(task, mode)``: the suite's own prompt;
- its single-call scorer (optional): ``scorer(task, parsed, mode) -> ItemScore`` (``mode``: the
  run's, for ``format_ok``), plus ``exec_match`` where the suite can execute calls
  (``tooleval run``); the runner parses answers with the suite's tools offered;
- its multi-turn rules (optional), a ``Dialogue``: the tools offered per task, a fresh
  ``Environment`` per conversation (``execute(name, arguments) -> ToolResult``), how a result
  is shown to the model, and the conversation scorer and metrics (``tooleval episodes``,
  ``tooleval model-tools``, the RL environment).

The runner, the multi-turn driver, reports and exports only talk to suites through this
interface; ``tooleval.suites.SUITES`` maps names to the modules that build them. See
docs/adding-a-suite.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from tooleval.records import (
    ConversationRecord,
    ConversationScore,
    ItemScore,
    JSONObject,
    Message,
    Mode,
    ParseResult,
    ToolCall,
    ToolSpec,
)


class SuiteTask(Protocol):
    """What every task of every suite has: a stable id and a category (for per-category rates)."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> str: ...


T = TypeVar("T", bound=SuiteTask)
T_contra = TypeVar("T_contra", bound=SuiteTask, contravariant=True)


@dataclass(frozen=True)
class ToolResult:
    """An environment's answer to one call: the JSON the model is shown, and whether it worked.

    ``status`` is the HTTP status where the environment is an HTTP API; ``source_status`` what
    it says about its data source (InfraNode's ``meta.source_status``); ``error`` a short code
    when ``ok`` is False (``http_404``, ``invalid_arguments``, …).
    """

    body: JSONObject
    ok: bool
    status: int | None = None
    source_status: str | None = None
    error: str | None = None


class EnvironmentUnavailable(Exception):
    """The environment itself failed (an API that cannot be reached): not the model's fault, so
    the conversation ends unscored, like a provider error."""


class Environment(Protocol):
    """The world a multi-turn conversation acts on: executes one tool call, never raises for a
    bad call (that is an answer with ``ok`` False). A fresh one is made per conversation."""

    def execute(self, name: str, arguments: JSONObject) -> ToolResult: ...


class Dialogue(Protocol[T_contra]):
    """A suite's multi-turn rules, used by the one multi-turn driver (``tooleval.runner``)."""

    @property
    def modes(self) -> tuple[Mode, ...]:
        """The modes a conversation can run in (``native``; ``prompt`` if calls can be read
        from text)."""
        ...

    @property
    def text_calls(self) -> bool:
        """Whether calls written as text are executed (else text is the final answer)."""
        ...

    @property
    def max_calls_per_round(self) -> int:
        """Calls beyond this many in one model turn are refused, not executed."""
        ...

    def tools(self, task: T_contra) -> tuple[ToolSpec, ...]:
        """The tools offered in this task's conversation."""
        ...

    def blocked(self, task: T_contra) -> str | None:
        """Why this task's conversation must not start (e.g. a routing miss), or None."""
        ...

    def environment(self, task: T_contra) -> Environment:
        """A fresh environment for one conversation."""
        ...

    def result_text(self, body: JSONObject) -> str:
        """The text the model reads for one tool result."""
        ...

    def prompt_feedback(self, results: Sequence[tuple[str, str]]) -> Message:
        """Prompt mode: one message with every ``(tool name, result text)`` of a round."""
        ...

    def refusal(self, code: str, detail: str) -> JSONObject:
        """The body shown for a call tooleval did not execute: ``unreadable_call`` (``detail`` is
        the parser's reason) or ``too_many_calls``."""
        ...

    def score(
        self, task: T_contra, record: ConversationRecord, environment: Environment
    ) -> ConversationScore:
        """The verdict on a conversation that ended with the model (answered or max_rounds)."""
        ...

    def summarize(
        self, runs: Sequence[tuple[T_contra, ConversationRecord]], categories: Sequence[str]
    ) -> dict[str, Any]:
        """The suite's metrics over a run's conversations: a dict whose ``metrics`` key holds
        the headline rates (``success`` first); any other keys become further sections of the
        results file (outcome counts, an original harness's metrics, …)."""
        ...


MessageBuilder = Callable[[Any, Mode], tuple[Message, ...]]
Scorer = Callable[[Any, ParseResult, Mode], ItemScore]
ExecMatch = Callable[[Any, ToolCall | None], int]


@dataclass(frozen=True)
class Suite(Generic[T]):
    """A named, versioned set of tools and tasks with its category list (in report order).

    ``scorer`` (single call) and ``dialogue`` (multi-turn) say which ways of running the suite
    supports; ``exec_match`` tells whether a call gets the gold call's answer when it is not
    canonical (reported apart from ``call_match``).
    """

    name: str
    version: str
    tools: tuple[ToolSpec, ...]
    tasks: tuple[T, ...]
    categories: tuple[str, ...]
    messages: MessageBuilder
    scorer: Scorer | None = None
    exec_match: ExecMatch | None = None
    dialogue: Dialogue[T] | None = None

    @property
    def tools_hash(self) -> str:
        return tools_hash(self.tools)

    def summary(self, tasks: Sequence[T]) -> dict[str, Any]:
        """What a results file says about the suite it ran."""
        planned: dict[str, int] = {}
        for task in tasks:
            planned[task.category] = planned.get(task.category, 0) + 1
        return {
            "name": self.name,
            "version": self.version,
            "tools_hash": self.tools_hash,
            "categories": list(self.categories),
            "n_tasks": len(tasks),
            "planned_by_category": planned,
        }


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
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise ValueError(f"{source}: tool #{index} has no string 'name'")
        schema = item.get("inputSchema", item.get("parameters"))
        if not isinstance(schema, dict):
            raise ValueError(f"{source}: tool {item['name']!r} has no object 'inputSchema'")
        specs.append(ToolSpec(item["name"], str(item.get("description", "")), schema))
    return tuple(specs)
