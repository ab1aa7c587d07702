"""Run one item: request in, record out. No files, no threads, no retries here."""

from __future__ import annotations

from dataclasses import replace

from tooleval.parsing import parse_response
from tooleval.prompting import build_messages
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse, Task, ToolSpec
from tooleval.runner.records import ItemRecord, Mode, RunConfig
from tooleval.scoring import score_parse


def build_request(task: Task, tools: tuple[ToolSpec, ...], config: RunConfig) -> GenerationRequest:
    """The request for one item; native mode sends the tools through the provider's API."""
    return GenerationRequest(
        messages=build_messages(task.question, tools, config.mode),
        tools=tools if config.mode == "native" else (),
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        seed=config.seed,
        reasoning=config.reasoning,
    )


def record_from_response(
    task: Task,
    repeat: int,
    response: GenerationResponse,
    latency_s: float,
    attempts: int = 1,
    tools: tuple[ToolSpec, ...] = (),
    mode: Mode | None = None,
) -> ItemRecord:
    """Parse and score an answer; output cut off inside reasoning is an error, not a miss.

    ``tools`` (the suite's) type the values of XML-parameter dialects and resolve namespaced
    tool names; ``mode`` (the run's) decides ``format_ok``.
    """
    parsed = parse_response(response.text, response.tool_calls, tools)
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
    if parsed.reason == "reasoning_unterminated" and response.finish_reason == "length":
        message = "the token budget ended inside the reasoning; no answer was produced"
        return replace(
            base, error_class=ErrorClass.REASONING_TRUNCATED.value, error_message=message
        )
    return replace(base, score=score_parse(task, parsed, mode))


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
