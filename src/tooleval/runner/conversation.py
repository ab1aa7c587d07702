"""The one multi-turn driver: a conversation as a small state machine, ``request()`` ->
provider -> ``answer(response)``, for every suite with a ``Dialogue`` (InfraNode episodes,
Cesium scenarios, the RL environment).

The first request is the single-call runner's request for the task (the suite's messages and
the dialogue's tools), and every answer is read as ``tooleval run`` reads one: parsed with the
dialogue's tools offered (they type XML-parameter values and resolve ``functions.NAME``), the
first scored by the suite's scorer in the run's mode (``format_ok`` included). So first-call
scores equal ``tooleval run``'s for a deterministic model. Each answer is read as:

- native tool calls -> executed in the suite's environment, one ``tool`` message per call
  (a call without an id gets ``call_<round>_<n>``);
- text holding a readable call, where the dialogue reads text calls -> executed, answered with
  the dialogue's prompt-mode feedback message;
- a call that cannot be read (broken JSON, arguments not an object, or a call the provider's
  API itself could not read: ``malformed_call``) -> not executed: an invalid call answered
  with the dialogue's refusal, so the model can repair it;
- any other text -> the final answer: the conversation ends (``answered``; a refusal or a
  filtered answer is recorded as ``stop_class: refused``).

The model's turn goes back into the history with the provider's opaque state
(``provider_data``: thought signatures, thinking blocks), which only the provider reads.

It also ends after ``max_rounds`` model turns (``max_rounds``), on a provider error that
survived the retries or an answer our token budget cut off (``provider_error``), when the
run's request budget is spent mid-way (``budget_exhausted``) or before it starts when the
dialogue blocks the task (``blocked``).
It never stops because the suite's goal looks reached: recovery and final answers are part of
what is measured. No I/O except the environment's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tooleval.parsing import parse_native, parse_response
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.records import (
    ConversationRecord,
    ExecutedCall,
    GenerationRequest,
    GenerationResponse,
    ItemScore,
    Message,
    NativeToolCall,
    ParseResult,
    ToolCall,
    Usage,
)
from tooleval.runner.item import (
    TRUNCATED,
    TRUNCATED_REASONING,
    build_request,
    cut_off,
    model_failure,
    stop_of,
)
from tooleval.runner.records import RunConfig
from tooleval.runner.requests import MAX_REQUESTS
from tooleval.suites.base import Dialogue, EnvironmentUnavailable, Suite, ToolResult

BROKEN_CALL_REASONS = frozenset(
    {"invalid_json", "arguments_not_object", "invalid_arguments_json", "too_deep", "too_large"}
)


def with_call_ids(calls: Sequence[NativeToolCall], round_no: int) -> tuple[NativeToolCall, ...]:
    """The calls with an id each (providers that return none get ``call_<round>_<n>``)."""
    return tuple(
        call if call.call_id else replace(call, call_id=f"call_{round_no}_{i}")
        for i, call in enumerate(calls)
    )


def assistant_turn(response: GenerationResponse, calls: Sequence[NativeToolCall] = ()) -> Message:
    """The model's turn as it goes back into the history (the one place that copies a
    response into a message), with the provider's opaque state for replaying it."""
    return Message(
        "assistant", response.text, tool_calls=tuple(calls), provider_data=response.provider_data
    )


def dialogue_of(suite: Suite[Any]) -> Dialogue[Any]:
    if suite.dialogue is None:
        raise ValueError(f"suite {suite.name!r} has no multi-turn dialogue")
    return suite.dialogue


