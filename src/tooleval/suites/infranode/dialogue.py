"""InfraNode's multi-turn rules: the model's calls run against the InfraNode API (the offline
replica by default, or a base URL) and the slimmed answers go back to it.

Prompt mode reads calls from the model's text and answers with one German user message per
round; native mode answers each call with a ``tool`` message. An episode is scored by its
per-category outcome class (``episodes.scoring``) and, for the first turn, like a single call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import mean
from typing import Any

import httpx

from tooleval.metrics import aggregate
from tooleval.records import (
    ConversationRecord,
    JSONObject,
    Message,
    Mode,
    Task,
    ToolSpec,
)
from tooleval.suites.base import Environment, EnvironmentUnavailable, ToolResult
from tooleval.suites.infranode.api import ApiResponse
from tooleval.suites.infranode.client import Transport, body_status, execute_tool
from tooleval.suites.infranode.episodes.feedback import error_body, prompt_feedback, result_text
from tooleval.suites.infranode.episodes.records import OUTCOMES, EpisodeScore
from tooleval.suites.infranode.episodes.scoring import score_episode

REFUSALS = {
    "unreadable_call": "Aufruf nicht lesbar: {detail}",
    "too_many_calls": "zu viele Aufrufe in einer Runde",
}


class ApiEnvironment:
    """Tool calls executed against the InfraNode API through one transport (stateless)."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def execute(self, name: str, arguments: JSONObject) -> ToolResult:
        try:
            answer = execute_tool(self.transport, name.strip(), arguments)
        except ValueError as exc:  # unknown tool or missing argument: nothing was sent
            return ToolResult(error_body("invalid_call", str(exc)), False, error="invalid_call")
        except httpx.HTTPError as exc:
            raise EnvironmentUnavailable(f"InfraNode API unreachable: {exc}") from None
        ok = 200 <= answer.status < 300
        return ToolResult(
            answer.body,
            ok,
            status=answer.status,
            source_status=body_status(answer.body) if ok else None,
            error=None if ok else f"http_{answer.status}",
        )


class InfraNodeDialogue:
    """The ``Dialogue`` of the InfraNode suite (see ``tooleval.suites.base``)."""

    modes: tuple[Mode, ...] = ("prompt", "native")
    text_calls = True
    max_calls_per_round = 8

    def __init__(
        self, tools: tuple[ToolSpec, ...], transport: Transport, max_result_chars: int = 4000
    ) -> None:
        self._tools = tools
        self.transport = transport
        self.max_result_chars = max_result_chars

    def tools(self, task: Task) -> tuple[ToolSpec, ...]:
        return self._tools

    def blocked(self, task: Task) -> str | None:
        return None

    def environment(self, task: Task) -> Environment:
        return ApiEnvironment(self.transport)

    def result_text(self, body: JSONObject) -> str:
        return result_text(body, self.max_result_chars)

    def prompt_feedback(self, results: Sequence[tuple[str, str]]) -> Message:
        return prompt_feedback(results)

    def refusal(self, code: str, detail: str) -> JSONObject:
        return error_body(code, REFUSALS.get(code, "{detail}").format(detail=detail))

    def score(
        self, task: Task, record: ConversationRecord, environment: Environment
    ) -> EpisodeScore:
        gold = environment.execute(task.gold.name, task.gold.arguments)
        answer = ApiResponse(gold.status or 0, dict(gold.body))
        return score_episode(
            task, record.calls, record.final_answer, answer, record.rounds, self.max_result_chars
        )

    def summarize(
        self, runs: Sequence[tuple[Task, ConversationRecord]], categories: Sequence[str]
    ) -> dict[str, Any]:
        return episode_metrics([record for _, record in runs], categories)


def _mean(values: Sequence[float]) -> float | None:
    return mean(values) if values else None


def _scores(records: Sequence[ConversationRecord]) -> list[tuple[str, EpisodeScore]]:
    return [(r.category, r.score) for r in records if isinstance(r.score, EpisodeScore)]


def episode_metrics(
    records: Sequence[ConversationRecord], categories: Sequence[str]
) -> dict[str, Any]:
    """Success rate (overall and per category), mean steps and calls over scored episodes,
    the outcome counts, and the single-call metrics of the first turn."""
    scored = _scores(records)
    metrics: dict[str, Any] = {
        "success": _mean([s.success for _, s in scored]),
        "mean_steps": _mean([s.steps for _, s in scored]),
        "mean_calls": _mean([s.calls for _, s in scored]),
        "mean_invalid_calls": _mean([s.invalid_calls for _, s in scored]),
        "mean_wasted_calls": _mean([s.wasted_calls for _, s in scored]),
        "answer_grounded": _mean([s.answer_grounded for _, s in scored]),
    }
    for category in categories:
        metrics[f"success_{category}"] = _mean([s.success for c, s in scored if c == category])
    first = [(r.category, r.first_call) for r in records if r.answered and r.first_call]
    counts = Counter(r.outcome for r in records)
    order = [*OUTCOMES, *sorted(set(counts) - set(OUTCOMES))]
    return {
        "metrics": metrics,
        "outcomes": {name: counts[name] for name in order if counts[name]},
        "first_call": aggregate(first, categories),
    }
