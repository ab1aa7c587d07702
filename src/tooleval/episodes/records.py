"""Records of a multi-step episode: one executed tool call, one finished episode."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tooleval.records import ItemScore, JSONObject, Message, Usage
from tooleval.suites.infranode.generator import body_status

Mode = Literal["prompt", "native"]

OUTCOMES = (
    "success",
    "no_call",
    "wrong_call",
    "wrong_order",
    "hallucinated_eva",
    "wrong_station",
    "incomplete",
    "per_city_calls",
    "invented_data",
    "gap_not_reported",
    "no_answer",
    "contradicted",
    "ungrounded",
    "provider_error",
)
"""Outcome classes, most specific first; ``provider_error`` episodes are never scored."""


@dataclass(frozen=True)
class EpisodeConfig:
    """Everything that defines an episode run. Never holds a key."""

    backend: str = "local"
    model: str = "smollm2-135m-instruct"
    base_url: str | None = None
    preset: str | None = None
    mode: Mode = "prompt"
    api_base_url: str | None = None
    max_rounds: int = 4
    max_result_chars: int = 4000
    concurrency: int = 4
    rpm: float | None = None
    limit: int | None = None
    categories: tuple[str, ...] = ()
    max_tokens: int = 160
    temperature: float = 0.0
    seed: int | None = None
    reasoning: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 4
    output: Path | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["output"] = str(self.output) if self.output else None
        data["categories"] = list(self.categories)
        return data


@dataclass(frozen=True)
class ExecutedCall:
    """One tool call the model made and what the API answered.

    ``valid`` is False for an unreadable call, an unknown tool, missing arguments or an API
    error status (4xx/5xx); ``body`` is the API's JSON body, or a tooleval error body.
    """

    round: int
    name: str
    arguments: JSONObject
    status: int | None
    body: JSONObject
    valid: bool
    error: str | None = None

    @property
    def source_status(self) -> str | None:
        return body_status(self.body) if self.valid else None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "name": self.name,
            "arguments": dict(self.arguments),
            "status": self.status,
            "source_status": self.source_status,
            "valid": self.valid,
            "error": self.error,
        }


@dataclass(frozen=True)
class EpisodeScore:
    """Per-episode measurements (see docs/episodes.md)."""

    outcome: str
    success: int
    steps: int
    calls: int
    invalid_calls: int
    wasted_calls: int
    facts_supported: int
    facts_unsupported: int
    answer_grounded: int
    facts_contradicted: int = 0
    answer_decided: int = 1


@dataclass(frozen=True)
class EpisodeRecord:
    """One finished episode: transcript, executed calls, first-call score and episode score."""

    task_id: str
    category: str
    transcript: tuple[Message, ...]
    calls: tuple[ExecutedCall, ...]
    final_answer: str | None
    first_call: ItemScore | None
    score: EpisodeScore | None
    error_class: str | None = None
    error_message: str | None = None
    usage: tuple[Usage, ...] = field(default_factory=tuple)
    latency_s: float = 0.0

    @property
    def answered(self) -> bool:
        return self.error_class is None and self.score is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "category": self.category,
            "outcome": self.score.outcome if self.score else "provider_error",
            "score": asdict(self.score) if self.score else None,
            "first_call": asdict(self.first_call) if self.first_call else None,
            "final_answer": self.final_answer,
            "calls": [call.to_json() for call in self.calls],
            "transcript": [message_to_json(m) for m in self.transcript],
            "error_class": self.error_class,
            "error_message": self.error_message,
            "usage": [asdict(u) for u in self.usage],
            "latency_s": round(self.latency_s, 4),
        }


def message_to_json(message: Message) -> dict[str, Any]:
    """A transcript message; tool calls keep their raw argument text."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [asdict(call) for call in message.tool_calls]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        data["name"] = message.name
    return data
