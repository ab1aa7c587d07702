"""One single-call item as a session: one request in, one ItemRecord out. No I/O here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tooleval.parsing import parse_response
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.stops import stop_class
from tooleval.records import (
    GenerationRequest,
    GenerationResponse,
    Mode,
    ParseResult,
    Task,
    ToolSpec,
)
from tooleval.runner.records import ItemRecord, RunConfig
from tooleval.scoring import score_parse
from tooleval.suites.base import Suite

TRUNCATED_REASONING = "the token budget ended inside the reasoning; no answer was produced"
TRUNCATED = "the token budget ended before a readable answer; rerun with a larger --max-tokens"


CUT_REASONS = frozenset(
    {"empty", "invalid_json", "invalid_arguments_json", "reasoning_unterminated"}
)
"""Parser reasons that, in an answer our budget cut off, mean the cut fell before or inside a
call (or inside the reasoning). Prose with no call begun (``no_json``) stays the model's
answer even when cut."""


def stop_of(response: GenerationResponse) -> str:
    """The answer's class in the one taxonomy (from its finish reason when the provider did
    not class it, e.g. the embedded model's ``length``)."""
    return response.stop_class or stop_class(response.finish_reason)


def cut_off(parsed: ParseResult, response: GenerationResponse) -> ErrorClass | None:
    """The error for an answer our token budget cut off before a readable call (a setup
    problem, never scored): REASONING_TRUNCATED when it stopped inside the reasoning, else
    TRUNCATED. None when the answer holds a readable call, is prose without a call begun, or
    ended on its own."""
    if parsed.ok or stop_of(response) != "truncated" or parsed.reason not in CUT_REASONS:
        return None
    if parsed.reason == "reasoning_unterminated":
        return ErrorClass.REASONING_TRUNCATED
    return ErrorClass.TRUNCATED


def model_failure(parsed: ParseResult, response: GenerationResponse) -> ParseResult:
    """A refusal or a call the API could not read is the model's answer, scored as a miss of
    its own class (``refused``, ``malformed_call``) rather than as text without a call."""
    stop = stop_of(response)
    if parsed.ok or stop not in ("refused", "malformed_call"):
        return parsed
    return ParseResult((), reason=stop)


def build_request(
    task: Any, suite: Suite[Any], config: RunConfig, tools: tuple[ToolSpec, ...] | None = None
) -> GenerationRequest:
    """The request for one item: the suite's messages; native mode sends the tools through the
    provider's API (``tools``, default the suite's)."""
    mode: Mode = config.mode
    return GenerationRequest(
        messages=suite.messages(task, mode),
        tools=(suite.tools if tools is None else tools) if mode == "native" else (),
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        seed=config.seed,
        reasoning=config.reasoning,
        top_p=config.top_p,
    )


def record_from_response(
    task: Task,
    repeat: int,
    response: GenerationResponse,
    latency_s: float,
    attempts: int = 1,
    suite: Suite[Any] | None = None,
    mode: Mode = "prompt",
) -> ItemRecord:
    """Parse and score an answer; an answer our budget cut off is an error, not a miss.

    The suite's tools (the ones its prompt offers) type the values of XML-parameter dialects
    and resolve namespaced tool names; ``mode`` (the run's) decides ``format_ok``.
    """
    tools = suite.tools if suite is not None else ()
    parsed = model_failure(parse_response(response.text, response.tool_calls, tools), response)
    base = ItemRecord(
        task_id=task.id,
        category=task.category,
        repeat=repeat,
        raw_output=response.text,
        native_calls=response.tool_calls,
        parsed=parsed,
        latency_s=latency_s,
        usage=response.usage,
        attempts=attempts,
        finish_reason=response.finish_reason,
    )
    error = cut_off(parsed, response)
    if error is not None:
        message = TRUNCATED_REASONING if error is ErrorClass.REASONING_TRUNCATED else TRUNCATED
        return replace(base, error_class=error.value, error_message=message)
    scorer = suite.scorer if suite is not None and suite.scorer is not None else score_parse
    return replace(base, score=scorer(task, parsed, mode))


def record_from_error(
    task: Task, repeat: int, error: ProviderError, latency_s: float, attempts: int
) -> ItemRecord:
    return ItemRecord(
        task_id=task.id,
        category=task.category,
        repeat=repeat,
        raw_output=None,
        error_class=error.error_class.value,
        error_message=str(error),
        latency_s=latency_s,
        attempts=attempts,
    )


class ItemSession:
    """A single-call item for the dispatcher: done after its one answer (or error)."""

    def __init__(self, task: Task, repeat: int, suite: Suite[Task], config: RunConfig) -> None:
        self.task = task
        self.repeat = repeat
        self.suite = suite
        self.mode: Mode = config.mode
        self._request = build_request(task, suite, config)
        self.record: ItemRecord | None = None

    @property
    def done(self) -> bool:
        return self.record is not None

    @property
    def failed(self) -> bool:
        return self.record is not None and self.record.error_class is not None

    def request(self) -> GenerationRequest:
        return self._request

    def answer(self, response: GenerationResponse, attempts: int, latency_s: float) -> None:
        self.record = record_from_response(
            self.task, self.repeat, response, latency_s, attempts, self.suite, self.mode
        )

    def error(self, error: ProviderError, latency_s: float) -> None:
        self.record = record_from_error(self.task, self.repeat, error, latency_s, error.attempts)

    def stopped(self, reason: str) -> bool:
        return False  # an unanswered item is asked again by --resume
