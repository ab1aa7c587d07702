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
from dataclasses import dataclass, field, replace

from tooleval.providers.base import ErrorClass, Provider, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse
from tooleval.redaction import known, mentions_secret, redact
from tooleval.runner.pacing import RateLimiter, backoff_delay

MAX_REQUESTS = "max_requests"
STOP_AFTER_ERRORS = "stop_after_errors"
INTERRUPTED = "interrupted"
UNREACHABLE = "unreachable"
# A run whose first items all fail to connect (every retry too), before anything answered, is
# pointed at nothing: it stops after this many items (whatever --stop-after-errors says).
DEAD_AFTER = 3


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
    reached: bool = False
    unreachable: int = 0

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

    def note_outcome(self, error: ProviderError | None, final: bool = True) -> None:
        """One attempt ended (``error`` None: it was answered; ``final``: its item gets no more
        retries). While nothing has answered yet, the ``DEAD_AFTER``-th item whose attempts all
        failed to connect stops the run: nothing is listening. Retries of one item are not
        counted apart, so a server still starting gets each item's full backoff first."""
        if error is None or error.error_class is not ErrorClass.CONNECTION:
            self.reached = True
            return
        if not final:
            return
        with self.lock:
            if self.reached:
                return
            self.unreachable += 1
            count = self.unreachable
        if count == DEAD_AFTER:
            self.halt(
                f"{UNREACHABLE}: nothing is listening at {error.target or 'the endpoint'}: the "
                f"first {count} items all failed to connect (last: {error}); start the "
                "server or fix --base-url, then rerun with --resume"
            )

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
            response = provider.generate(request)
        except ProviderError as error:
            final = not error.retryable or attempt > control.policy.max_retries
            control.note_outcome(error, final)
            if final:
                error.attempts = attempt
                raise
            if control.pause(backoff_delay(attempt, error.retry_after)):
                raise Stopped(control.stop_reason) from None
        else:
            control.note_outcome(None)
            return redacted(response), attempt


def redacted(response: GenerationResponse) -> GenerationResponse:
    """The answer with every known secret masked (a proxy that echoes the request, a model
    that repeats a key): what is parsed and scored never holds a key. The opaque provider
    state is left as it came: it goes back only to the server that sent it, which a changed
    thinking block or signature would fail, and every writer masks it (``fileio``)."""
    secrets = known()
    texts = [response.text, response.reasoning, response.finish_reason]
    texts += [part for call in response.tool_calls for part in (call.name, call.arguments)]
    if not secrets or not any(text and mentions_secret(text, secrets) for text in texts):
        return response

    def clean(text: str | None) -> str | None:
        return None if text is None else redact(text)

    calls = tuple(
        replace(c, name=redact(c.name), arguments=redact(c.arguments), call_id=clean(c.call_id))
        for c in response.tool_calls
    )
    return replace(response, text=clean(response.text), reasoning=clean(response.reasoning),
                   tool_calls=calls, finish_reason=clean(response.finish_reason))  # fmt: skip
