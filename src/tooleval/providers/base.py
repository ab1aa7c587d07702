"""The one small protocol every provider module implements, and its error type.

Providers build a request, send it once and parse the answer. They never retry, pace or
parallelise: retries, rate limits and concurrency live once, in the runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

from tooleval.records import GenerationRequest, GenerationResponse
from tooleval.redaction import redact


class ErrorClass(StrEnum):
    """Why a provider call failed. None of these is ever scored as a model answer: a
    refusal and a malformed call are answers (``records.StopClass``), not errors."""

    RATE_LIMITED = "rate_limited"  # 429 without a quota message
    QUOTA_EXHAUSTED = "quota_exhausted"  # 429/403 whose body says the quota is spent
    SERVER_ERROR = "server_error"  # 5xx
    CLIENT_ERROR = "client_error"  # other 4xx (bad request, auth, not found)
    TIMEOUT = "timeout"
    CONNECTION = "connection"  # refused, reset, DNS
    INVALID_BODY = "invalid_body"  # not JSON, truncated, wrong shape
    EMPTY_CHOICES = "empty_choices"  # a valid body with no answer in it
    REASONING_TRUNCATED = "reasoning_truncated"  # budget spent inside reasoning, no answer
    TRUNCATED = "truncated"  # cut off by our token budget before a readable answer
    REQUEST_CAP = "request_cap"  # tooleval's own --max-requests reached
    OTHER = "other"


RETRYABLE = frozenset(
    {ErrorClass.RATE_LIMITED, ErrorClass.SERVER_ERROR, ErrorClass.TIMEOUT, ErrorClass.CONNECTION}
)


class ProviderError(Exception):
    """A failed provider call. The message never contains a key: every known secret in it is
    masked here (``tooleval.redaction``), whichever path built it. ``target`` is the URL a
    transport failure was about (for the dead-endpoint check of the request path)."""

    def __init__(
        self,
        error_class: ErrorClass,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        target: str | None = None,
    ) -> None:
        super().__init__(redact(message))
        self.error_class = error_class
        self.status = status
        self.retry_after = retry_after
        self.target = redact(target) if target else None
        self.attempts = 1  # set by the request path to the attempts the request took

    @property
    def retryable(self) -> bool:
        return self.error_class in RETRYABLE


@runtime_checkable
class Provider(Protocol):
    """A model behind an API or in-process. ``generate`` answers one request or raises."""

    name: str

    def generate(self, request: GenerationRequest) -> GenerationResponse: ...


@runtime_checkable
class BatchProvider(Provider, Protocol):
    """A provider that answers many requests at once (the embedded local model)."""

    def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse | ProviderError]: ...
