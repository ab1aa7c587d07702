"""Records of a run: its configuration and one record per answered (or failed) single-call
item (multi-turn conversations are ``tooleval.records.ConversationRecord``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tooleval.records import (
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
    concurrency: int = 4
    rpm: float | None = None
    resume: bool = False
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


def item_from_json(data: dict[str, Any]) -> ItemRecord:
    """Inverse of ``ItemRecord.to_json``; raises KeyError/TypeError on a malformed record."""
    parsed = data.get("parsed")
    score = data.get("score")
    return ItemRecord(
        task_id=data["task_id"],
        category=data["category"],
        repeat=int(data["repeat"]),
        raw_output=data.get("raw_output"),
        native_calls=tuple(native_call_from_json(c) for c in data.get("native_calls") or []),
        parsed=parse_result_from_json(parsed) if parsed else None,
        score=ItemScore(**score) if score else None,
        error_class=data.get("error_class"),
        error_message=data.get("error_message"),
        latency_s=float(data.get("latency_s") or 0.0),
        usage=Usage(**(data.get("usage") or {})),
        attempts=int(data.get("attempts") or 1),
        finish_reason=data.get("finish_reason"),
        exec_match=data.get("exec_match"),
    )
