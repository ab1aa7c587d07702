"""Frozen records shared by every part of tooleval.

Records are plain data: built by suites, parsers, providers and the runner, serialised only
at the edges (JSONL files, results files, HTTP bodies). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

JSONObject = Mapping[str, Any]

Mode = Literal["prompt", "native"]
"""How tools reach the model: written into the prompt, or through the provider's tools API."""

ProviderData = Mapping[str, Any]
"""Opaque per-provider state of an assistant turn or call, keyed by the wire format that wrote
it (``gemini``, ``anthropic``, ``openai``): thought signatures, thinking blocks, reasoning
fields. Filled by a provider's parser, replayed verbatim by the same provider's body builder;
nothing else reads it (see ``tooleval.providers.history``)."""


def _with_provider_data(data: dict[str, Any], provider_data: ProviderData) -> dict[str, Any]:
    if provider_data:
        data["provider_data"] = dict(provider_data)
    return data


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
    provider_data: ProviderData = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = {"name": self.name, "arguments": self.arguments, "call_id": self.call_id}
        return _with_provider_data(data, self.provider_data)


def native_call_from_json(data: Mapping[str, Any]) -> NativeToolCall:
    """Inverse of ``NativeToolCall.to_json`` (also reads the id as ``id``, an older spelling)."""
    call_id = data.get("call_id", data.get("id"))
    extra = data.get("provider_data")
    opaque = dict(extra) if isinstance(extra, Mapping) else {}
    return NativeToolCall(str(data["name"]), str(data["arguments"]), call_id, opaque)


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
    """One chat message. Assistant messages may carry tool calls; tool messages answer one.
    ``provider_data`` keeps what the provider needs to replay an assistant turn exactly."""

    role: Role
    content: str | None
    tool_calls: tuple[NativeToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    provider_data: ProviderData = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The message as a transcript entry; tool calls keep their raw argument text."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_json() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        return _with_provider_data(data, self.provider_data)


def message_from_json(data: Mapping[str, Any]) -> Message:
    """Inverse of ``Message.to_json``."""
    calls = tuple(native_call_from_json(c) for c in data.get("tool_calls") or ())
    extra = data.get("provider_data")
    opaque = dict(extra) if isinstance(extra, Mapping) else {}
    return Message(
        data["role"], data.get("content"), calls, data.get("tool_call_id"), data.get("name"), opaque
    )


@dataclass(frozen=True)
class GenerationRequest:
    """What the runner asks a provider for. ``tools`` is empty in prompt mode.

    ``temperature`` and ``top_p`` None leave the choice to the model family's entry in the
    capability table (``tooleval.providers.capabilities``): temperature 0 where the family takes
    any value, nothing where it accepts only its default or its guide advises against changing
    it; ``top_p`` is then not sent. A value given is sent, or refused before any request where
    the family's API rejects it.
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 160
    temperature: float | None = None
    seed: int | None = None
    reasoning: str | None = None
    stop: tuple[str, ...] = ()
    top_p: float | None = None


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None


StopClass = Literal["done", "truncated", "malformed_call", "refused"]
"""Why an answer ended, the same for every backend (``tooleval.providers.stops`` maps each
provider's finish reasons): ``done`` (the model finished), ``truncated`` (cut off by our token
budget: a setup problem, rerun with a larger one), ``malformed_call`` (the model produced a
call the API could not read: model behaviour, scored), ``refused`` (a refusal or a safety
filter: model behaviour, scored)."""


@dataclass(frozen=True)
class GenerationResponse:
    """A provider's answer, reduced to what scoring and reports need.

    ``finish_reason`` is the provider's own word; ``stop_class`` its class in the one taxonomy
    (None: not reported, read as ``done``). ``provider_data`` is the opaque state the provider
    needs to have this turn replayed (copied onto the history's assistant message).
    """

    text: str | None
    tool_calls: tuple[NativeToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    reasoning: str | None = None
    stop_class: StopClass | None = None
    provider_data: ProviderData = field(default_factory=dict)


@dataclass(frozen=True)
class ExecutedCall:
    """One tool call a model made in a multi-turn run, and what the environment answered.

    ``index`` counts the run's calls from 0 and ``round`` its model turns from 1. ``result`` is
    the environment's JSON answer (for an unreadable or refused call, the error body the model
    was shown). ``valid`` is False for an unreadable call, an unknown or unoffered tool,
    arguments that break the schema and an error answer. ``status`` is the HTTP status where
    the environment is an HTTP API; ``source_status`` what it said about its data source
    (InfraNode: ``ok``, ``not_covered``, …), None elsewhere.
    """

    index: int
    name: str
    arguments: JSONObject
    result: JSONObject
    round: int = 0
    call_id: str | None = None
    valid: bool = True
    error: str | None = None
    status: int | None = None
    source_status: str | None = None

    @property
    def body(self) -> JSONObject:
        """``result`` under the name the InfraNode scorers use (the API's JSON body)."""
        return self.result

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "round": self.round,
            "call_id": self.call_id,
            "name": self.name,
            "arguments": dict(self.arguments),
            "valid": self.valid,
            "error": self.error,
            "status": self.status,
            "source_status": self.source_status,
            "result": dict(self.result),
        }


def executed_call_from_json(data: Mapping[str, Any], index: int = 0) -> ExecutedCall:
    """Inverse of ``ExecutedCall.to_json`` (older files lack index, call id and result)."""
    arguments = data.get("arguments")
    return ExecutedCall(
        index=int(data.get("index", index)),
        name=str(data["name"]),
        arguments=arguments if isinstance(arguments, dict) else {},
        result=data.get("result") or data.get("body") or {},
        round=int(data.get("round") or 0),
        call_id=data.get("call_id", data.get("id")),
        valid=bool(data.get("valid", True)),
        error=data.get("error"),
        status=data.get("status"),
        source_status=data.get("source_status"),
    )


ENDINGS = ("answered", "max_rounds", "provider_error", "budget_exhausted", "blocked")
"""How a multi-turn conversation ended: the model stopped calling tools (``answered``), it ran
out of rounds, a provider error survived the retries, tooleval's request budget ran out, or
the suite refused to start it (``blocked``, e.g. Cesium's routing miss)."""


class ConversationScore(Protocol):
    """What a suite's multi-turn scorer returns: a verdict class, a 0/1 success, and JSON."""

    @property
    def outcome(self) -> str: ...

    @property
    def success(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RunItem:
    """One planned item of a run: which task (and its category), which repeat."""

    task_id: str
    category: str
    repeat: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.task_id, self.repeat)


@dataclass(frozen=True)
class ConversationRecord(RunItem):
    """One finished multi-turn conversation (an InfraNode episode, a Cesium scenario run).

    ``score`` is the suite's verdict; None when the conversation did not end with the model
    (``provider_error``, ``budget_exhausted``, ``blocked``): such runs are counted, never
    scored as model answers. ``first_call`` scores the first turn like a single-call run where
    the suite has a single-call scorer. ``stop_class`` is ``refused`` when the model's last turn
    was a refusal or was filtered (scored: model behaviour), else None.
    """

    ending: str
    transcript: tuple[Message, ...]
    calls: tuple[ExecutedCall, ...]
    final_answer: str | None
    rounds: int
    requests: int = 0
    first_call: ItemScore | None = None
    score: ConversationScore | None = None
    error_class: str | None = None
    error_message: str | None = None
    usage: tuple[Usage, ...] = ()
    latency_s: float = 0.0
    stop_class: str | None = None

    @property
    def answered(self) -> bool:
        return self.error_class is None and self.score is not None

    @property
    def outcome(self) -> str:
        """The suite's verdict class, or the ending for a run that was not scored."""
        return self.score.outcome if self.score is not None else self.ending

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "category": self.category,
            "repeat": self.repeat,
            "ending": self.ending,
            "outcome": self.outcome,
            "score": self.score.to_json() if self.score is not None else None,
            "first_call": asdict(self.first_call) if self.first_call else None,
            "final_answer": self.final_answer,
            "rounds": self.rounds,
            "requests": self.requests,
            "calls": [call.to_json() for call in self.calls],
            "transcript": [message.to_json() for message in self.transcript],
            "error_class": self.error_class,
            "error_message": self.error_message,
            "stop_class": self.stop_class,
            "usage": [asdict(u) for u in self.usage],
            "latency_s": round(self.latency_s, 4),
        }
