"""Run many episodes: concurrency (threads) or lockstep batches (the embedded model), one
shared rate limiter, retries with backoff, and one results file written atomically.

A provider error that survives the retries ends the episode as ``provider_error``: it is
counted by class and never scored as a model answer. No journal and no resume: an episode
run is short; rerun it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import httpx

from tooleval.episodes.loop import Episode
from tooleval.episodes.records import EpisodeConfig, EpisodeRecord
from tooleval.episodes.scoring import score_episode
from tooleval.providers.base import BatchProvider, ErrorClass, Provider, ProviderError
from tooleval.records import GenerationResponse, Task, ToolSpec
from tooleval.runner.pacing import RateLimiter, backoff_delay
from tooleval.suites.infranode.client import Transport, execute_tool

OnRecord = Callable[[EpisodeRecord], None]


def finish(episode: Episode, started: float, error: ProviderError | None = None) -> EpisodeRecord:
    """The record of a finished (or failed) episode, scored unless it failed."""
    task = episode.task
    if error is None and episode.truncated_reasoning:
        error = ProviderError(
            ErrorClass.REASONING_TRUNCATED, "the token budget ended inside the reasoning"
        )
    score = None
    if error is None:
        gold = execute_tool(episode.transport, task.gold.name, task.gold.arguments)
        score = score_episode(
            task,
            episode.calls,
            episode.final_answer,
            gold,
            episode.rounds,
            episode.config.max_result_chars,
        )
    return EpisodeRecord(
        task_id=task.id,
        category=task.category,
        transcript=tuple(episode.messages),
        calls=tuple(episode.calls),
        final_answer=episode.final_answer,
        first_call=episode.first_call,
        score=score,
        error_class=error.error_class.value if error else None,
        error_message=str(error) if error else None,
        usage=tuple(episode.usage),
        latency_s=time.monotonic() - started,
    )


class EpisodeDriver:
    """Drives episodes against one provider with pacing and retries."""

    def __init__(
        self,
        provider: Provider,
        config: EpisodeConfig,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.provider = provider
        self.config = config
        self.sleep = sleep
        self.limiter = RateLimiter(config.rpm)

    def one(self, episode: Episode) -> EpisodeRecord:
        """Run one episode to its end (threaded path)."""
        started = time.monotonic()
        while not episode.done:
            try:
                response = self._generate(episode)
                episode.advance(response)
            except ProviderError as error:
                return finish(episode, started, error)
            except httpx.HTTPError as exc:
                return finish(episode, started, api_error(exc))
        return finish(episode, started)

    def _generate(self, episode: Episode) -> GenerationResponse:
        request = episode.request()
        for attempt in range(1, self.config.max_retries + 2):
            self.limiter.acquire()
            try:
                return self.provider.generate(request)
            except ProviderError as error:
                if not error.retryable or attempt > self.config.max_retries:
                    raise
                self.sleep(backoff_delay(attempt, error.retry_after))
        raise AssertionError("unreachable: the loop returns or raises on its last attempt")

    def lockstep(self, episodes: Sequence[Episode], on_record: OnRecord) -> None:
        """Batched path: every round, one ``generate_batch`` over all open episodes."""
        assert isinstance(self.provider, BatchProvider)
        started = time.monotonic()
        active = list(episodes)
        while active:
            try:
                answers = self.provider.generate_batch([e.request() for e in active])
            except ProviderError as error:  # the whole batch failed: every open episode ends
                answers = [error] * len(active)
            still: list[Episode] = []
            for episode, answer in zip(active, answers, strict=True):
                if isinstance(answer, ProviderError):
                    on_record(finish(episode, started, answer))
                    continue
                try:
                    episode.advance(answer)
                except httpx.HTTPError as exc:
                    on_record(finish(episode, started, api_error(exc)))
                    continue
                if episode.done:
                    on_record(finish(episode, started))
                else:
                    still.append(episode)
            active = still

    def threaded(self, episodes: Sequence[Episode], on_record: OnRecord) -> None:
        workers = max(1, min(self.config.concurrency, len(episodes)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for record in pool.map(self.one, episodes):
                on_record(record)


def api_error(exc: httpx.HTTPError) -> ProviderError:
    """The InfraNode API could not be reached: not the model's fault, so not scored."""
    return ProviderError(ErrorClass.CONNECTION, f"InfraNode API unreachable: {exc}")


def run_episodes(
    config: EpisodeConfig,
    provider: Provider,
    tasks: Sequence[Task],
    tools: tuple[ToolSpec, ...],
    transport: Transport,
    on_record: OnRecord | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> list[EpisodeRecord]:
    """Run one episode per task; records come back in task order."""
    episodes = [Episode(task, tools, config, transport) for task in tasks]
    records: dict[str, EpisodeRecord] = {}

    def keep(record: EpisodeRecord) -> None:
        records[record.task_id] = record
        if on_record:
            on_record(record)

    driver = EpisodeDriver(provider, config, sleep)
    if isinstance(provider, BatchProvider) and config.rpm is None:
        driver.lockstep(episodes, keep)
    else:
        driver.threaded(episodes, keep)
    return [records[task.id] for task in tasks if task.id in records]