class Conversation:
    """The running state of one conversation; a session for the dispatcher."""

    def __init__(self, task: Any, repeat: int, suite: Suite[Any], config: RunConfig) -> None:
        self.task = task
        self.repeat = repeat
        self.suite = suite
        self.config = config
        self.dialogue = dialogue_of(suite)
        self.tools = self.dialogue.tools(task)
        self._base = build_request(task, suite, config, self.tools)
        self.messages: list[Message] = list(self._base.messages)
        self.environment = self.dialogue.environment(task)
        self.calls: list[ExecutedCall] = []
        self.usage: list[Usage] = []
        self.first_call: ItemScore | None = None
        self.final_answer: str | None = None
        self.rounds = 0
        self.requests = 0
        self.latency_s = 0.0
        self.ending: str | None = None
        self.error_class: str | None = None
        self.error_message: str | None = None
        self.stop_class: str | None = None
        blocked = self.dialogue.blocked(task)
        if blocked is not None:
            self._end("blocked", None, blocked)

    # --- session protocol ---------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.ending is not None

    @property
    def failed(self) -> bool:
        return self.ending == "provider_error"

    def request(self) -> GenerationRequest:
        return replace(self._base, messages=tuple(self.messages))

    def answer(
        self, response: GenerationResponse, attempts: int = 1, latency_s: float = 0.0
    ) -> None:
        """Take the model's answer for the current request and execute what it asks."""
        self.rounds += 1
        self.requests += attempts
        self.latency_s = latency_s
        self.usage.append(response.usage)
        parsed = model_failure(
            parse_response(response.text, response.tool_calls, self.tools), response
        )
        if self.rounds == 1 and self.suite.scorer is not None:
            self.first_call = self.suite.scorer(self.task, parsed, self.config.mode)
        error = cut_off(parsed, response)
        if error is not None:
            cut = TRUNCATED_REASONING if error is ErrorClass.REASONING_TRUNCATED else TRUNCATED
            self._end("provider_error", error.value, cut)
            return
        try:
            self._play(response, parsed)
        except EnvironmentUnavailable as exc:
            self._end("provider_error", ErrorClass.CONNECTION.value, str(exc))
            return
        if not self.done and self.rounds >= self.config.max_rounds:
            self._end("max_rounds", None, None)

    def error(self, error: ProviderError, latency_s: float = 0.0) -> None:
        self.requests += error.attempts
        self.latency_s = latency_s
        self._end("provider_error", error.error_class.value, str(error))

    def stopped(self, reason: str) -> bool:
        if not reason.startswith(MAX_REQUESTS):
            return False  # interrupted or an error cap: the conversation is left out
        self._end("budget_exhausted", ErrorClass.REQUEST_CAP.value, reason)
        return True

    # --- one model turn ------------------------------------------------------------------

    def _end(self, ending: str, error_class: str | None, message: str | None) -> None:
        self.ending = ending
        self.error_class = error_class
        self.error_message = message

    def _play(self, response: GenerationResponse, parsed: ParseResult) -> None:
        if response.tool_calls:
            self._native_round(response)
        elif stop_of(response) == "malformed_call":
            self._unreadable_round(response, "malformed_call")
        elif self.dialogue.text_calls:
            self._text_round(response, parsed)  # no native calls: ``parsed`` read the text
        else:
            self._final(response)

    def _final(self, response: GenerationResponse) -> None:
        self.messages.append(assistant_turn(response))
        self.final_answer = response.text or ""
        if stop_of(response) == "refused":
            self.stop_class = "refused"
        self._end("answered", None, None)

    def _unreadable_round(self, response: GenerationResponse, reason: str) -> None:
        """A turn whose call could not be read at all: refused, answered with feedback."""
        self.messages.append(assistant_turn(response))
        refused = self._refuse("?", None, "unreadable_call", reason, recorded=reason)
        text = self.dialogue.result_text(refused.body)
        self.messages.append(self.dialogue.prompt_feedback([("?", text)]))

    def _native_round(self, response: GenerationResponse) -> None:
        calls = with_call_ids(response.tool_calls, self.rounds)
        self.messages.append(assistant_turn(response, calls))
        for index, call in enumerate(calls):
            parsed = parse_native([call], self.tools)
            if index >= self.dialogue.max_calls_per_round:
                result = self._refuse(call.name, call.call_id, "too_many_calls", "")
            elif parsed.first is None:
                reason = parsed.reason or "unreadable"
                result = self._refuse(call.name, call.call_id, "unreadable_call", reason)
            else:
                result = self._execute(parsed.first, call.call_id)
            text = self.dialogue.result_text(result.body)
            self.messages.append(Message("tool", text, tool_call_id=call.call_id, name=call.name))

    def _text_round(self, response: GenerationResponse, parsed: ParseResult) -> None:
        if not parsed.ok and parsed.reason not in BROKEN_CALL_REASONS:
            self._final(response)
            return
        self.messages.append(assistant_turn(response))
        results: list[tuple[str, str]] = []
        if not parsed.ok:
            refused = self._refuse("?", None, "unreadable_call", parsed.reason or "")
            results.append(("?", self.dialogue.result_text(refused.body)))
        for index, call in enumerate(parsed.calls):
            if index >= self.dialogue.max_calls_per_round:
                result = self._refuse(call.name, None, "too_many_calls", "")
            else:
                result = self._execute(call, None)
            results.append((call.name, self.dialogue.result_text(result.body)))
        self.messages.append(self.dialogue.prompt_feedback(results))

    def _refuse(
        self, name: str, call_id: str | None, code: str, detail: str, recorded: str | None = None
    ) -> ToolResult:
        """Refuse a call: the model is shown the dialogue's refusal for ``code``; the call is
        recorded with the error ``recorded`` (default ``code``)."""
        result = ToolResult(self.dialogue.refusal(code, detail), False, error=recorded or code)
        self._record(ToolCall(name, {}), call_id, result)
        return result

    def _execute(self, call: ToolCall, call_id: str | None) -> ToolResult:
        result = self.environment.execute(call.name, call.arguments)
        self._record(call, call_id, result)
        return result

    def _record(self, call: ToolCall, call_id: str | None, result: ToolResult) -> None:
        self.calls.append(
            ExecutedCall(
                index=len(self.calls),
                name=call.name.strip(),
                arguments=call.arguments,
                result=result.body,
                round=self.rounds,
                call_id=call_id,
                valid=result.ok,
                error=result.error,
                status=result.status,
                source_status=result.source_status,
            )
        )

    # --- the record ----------------------------------------------------------------------

    def record(self) -> ConversationRecord:
        """The finished conversation, scored by the suite when it ended with the model."""
        base = ConversationRecord(
            task_id=self.task.id,
            category=self.task.category,
            repeat=self.repeat,
            ending=self.ending or "max_rounds",
            transcript=tuple(self.messages),
            calls=tuple(self.calls),
            final_answer=self.final_answer,
            rounds=self.rounds,
            requests=self.requests,
            first_call=self.first_call if self.error_class is None else None,
            error_class=self.error_class,
            error_message=self.error_message,
            usage=tuple(self.usage),
            latency_s=self.latency_s,
            stop_class=self.stop_class,
        )
        if base.ending not in ("answered", "max_rounds"):
            return base
        try:
            score = self.dialogue.score(self.task, base, self.environment)
        except EnvironmentUnavailable as exc:
            error = ErrorClass.CONNECTION.value
            return replace(base, ending="provider_error", error_class=error, error_message=str(exc))
        return replace(base, score=score)
