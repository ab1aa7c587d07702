"""Records of a run: its configuration and one record per answered (or failed) single-call
item (multi-turn conversations are ``tooleval.records.ConversationRecord``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from tooleval.records import (
    Decoding,
    ItemScore,
    Mode,
    NativeToolCall,
    ParseResult,
    RunItem,
    ToolCall,
    Usage,
    native_call_from_json,
)
from tooleval.runner.requests import RequestPolicy

Range = tuple[float | None, float | None]
# The allowed range of every numeric setting, inclusive (None: no bound). Shared by RunConfig
# and the command line's flag types, so the library and the CLI refuse the same values. Upper
# bounds keep a run within what one machine can do (threads, planned items in memory, waits a
# clock can represent).
INT_RANGES: dict[str, Range] = {
    "concurrency": (1, 1024),
    "repeats": (1, 1000),
    "limit": (1, None),
    "max_requests": (1, None),
    "stop_after_errors": (1, None),
    "max_retries": (0, 100),
    "max_tokens": (1, 1_000_000),
    "max_rounds": (1, 1000),
    "max_result_chars": (1, 100_000_000),
    "seed": (-(2**63), 2**63 - 1),
}
# A timeout and top_p must be > their lower bound; the others >= it (a rate below 0.001 per
# minute, one request in 17 hours, would make a run that never ends).
FLOAT_RANGES: dict[str, Range] = {
    "rpm": (0.001, 1_000_000.0),
    "timeout_s": (0.0, 86_400.0),
    "temperature": (0.0, None),
    "top_p": (0.0, 1.0),
}
EXCLUSIVE_LOW = frozenset({"timeout_s", "top_p"})


def out_of_range(name: str, value: Any) -> str | None:
    """Why ``value`` is not allowed for the setting ``name`` (None when it is)."""
    low, high = INT_RANGES.get(name) or FLOAT_RANGES[name]
    if name in INT_RANGES and (isinstance(value, bool) or not isinstance(value, int)):
        return "must be a whole number"
    if name in FLOAT_RANGES:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if not math.isfinite(value):
            return "must be a finite number"
    if low is not None and (value <= low if name in EXCLUSIVE_LOW else value < low):
        return f"must be > {low:g}" if name in EXCLUSIVE_LOW else f"must be at least {low:g}"
    if high is not None and value > high:
        return f"must be at most {high:g}"
    return None


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a run of any command. Never holds a key: keys come from the
    environment (``api_key_env`` is only the variable's name).

    ``max_rounds`` and ``max_result_chars`` apply to multi-turn runs; ``suite_options`` go to
    the suite (InfraNode: ``api_base_url``; Cesium: ``router``). ``temperature`` and ``top_p``
    None leave sampling to the model family's defaults (``providers.families``). ``tools_check``
    checks that an OpenAI-compatible server put the tools into the prompt (``runner.toolcheck``).
    """

    suite: str = "infranode"
    backend: str = "local"
    model: str = "smollm2-135m-instruct"
    base_url: str | None = None
    endpoint: str | None = None
    preset: str | None = None
    api_key_env: str | None = None
    mode: Mode = "prompt"
    decoding: Decoding = "free"  # local backend: "constrained" = only valid tool calls
    concurrency: int = 4
    rpm: float | None = None
    resume: bool = False
    resume_force: bool = False
    fresh: bool = False
    stop_after_errors: int | None = None
    max_requests: int | None = None
    limit: int | None = None
    repeats: int = 1
    max_tokens: int = 160
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    reasoning: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 4
    output: Path | None = None
    max_rounds: int = 4
    max_result_chars: int = 4000
    categories: tuple[str, ...] = ()
    task_ids: tuple[str, ...] = ()
    suite_options: tuple[tuple[str, str], ...] = ()
    tools_check: bool = True

    def __post_init__(self) -> None:
        for name in (*INT_RANGES, *FLOAT_RANGES):
            value = getattr(self, name)
            problem = None if value is None else out_of_range(name, value)
            if problem is not None:
                raise ValueError(f"RunConfig.{name} {problem}, got {value!r}")

    @property
    def policy(self) -> RequestPolicy:
        return RequestPolicy(
            max_retries=self.max_retries,
            max_requests=self.max_requests,
            stop_after_errors=self.stop_after_errors,
            rpm=self.rpm,
            concurrency=self.concurrency,
        )

    def setup_label(self, multi_turn: bool = False) -> str:
        """The seed's "Setup" column: what differs from the task's defaults."""
        parts: list[str] = [self.mode]
        if self.decoding != "free":
            parts.append(self.decoding)
        if multi_turn:
            parts.append(f"{self.max_rounds} rounds")
        if self.max_tokens != 160:
            parts.append(f"{self.max_tokens} tok")
        if self.reasoning is not None:
            parts.append(f"reasoning={self.reasoning}")
        if self.repeats > 1:
            parts.append(f"x{self.repeats}")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["output"] = str(self.output) if self.output else None
        data["categories"] = list(self.categories)
        data["task_ids"] = list(self.task_ids)
        data["suite_options"] = dict(self.suite_options)
        return data


