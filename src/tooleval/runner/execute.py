"""Run many items: concurrency, one shared rate limiter, retries, error and request caps.

Every finished item goes to ``on_record`` (the journal) at once. The executor never scores
a provider failure: it records it with its class and moves on, or stops when told to.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tooleval.providers.base import BatchProvider, Provider, ProviderError
from tooleval.records import GenerationRequest, Task, ToolSpec
from tooleval.runner.item import build_request, record_from_error, record_from_response
from tooleval.runner.pacing import RateLimiter, backoff_delay
from tooleval.runner.records import ItemRecord, RunConfig

WorkItem = tuple[Task, int]
# A batch provider (the embedded model) decodes a whole chunk together and reuses the shared
# prefix across chunks; the chunk covers the default suite (91) in one batch, which is fastest,
# while bounding memory and keeping the progress bar moving for repeated runs.
BATCH_CHUNK = 96


@dataclass
class RunState:
    """Mutable counters shared by the workers, guarded by one lock."""

    requests: int = 0
    failures: int = 0
    stop_reason: str | None = None
    error: Exception | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)

    def halt(self, reason: str) -> None:
        with self.lock:
            if self.stop_reason is None:
                self.stop_reason = reason
        self.stop.set()

    def fail(self, error: Exception) -> None:
        """A worker hit an unexpected error (e.g. the journal cannot be written): stop all."""
        with self.lock:
            if self.error is None:
                self.error = error
        self.halt(f"failed: {type(error).__name__}: {error}")

    def take_request_slot(self, cap: int | None) -> bool:
        with self.lock:
            if cap is not None and self.requests >= cap:
                return False
            self.requests += 1
            return True

    def count_failure(self, cap: int | None) -> None:
        with self.lock:
            self.failures += 1
            reached = cap is not None and self.failures >= cap
        if reached:
            self.halt(f"stop_after_errors: {self.failures} provider errors")


class Executor:
    def __init__(
        self,
        provider: Provider,
        tools: tuple[ToolSpec, ...],
        config: RunConfig,
        on_record: Callable[[ItemRecord], None],
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.config = config
        self.on_record = on_record
        self.limiter = RateLimiter(config.rpm)
        self.state = RunState()
        # Backoff waits end early when the run stops (Ctrl-C, error cap), not after minutes.
        self.sleep = sleep or self.state.stop.wait

    def run(self, items: Sequence[WorkItem]) -> str | None:
        """Answer ``items``; returns why the run stopped early, or None.

        An unexpected error in a worker (say, a full disk under the journal) stops the run and
        is raised here, in the calling thread, once every worker has finished.
        """
        if isinstance(self.provider, BatchProvider) and self.config.rpm is None:
            self._run_batched(items)
        else:
            self._run_threaded(items)
        if self.state.error is not None:
            raise self.state.error
        return self.state.stop_reason

    def _finish(self, record: ItemRecord) -> None:
        self.on_record(record)
        if record.error_class is not None:
            self.state.count_failure(self.config.stop_after_errors)

    def ask(self, task: Task, repeat: int) -> ItemRecord | None:
        """One item with retries; None when a stop or the request cap came first."""
        request = build_request(task, self.tools, self.config)
        started = time.monotonic()
        for attempt in range(1, self.config.max_retries + 2):
            if self.state.stop.is_set():
                return None
            if not self.state.take_request_slot(self.config.max_requests):
                self.state.halt(f"max_requests: {self.config.max_requests} requests sent")
                return None
            self.limiter.acquire()
            try:
                response = self.provider.generate(request)
            except ProviderError as error:
                elapsed = time.monotonic() - started
                if not error.retryable or attempt > self.config.max_retries:
                    return record_from_error(task, repeat, error, elapsed, attempt)
                self.sleep(backoff_delay(attempt, error.retry_after))
                continue
            elapsed = time.monotonic() - started
            return record_from_response(
                task, repeat, response, elapsed, attempt, self.tools, self.config.mode
            )
        raise AssertionError("unreachable: the loop returns on its last attempt")

    def _worker(self, work: queue.SimpleQueue[WorkItem | None]) -> None:
        while not self.state.stop.is_set():
            item = work.get()
            if item is None:
                return
            try:
                record = self.ask(*item)
                if record is not None:
                    self._finish(record)
            except Exception as error:
                self.state.fail(error)

    def _run_threaded(self, items: Sequence[WorkItem]) -> None:
        work: queue.SimpleQueue[WorkItem | None] = queue.SimpleQueue()
        workers = max(1, min(self.config.concurrency, len(items)))
        for item in items:
            work.put(item)
        for _ in range(workers):
            work.put(None)
        threads = [
            threading.Thread(target=self._worker, args=(work,), daemon=True) for _ in range(workers)
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(timeout=0.2)
        except KeyboardInterrupt:
            self.state.halt("interrupted")
            for thread in threads:
                thread.join()
            raise

    def _run_batched(self, items: Sequence[WorkItem]) -> None:
        assert isinstance(self.provider, BatchProvider)
        for start in range(0, len(items), BATCH_CHUNK):
            if self.state.stop.is_set():
                return
            chunk = items[start : start + BATCH_CHUNK]
            requests: list[GenerationRequest] = [
                build_request(task, self.tools, self.config) for task, _ in chunk
            ]
            if not self.state.take_request_slot(self.config.max_requests):
                self.state.halt(f"max_requests: {self.config.max_requests} requests sent")
                return
            started = time.monotonic()
            answers = self.provider.generate_batch(requests)
            per_item = (time.monotonic() - started) / max(1, len(chunk))
            for (task, repeat), answer in zip(chunk, answers, strict=True):
                if isinstance(answer, ProviderError):
                    self._finish(record_from_error(task, repeat, answer, per_item, 1))
                else:
                    self._finish(
                        record_from_response(
                            task, repeat, answer, per_item, 1, self.tools, self.config.mode
                        )
                    )
