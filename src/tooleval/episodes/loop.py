"""One episode as a small state machine: ``request()`` -> provider -> ``advance(response)``.

The first request is byte-identical to the single-call runner's (``build_request``), so the
first-call scores equal ``tooleval run``'s for a deterministic model. Each answer is read as:

- native tool calls -> executed, answered with one ``tool`` message per call;
- text holding a readable call (the suite's parser) -> executed, answered with one user message
  (see ``feedback``);
- text whose call cannot be read (broken JSON, arguments not an object) -> an invalid call,
  answered with an error so the model can repair it;
- any other text -> the final answer; the episode ends.

The episode also ends after ``max_rounds`` model turns. No I/O except the tool transport.
"""

from __future__ import annotations

from dataclasses import replace

from tooleval.episodes.feedback import (
    error_body,
    native_feedback,
    prompt_feedback,
    result_text,
    with_call_ids,
)
from tooleval.episodes.records import EpisodeConfig, ExecutedCall
from tooleval.parsing import parse_native, parse_response, parse_text
from tooleval.records import (
    GenerationRequest,
    GenerationResponse,
    ItemScore,
    Message,
    NativeToolCall,
    ParseResult,
    Task,
    ToolCall,
    ToolSpec,
    Usage,
)
from tooleval.runner.item import build_request
from tooleval.runner.records import RunConfig
from tooleval.scoring import score_parse
from tooleval.suites.infranode.client import Transport, execute_tool

BROKEN_CALL_REASONS = frozenset(
    {"invalid_json", "arguments_not_object", "invalid_arguments_json", "too_deep", "too_large"}
)
MAX_CALLS_PER_ROUND = 8


def first_request(
    task: Task, tools: tuple[ToolSpec, ...], config: EpisodeConfig
) -> GenerationRequest:
    """The single-call runner's request for ``task`` under the same settings."""
    run_config = RunConfig(
        mode=config.mode,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        seed=config.seed,
        reasoning=config.reasoning,
    )
    return build_request(task, tools, run_config)


class Episode:
    """The running state of one episode; ``done`` once it has a final answer or ran out."""

    def __init__(
        self, task: Task, tools: tuple[ToolSpec, ...], config: EpisodeConfig, transport: Transport
    ) -> None:
        self.task = task
        self.config = config
        self.transport = transport
        self._base = first_request(task, tools, config)
        self.messages: list[Message] = list(self._base.messages)
        self.calls: list[ExecutedCall] = []
        self.usage: list[Usage] = []
        self.first_call: ItemScore | None = None
        self.final_answer: str | None = None
        self.rounds = 0
        self.done = False
        self.truncated_reasoning = False

    def request(self) -> GenerationRequest:
        return replace(self._base, messages=tuple(self.messages))

    def advance(self, response: GenerationResponse) -> None:
        """Take the model's answer for the current request and execute what it asks."""
        self.rounds += 1
        self.usage.append(response.usage)
        parsed = parse_response(response.text, response.tool_calls)
        if self.rounds == 1:
            self.first_call = score_parse(self.task, parsed)
        if parsed.reason == "reasoning_unterminated" and response.finish_reason == "length":
            self.truncated_reasoning = True
            self.done = True
            return
        if response.tool_calls:
            self._native_round(response)
        else:
            self._text_round(response.text or "", parse_text(response.text))
        if self.rounds >= self.config.max_rounds:
            self.done = True

    def _native_round(self, response: GenerationResponse) -> None:
        calls = with_call_ids(response.tool_calls, self.rounds)
        self.messages.append(Message("assistant", response.text, tool_calls=calls))
        texts = [self._execute_native(call, i) for i, call in enumerate(calls)]
        self.messages.extend(native_feedback(calls, texts))

    def _execute_native(self, call: NativeToolCall, index: int) -> str:
        parsed = parse_native([call])
        if index >= MAX_CALLS_PER_ROUND:
            return self._invalid(call.name, "too_many_calls", "zu viele Aufrufe in einer Runde")
        if parsed.first is None:
            return self._invalid(
                call.name, "unreadable_call", f"Aufruf nicht lesbar: {parsed.reason}"
            )
        return self._execute(parsed.first)

    def _text_round(self, text: str, parsed: ParseResult) -> None:
        self.messages.append(Message("assistant", text))
        if parsed.ok:
            results = [
                (call.name, self._execute(call))
                if i < MAX_CALLS_PER_ROUND
                else (call.name, self._invalid(call.name, "too_many_calls", "zu viele Aufrufe"))
                for i, call in enumerate(parsed.calls)
            ]
            self.messages.append(prompt_feedback(results))
        elif parsed.reason in BROKEN_CALL_REASONS:
            message = f"Aufruf nicht lesbar: {parsed.reason}"
            self.messages.append(
                prompt_feedback([("?", self._invalid("?", "unreadable_call", message))])
            )
        else:
            self.final_answer = text
            self.done = True

    def _invalid(self, name: str, code: str, message: str) -> str:
        body = error_body(code, message)
        self.calls.append(ExecutedCall(self.rounds, name, {}, None, body, False, code))
        return result_text(body, self.config.max_result_chars)

    def _execute(self, call: ToolCall) -> str:
        name = call.name.strip()
        try:
            answer = execute_tool(self.transport, name, call.arguments)
        except ValueError as exc:
            body = error_body("invalid_call", str(exc))
            self.calls.append(
                ExecutedCall(self.rounds, name, call.arguments, None, body, False, "invalid_call")
            )
            return result_text(body, self.config.max_result_chars)
        valid = 200 <= answer.status < 300
        error = None if valid else f"http_{answer.status}"
        self.calls.append(
            ExecutedCall(
                self.rounds, name, call.arguments, answer.status, answer.body, valid, error
            )
        )
        return result_text(answer.body, self.config.max_result_chars)