@dataclass(frozen=True)
class ItemRecord(RunItem):
    """One item's outcome. ``error_class`` set means a provider failure: not scored."""

    raw_output: str | None
    native_calls: tuple[NativeToolCall, ...] = ()
    parsed: ParseResult | None = None
    score: ItemScore | None = None
    error_class: str | None = None
    error_message: str | None = None
    latency_s: float = 0.0
    usage: Usage = field(default_factory=Usage)
    attempts: int = 1
    finish_reason: str | None = None
    exec_match: int | None = None
    run_id: str | None = None  # the fingerprint of the run identity that produced it

    @property
    def answered(self) -> bool:
        return self.error_class is None and self.score is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "category": self.category,
            "repeat": self.repeat,
            "raw_output": self.raw_output,
            "native_calls": [c.to_json() for c in self.native_calls],
            "parsed": parse_result_to_json(self.parsed) if self.parsed else None,
            "score": asdict(self.score) if self.score else None,
            "error_class": self.error_class,
            "error_message": self.error_message,
            "latency_s": round(self.latency_s, 4),
            "usage": asdict(self.usage),
            "attempts": self.attempts,
            "finish_reason": self.finish_reason,
            "exec_match": self.exec_match,
            "run_id": self.run_id,
        }


def parse_result_to_json(result: ParseResult) -> dict[str, Any]:
    return {
        "calls": [c.to_json() for c in result.calls],
        "reason": result.reason,
        "extractor": result.extractor,
        "exact": result.exact,
    }


def parse_result_from_json(data: dict[str, Any]) -> ParseResult:
    calls = tuple(ToolCall(c["name"], c["arguments"]) for c in data.get("calls", []))
    return ParseResult(calls, data.get("reason"), data.get("extractor"), bool(data.get("exact")))


class RecordError(ValueError):
    """A stored item record (a journal line, an entry of ``items``) that is not one; the
    message names the field."""


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """``data[name]`` when it is a ``kind`` (None when missing or null); booleans are never
    numbers here."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise RecordError(f"field {name!r} must not be a boolean, got {value!r}")
    if not isinstance(value, kind):
        names = "/".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise RecordError(f"field {name!r} must be {names}, got {value!r:.60}")
    return value


def _required(data: Mapping[str, Any], name: str, kind: type) -> Any:
    value = _field(data, name, kind)
    if value is None:
        raise RecordError(f"field {name!r} is missing")
    return value


def _flag(data: Mapping[str, Any], name: str) -> int | None:
    value = _field(data, name, (int, bool))
    if value is not None and value not in (0, 1):
        raise RecordError(f"field {name!r} must be 0 or 1, got {value!r}")
    return None if value is None else int(value)


def _object(data: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    value: dict[str, Any] | None = _field(data, name, dict)
    return value


def _score(data: Mapping[str, Any]) -> ItemScore | None:
    raw = _object(data, "score")
    if raw is None:
        return None
    names = {f.name for f in fields(ItemScore)}
    unknown = sorted(set(raw) - names)
    if unknown:
        raise RecordError(f"field 'score' has unknown entries: {', '.join(unknown)}")
    values: dict[str, Any] = {name: _flag(raw, name) for name in raw}
    optional = {f.name for f in fields(ItemScore) if f.default is None}  # format_ok
    if any(value is None and name not in optional for name, value in values.items()):
        raise RecordError("field 'score' holds a null")
    try:
        return ItemScore(**values)
    except TypeError as exc:
        raise RecordError(f"field 'score' is incomplete ({exc})") from None


def _parsed(data: Mapping[str, Any]) -> ParseResult | None:
    raw = _object(data, "parsed")
    if raw is None:
        return None
    calls = _field(raw, "calls", list) or []
    for call in calls:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise RecordError("field 'parsed.calls' holds a call without a name")
        if not isinstance(call.get("arguments"), dict):
            raise RecordError("field 'parsed.calls' holds a call whose arguments are no object")
    return ParseResult(
        tuple(ToolCall(c["name"], c["arguments"]) for c in calls),
        _field(raw, "reason", str),
        _field(raw, "extractor", str),
        bool(_field(raw, "exact", bool)),
    )


def _native_calls(data: Mapping[str, Any]) -> tuple[NativeToolCall, ...]:
    calls = _field(data, "native_calls", list) or []
    for call in calls:
        ok = isinstance(call, dict) and isinstance(call.get("name"), str)
        if not ok or not isinstance(call.get("arguments"), str):
            raise RecordError("field 'native_calls' holds a call without a name or arguments")
    return tuple(native_call_from_json(c) for c in calls)


def _usage(data: Mapping[str, Any]) -> Usage:
    raw = _object(data, "usage") or {}
    unknown = sorted(set(raw) - {f.name for f in fields(Usage)})
    if unknown:
        raise RecordError(f"field 'usage' has unknown entries: {', '.join(unknown)}")
    counts = {name: _field(raw, name, int) for name in raw}
    if any(value is not None and value < 0 for value in counts.values()):
        raise RecordError("field 'usage' holds a negative count")
    return Usage(**counts)


def item_from_json(data: Any) -> ItemRecord:
    """Inverse of ``ItemRecord.to_json``; RecordError (naming the field) for anything that is
    not a well-formed record, so a damaged journal or results file never reaches scoring."""
    if not isinstance(data, dict):
        raise RecordError(f"expected a JSON object, got {type(data).__name__}")
    repeat = _required(data, "repeat", int)
    latency = _field(data, "latency_s", (int, float)) or 0.0
    attempts = _field(data, "attempts", int) or 1
    if repeat < 0 or attempts < 1 or not 0 <= latency < float("inf"):
        raise RecordError("fields 'repeat', 'attempts' or 'latency_s' are out of range")
    return ItemRecord(
        task_id=_required(data, "task_id", str),
        category=_required(data, "category", str),
        repeat=repeat,
        raw_output=_field(data, "raw_output", str),
        native_calls=_native_calls(data),
        parsed=_parsed(data),
        score=_score(data),
        error_class=_field(data, "error_class", str),
        error_message=_field(data, "error_message", str),
        latency_s=float(latency),
        usage=_usage(data),
        attempts=attempts,
        finish_reason=_field(data, "finish_reason", str),
        exec_match=_flag(data, "exec_match"),
        run_id=_field(data, "run_id", str),
    )
