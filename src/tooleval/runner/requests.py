"""The one request path: every model request of every command goes through
``generate_with_retries`` under one ``RunControl``.

``RunControl`` holds what the workers of a run share: the stop signal (Ctrl-C, an error cap,
the request budget, a failed worker), the request counter for ``--max-requests``, the failure
counter for ``--stop-after-errors`` and the ``--rpm`` limiter. Every wait (rate limit,
backoff) is a wait on the stop signal, so a stop ends it at once instead of sleeping it out.
Retries follow one rule (``pacing.backoff_delay``: jittered, capped, Retry-After honoured).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from tooleval.providers.base import Provider, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse
from tooleval.runner.pacing import RateLimiter, backoff_delay

MAX_REQUESTS = "max_requests"
STOP_AFTER_ERRORS = "stop_after_errors"
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class RequestPolicy:
    """The caps and pacing of a run (the same flags in every command)."""

    max_retries: int = 4
    max_requests: int | None = None
    stop_after_errors: int | None = None
    rpm: float | None = None
    concurrency: int = 4


class Stopped(Exception):
    """The run stopped (see ``RunControl.stop_reason``) before this request could go out."""


@dataclass
class RunControl:
    """Shared by the workers of one run; every method is thread-safe.

    ``wait(seconds) -> stopped`` replaces waiting out a backoff (default: wait on ``stop``).
    """

    policy: RequestPolicy = field(default_factory=RequestPolicy)
    requests: int = 0
    failures: int = 0
    stop_reason: str | None = None
    error: BaseException | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    wait: Callable[[float], bool] | None = None
    limiter: RateLimiter = field(init=False)

    def __post_init__(self) -> None:
        self.limiter = RateLimiter(self.policy.rpm)

    @property
    def budget_exhausted(self) -> bool:
        return (self.stop_reason or "").startswith(MAX_REQUESTS)

    def halt(self, reason: str) -> None:
        """Stop the run (the first reason given is kept)."""
        with self.lock:
            if self.stop_reason is None:
                self.stop_reason = reason
        self.stop.set()

    def fail(self, error: BaseException) -> None:
        """A worker hit an unexpected error (e.g. the journal cannot be written): stop all."""
        with self.lock:
            if self.error is None:
                self.error = error
        self.halt(f"failed: {type(error).__name__}: {error}")

    def take_request_slot(self) -> bool:
        """Count one request against ``--max-requests``; False (and a halt) when it is spent."""
        cap = self.policy.max_requests
        with self.lock:
            allowed = cap is None or self.requests < cap
            if allowed:
                self.requests += 1
        if not allowed:
            self.halt(f"{MAX_REQUESTS}: {cap} requests sent")
        return allowed

    def count_failure(self) -> None:
        """One more item failed with a provider error; halts at ``--stop-after-errors``."""
        cap = self.policy.stop_after_errors
        with self.lock:
            self.failures += 1
            reached = cap is not None and self.failures >= cap
            count = self.failures
        if reached:
            self.halt(f"{STOP_AFTER_ERRORS}: {count} provider errors")

    def pause(self, seconds: float) -> bool:
        """Wait ``seconds`` unless the run stops first; True when it stopped. ``wait``, when
        given, replaces the waiting (a test records backoff delays instead of sleeping)."""
        if self.wait is not None:
            return self.wait(seconds) or self.stop.is_set()
        return self.stop.wait(seconds)


def admit(control: RunControl) -> None:
    """Take a request slot and a rate-limit slot, or raise Stopped."""
    if control.stop.is_set() or not control.take_request_slot():
        raise Stopped(control.stop_reason)
    if not control.limiter.acquire(control.stop):
        raise Stopped(control.stop_reason)


def generate_with_retries(
    provider: Provider, request: GenerationRequest, control: RunControl
) -> tuple[GenerationResponse, int]:
    """One model answer and the attempts it took.

    Retryable errors (rate limits, server errors, timeouts, connection errors) are retried up
    to ``max_retries`` times after ``backoff_delay``; the last error, or any other, is raised.
    Raises Stopped when the run stops first (the backoff wait ends at once).
    """
    attempt = 0
    while True:
        attempt += 1
        admit(control)
        try:
            return provider.generate(request), attempt
        except ProviderError as error:
            if not error.retryable or attempt > control.policy.max_retries:
                error.attempts = attempt
                raise
            if control.pause(backoff_delay(attempt, error.retry_after)):
                raise Stopped(control.stop_reason) from None
