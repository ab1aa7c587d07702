"""A scripted, deterministic provider for tests and dry runs.

A script is a list of replies (or a JSONL file, one reply per line). A reply answers with text,
with native tool calls, or raises a ProviderError of a given class. Replies keyed by ``match``
(a substring of the last user message) or by ``task_id`` (resolved to the task's question via
``questions``) answer the requests they match, in script order per key (the last one for a
key repeats: a key with one reply answers every match); unkeyed replies answer the remaining
requests in order, and the last one repeats. The shipped scripted fake: the tests and
``--backend fake`` use nothing else.

JSONL line examples::

    {"text": "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"koeln\"}}"}
    {"task_id": "rk-003", "tool_calls": [{"name": "get_resource", "arguments": {"key": "x"}}]}
    {"match": "Bahnhof", "error": "rate_limited", "retry_after": 2}
    {"text": "Fertig.", "usage": {"input_tokens": 10, "output_tokens": 3}}
    {"text": "", "finish_reason": "content_filter"}

A ``finish_reason`` may be any provider's word; it is classed as that provider would class it
(``length`` and ``MAX_TOKENS`` are truncated, ``refusal`` and ``SAFETY`` refused,
``MALFORMED_FUNCTION_CALL`` a malformed call). ``provider_data`` (on a reply or a tool call) is
handed back as the provider's opaque state, to test that it round-trips.

``FakeBatchProvider`` answers the same script a batch at a time (the lockstep path).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tooleval.fileio import JsonFileError, loads
from tooleval.providers._shared import dump_args
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.stops import stop_class
from tooleval.records import GenerationRequest, GenerationResponse, NativeToolCall, Usage

_KEYS = frozenset(
    {
        "task_id",
        "match",
        "text",
        "tool_calls",
        "error",
        "retry_after",
        "reasoning",
        "finish_reason",
        "usage",
        "provider_data",
    }
)
_STATUS = {
    ErrorClass.RATE_LIMITED: 429,
    ErrorClass.QUOTA_EXHAUSTED: 429,
    ErrorClass.SERVER_ERROR: 500,
    ErrorClass.CLIENT_ERROR: 400,
}


@dataclass(frozen=True)
class FakeReply:
    """One scripted answer: exactly one of ``text``, ``tool_calls`` or ``error``."""

    text: str | None = None
    tool_calls: tuple[NativeToolCall, ...] = ()
    error: ErrorClass | None = None
    retry_after: float | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    task_id: str | None = None
    match: str | None = None
    usage: Usage = field(default_factory=Usage)
    provider_data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        given = sum((self.text is not None, bool(self.tool_calls), self.error is not None))
        if given != 1:
            raise ValueError("a fake reply needs exactly one of text, tool_calls or error")

    def answer(self) -> GenerationResponse:
        if self.error is not None:
            raise ProviderError(
                self.error,
                f"scripted {self.error.value}",
                status=_STATUS.get(self.error),
                retry_after=self.retry_after,
            )
        finish = self.finish_reason or ("tool_calls" if self.tool_calls else "stop")
        return GenerationResponse(
            text=self.text,
            tool_calls=self.tool_calls,
            usage=self.usage,
            finish_reason=finish,
            reasoning=self.reasoning,
            stop_class=stop_class(finish),
            provider_data=dict(self.provider_data),
        )


def _tool_call(raw: Any, where: str) -> NativeToolCall:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ValueError(f"{where}: each tool call needs a string 'name'")
    arguments = raw.get("arguments", {})
    text = arguments if isinstance(arguments, str) else dump_args(arguments)
    call_id = raw.get("id")
    opaque = raw.get("provider_data") or {}
    if not isinstance(opaque, dict):
        raise ValueError(f"{where}: a tool call's 'provider_data' must be an object")
    return NativeToolCall(raw["name"], text, call_id if isinstance(call_id, str) else None, opaque)


def _error_class(value: Any, where: str) -> ErrorClass | None:
    if value is None:
        return None
    try:
        return ErrorClass(value)
    except ValueError:
        valid = ", ".join(e.value for e in ErrorClass)
        raise ValueError(f"{where}: unknown error {value!r}; valid: {valid}") from None


def parse_reply(raw: Mapping[str, Any], where: str = "reply") -> FakeReply:
    """A FakeReply from one JSON object; errors name ``where`` (e.g. ``script.jsonl:3``)."""
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)}")
    calls = raw.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ValueError(f"{where}: 'tool_calls' must be a list")
    retry_after = raw.get("retry_after")
    opaque = raw.get("provider_data") or {}
    if not isinstance(opaque, dict):
        raise ValueError(f"{where}: 'provider_data' must be an object")
    try:
        return FakeReply(
            text=raw.get("text"),
            tool_calls=tuple(_tool_call(call, where) for call in calls),
            error=_error_class(raw.get("error"), where),
            retry_after=float(retry_after) if retry_after is not None else None,
            reasoning=raw.get("reasoning"),
            finish_reason=raw.get("finish_reason"),
            task_id=raw.get("task_id"),
            match=raw.get("match"),
            usage=Usage(**(raw.get("usage") or {})),
            provider_data=opaque,
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def load_script(path: str | Path) -> list[FakeReply]:
    """Replies from a JSONL file (blank lines and lines starting with ``#`` are skipped)."""
    replies = []
    text = Path(path).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        try:
            raw = loads(line, where)
        except JsonFileError as exc:
            raise ValueError(f"{where}: not JSON ({exc.message})") from None
        if not isinstance(raw, dict):
            raise ValueError(f"{where}: expected a JSON object")
        replies.append(parse_reply(raw, where))
    if not replies:
        raise ValueError(f"{path}: the script has no replies")
    return replies


def _last_user_text(request: GenerationRequest) -> str:
    for message in reversed(request.messages):
        if message.role == "user":
            return message.content or ""
    return ""


class FakeProvider:
    """Answers from a script; records every request in ``requests``. Thread-safe."""

    name = "fake"

    def __init__(
        self,
        script: Sequence[FakeReply] | str | Path,
        *,
        questions: Mapping[str, str] | None = None,
    ) -> None:
        replies = load_script(script) if isinstance(script, (str, Path)) else list(script)
        self._keyed: dict[str, list[FakeReply]] = {}
        self._ordered: list[FakeReply] = []
        for reply in replies:
            if reply.task_id is not None:
                if questions is None or reply.task_id not in questions:
                    raise ValueError(f"fake reply for task {reply.task_id!r}: question unknown")
                self._keyed.setdefault(questions[reply.task_id], []).append(reply)
            elif reply.match is not None:
                self._keyed.setdefault(reply.match, []).append(reply)
            else:
                self._ordered.append(reply)
        self._lock = threading.Lock()
        self._next = 0
        self._used: dict[str, int] = {}
        self.requests: list[GenerationRequest] = []

    def __repr__(self) -> str:
        return f"FakeProvider(keyed={len(self._keyed)}, ordered={len(self._ordered)})"

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        return self._pick(request).answer()

    def _pick(self, request: GenerationRequest) -> FakeReply:
        text = _last_user_text(request)
        with self._lock:
            self.requests.append(request)
            for needle, keyed in self._keyed.items():
                if needle in text:
                    used = self._used.get(needle, 0)
                    self._used[needle] = used + 1
                    return keyed[min(used, len(keyed) - 1)]
            if not self._ordered:
                raise ProviderError(ErrorClass.OTHER, f"no scripted reply matches {text[:80]!r}")
            reply = self._ordered[min(self._next, len(self._ordered) - 1)]
            self._next += 1
            return reply


class FakeBatchProvider(FakeProvider):
    """The same script, answered a batch at a time (as the embedded model answers): for tests of
    the lockstep path. Errors come back in the list instead of being raised."""

    def __init__(
        self,
        script: Sequence[FakeReply] | str | Path,
        *,
        questions: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(script, questions=questions)
        self.batches: list[int] = []  # the size of every batch asked for

    def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse | ProviderError]:
        self.batches.append(len(requests))
        answers: list[GenerationResponse | ProviderError] = []
        for request in requests:
            try:
                answers.append(self.generate(request))
            except ProviderError as error:
                answers.append(error)
        return answers
