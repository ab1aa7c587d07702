"""Frozen records shared by every part of tooleval.

Records are plain data: built by suites, parsers, providers and the runner, serialised only
at the edges (JSONL files, results files, HTTP bodies). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

JSONObject = Mapping[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    """One tool as a model sees it: a name, a description and a JSON Schema for its arguments."""

    name: str
    description: str
    parameters: JSONObject

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }

    def to_mcp(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": dict(self.parameters),
        }


@dataclass(frozen=True)
class ToolCall:
    """A tool call with decoded arguments (a JSON object)."""

    name: str
    arguments: JSONObject

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True)
class NativeToolCall:
    """A tool call exactly as a provider's function-calling API returned it.

    ``arguments`` is the raw JSON text (OpenAI sends a string; Gemini and Anthropic objects are
    serialised to text by their provider module) so that invalid JSON stays visible to the parser.
    """

    name: str
    arguments: str
    call_id: str | None = None


@dataclass(frozen=True)
class ParseResult:
    """The outcome of parsing one model output: the calls found, or why none was found.

    ``reason`` is None exactly when ``calls`` is non-empty. ``extractor`` names the extractor
    that succeeded (e.g. ``"json_object"``, ``"code_fence"``, ``"native"``). ``exact`` is True
    when the output was exactly the canonical form, with nothing repaired: one JSON object
    ``{"name", "arguments"}`` as the whole text, or native calls (see ``tooleval.parsing``).
    """

    calls: tuple[ToolCall, ...]
    reason: str | None = None
    extractor: str | None = None
    exact: bool = False

    @property
    def first(self) -> ToolCall | None:
        return self.calls[0] if self.calls else None

    @property
    def ok(self) -> bool:
        return bool(self.calls)


@dataclass(frozen=True)
class Task:
    """One benchmark item: a question and its single gold call.

    ``alternatives`` maps an argument name to further accepted values; an argument that may be
    omitted lists ``None`` among its alternatives (only for arguments absent from ``gold``).
    """

    id: str
    category: str
    question: str
    gold: ToolCall
    suite_version: str
    alternatives: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    provenance: JSONObject = field(default_factory=dict)


@dataclass(frozen=True)
class ItemScore:
    """The per-item metrics. Each is 0 or 1.

    ``parsed``, ``tool_match``, ``args_match`` and ``call_match`` score the first tool call,
    whatever dialect it was written in. ``format_ok`` scores the form of the whole output: 1
    when it followed the format the prompt asked for (see ``tooleval.scoring.format_ok``);
    None when the mode was not known (records written before the metric existed).
    """

    parsed: int
    tool_match: int
    args_match: int
    call_match: int
    format_ok: int | None = None


Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class Message:
    """One chat message. Assistant messages may carry tool calls; tool messages answer one."""

    role: Role
    content: str | None
    tool_calls: tuple[NativeToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class GenerationRequest:
    """What the runner asks a provider for. ``tools`` is empty in prompt mode."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 160
    temperature: float = 0.0
    seed: int | None = None
    reasoning: str | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class GenerationResponse:
    """A provider's answer, reduced to what scoring and reports need."""

    text: str | None
    tool_calls: tuple[NativeToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    reasoning: str | None = None
