"""The one dispatcher: runs sessions (single-call items or multi-turn conversations) against a
provider, in worker threads or in lockstep batches, and hands each finished session to the
caller's ``finish`` on the calling thread.

A session asks for one request at a time until it is done. Worker threads do only what must
happen between one answer and the next request (parse, score, execute tools); everything
per finished item (journal line, exec_match, conversation scoring, progress) runs in
``finish`` on the main thread, so a worker sends its next request at once.

A ``BatchProvider`` (the embedded model) without ``--rpm`` gets lockstep batches instead: every
round, one ``generate_batch`` over the open sessions of a chunk.

When the run stops (Ctrl-C, an error cap, the request budget, a failed ``finish``), sessions
that did not finish are offered ``stopped(reason)``: a session that still makes a record
(a conversation cut by the request budget) is finished too; the others are left out.

Ctrl-C never lands in the middle of a ``finish`` (a journal line written but the record not
kept): while one runs, the interrupt is held and raised right after it.
"""

from __future__ import annotations

import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Protocol

from tooleval.providers.base import BatchProvider, Provider, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse
from tooleval.runner.requests import INTERRUPTED, RunControl, Stopped, generate_with_retries

# A batch provider decodes a whole chunk together and reuses the shared prefix across chunks;
# the chunk covers the default suite (91) in one batch, which is fastest, while bounding
# memory and keeping the progress bar moving for repeated runs.
BATCH_CHUNK = 96
POLL_S = 0.2


class Session(Protocol):
    """One unit of work: asks for requests until ``done``."""

    @property
    def done(self) -> bool: ...

    @property
    def failed(self) -> bool:
        """Whether it ended with a provider error (counted for ``--stop-after-errors``)."""
        ...

    def request(self) -> GenerationRequest: ...

    def answer(self, response: GenerationResponse, attempts: int, latency_s: float) -> None: ...

    def error(self, error: ProviderError, latency_s: float) -> None: ...

    def stopped(self, reason: str) -> bool:
        """The run stopped before this session finished; True when it still makes a record."""
        ...


class InterruptGuard:
    """Holds a Ctrl-C that arrives inside a critical section until the section ends (on the
    main thread, when Python's own SIGINT handler is in place; elsewhere it does nothing)."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.depth:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[None]:
        usable = threading.current_thread() is threading.main_thread()
        usable = usable and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        previous = signal.signal(signal.SIGINT, self._handler) if usable else None
        try:
            yield
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    @contextmanager
    def critical(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.pending and not self.depth:
                self.pending = False
                raise KeyboardInterrupt


class Dispatcher:
    def __init__(
        self, provider: Provider, control: RunControl, finish: Callable[[Session], None]
    ) -> None:
        self.provider = provider
        self.control = control
        self.finish = finish
        self.guard = InterruptGuard()

    def run(self, sessions: Sequence[Session]) -> str | None:
        """Run every session; returns why the run stopped early, or None.

        An unexpected error in a worker or in ``finish`` (say, a full disk under the journal)
        stops the run and is raised here once every worker has ended.
        """
        finished: set[int] = set()

        def done(session: Session) -> None:
            with self.guard.critical():
                finished.add(id(session))
                self._finish(session)

        try:
            with self.guard.installed():
                if isinstance(self.provider, BatchProvider) and self.control.policy.rpm is None:
                    self._lockstep(sessions, done)
                else:
                    self._threaded(sessions, done)
        except KeyboardInterrupt:
            self.control.halt(INTERRUPTED)
            raise
        finally:
            self._close(sessions, finished, done)
        if self.control.error is not None:
            raise self.control.error
        return self.control.stop_reason

    def _finish(self, session: Session) -> None:
        if self.control.error is not None:
            return
        try:
            self.finish(session)
        except Exception as error:
            self.control.fail(error)

    def _close(
        self, sessions: Sequence[Session], finished: set[int], done: Callable[[Session], None]
    ) -> None:
        reason = self.control.stop_reason
        if reason is None:
            return
        for session in sessions:
            if id(session) not in finished and session.stopped(reason):
                done(session)

    def drive(self, session: Session) -> None:
        """Run one session to its end on this thread; Stopped when the run stops first."""
        started = time.monotonic()
        while not session.done:
            request = session.request()
            try:
                response, attempts = generate_with_retries(self.provider, request, self.control)
            except ProviderError as error:
                session.error(error, time.monotonic() - started)
                break
            session.answer(response, attempts, time.monotonic() - started)
        if session.failed:
            self.control.count_failure()

    def _worker(
        self, work: queue.SimpleQueue[Session | None], out: queue.SimpleQueue[Session | None]
    ) -> None:
        try:
            while not self.control.stop.is_set():
                session = work.get()
                if session is None:
                    return
                try:
                    self.drive(session)
                except Stopped:
                    return
                except Exception as error:
                    self.control.fail(error)
                    return
                out.put(session)
        finally:
            out.put(None)

    def _threaded(self, sessions: Sequence[Session], done: Callable[[Session], None]) -> None:
        work: queue.SimpleQueue[Session | None] = queue.SimpleQueue()
        out: queue.SimpleQueue[Session | None] = queue.SimpleQueue()
        workers = max(1, min(self.control.policy.concurrency, len(sessions)))
        for session in sessions:
            work.put(session)
        for _ in range(workers):
            work.put(None)
        threads = [
            threading.Thread(target=self._worker, args=(work, out), daemon=True)
            for _ in range(workers)
        ]
        for thread in threads:
            thread.start()
        try:
            self._collect(out, workers, done)
        except KeyboardInterrupt:
            self.control.halt(INTERRUPTED)
            for thread in threads:
                thread.join()
            self._drain(out, done)
            raise

    def _collect(
        self, out: queue.SimpleQueue[Session | None], workers: int, done: Callable[[Session], None]
    ) -> None:
        """Finish sessions as workers hand them over, until every worker has ended."""
        ended = 0
        while ended < workers:
            try:
                session = out.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if session is None:
                ended += 1
            else:
                done(session)

    def _drain(
        self, out: queue.SimpleQueue[Session | None], done: Callable[[Session], None]
    ) -> None:
        while True:
            try:
                session = out.get_nowait()
            except queue.Empty:
                return
            if session is not None:
                done(session)

    def _lockstep(self, sessions: Sequence[Session], done: Callable[[Session], None]) -> None:
        assert isinstance(self.provider, BatchProvider)
        for start in range(0, len(sessions), BATCH_CHUNK):
            active = list(sessions[start : start + BATCH_CHUNK])
            for session in [s for s in active if s.done]:
                done(session)
            active = [s for s in active if not s.done]
            while active:
                if self.control.stop.is_set() or not self.control.take_request_slot():
                    return
                active = self._round(active, done)

    def _round(self, active: list[Session], done: Callable[[Session], None]) -> list[Session]:
        """One ``generate_batch`` over the open sessions; returns those still open."""
        assert isinstance(self.provider, BatchProvider)
        started = time.monotonic()
        try:
            answers = self.provider.generate_batch([s.request() for s in active])
        except ProviderError as error:  # the whole batch failed: every open session ends
            answers = [error] * len(active)
        per_item = (time.monotonic() - started) / max(1, len(active))
        still: list[Session] = []
        for session, answer in zip(active, answers, strict=True):
            if isinstance(answer, ProviderError):
                session.error(answer, per_item)
            else:
                session.answer(answer, 1, per_item)
            if not session.done:
                still.append(session)
                continue
            if session.failed:
                self.control.count_failure()
            done(session)
        return still
