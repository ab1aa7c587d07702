"""The episode results file (``tooleval-episodes/1``): config, metrics, one record per episode.

``metrics`` are taken over the answered episodes (provider errors are counted by class and
never scored); ``first_call`` holds the single-call metrics of the first turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import mean
from typing import Any

from tooleval.episodes.judge import JUDGE_PROMPT_VERSION, JudgeVerdict, judge_metrics
from tooleval.episodes.records import OUTCOMES, EpisodeConfig, EpisodeRecord
from tooleval.metrics import aggregate
from tooleval.records import Task
from tooleval.runner.results import suite_summary
from tooleval.suites import Suite

EPISODES_FORMAT = "tooleval-episodes/1"


def _mean(values: Sequence[float]) -> float | None:
    return mean(values) if values else None


def episode_metrics(records: Sequence[EpisodeRecord], categories: Sequence[str]) -> dict[str, Any]:
    """Success rate (overall and per category) and mean steps/calls over answered episodes."""
    scored = [r for r in records if r.score is not None]
    metrics: dict[str, Any] = {
        "success": _mean([r.score.success for r in scored if r.score]),
        "mean_steps": _mean([r.score.steps for r in scored if r.score]),
        "mean_calls": _mean([r.score.calls for r in scored if r.score]),
        "mean_invalid_calls": _mean([r.score.invalid_calls for r in scored if r.score]),
        "mean_wasted_calls": _mean([r.score.wasted_calls for r in scored if r.score]),
        "answer_grounded": _mean([r.score.answer_grounded for r in scored if r.score]),
    }
    for category in categories:
        values = [r.score.success for r in scored if r.score and r.category == category]
        metrics[f"success_{category}"] = _mean(values)
    return metrics


def outcome_counts(records: Sequence[EpisodeRecord]) -> dict[str, int]:
    counts = Counter(r.score.outcome if r.score else "provider_error" for r in records)
    return {name: counts[name] for name in OUTCOMES if counts[name]}


def build_document(
    config: EpisodeConfig,
    suite: Suite,
    tasks: Sequence[Task],
    records: Sequence[EpisodeRecord],
    started_at: str,
    finished_at: str,
    judge: JudgeRun | None = None,
) -> dict[str, Any]:
    """The results document; ``judge`` adds the judge's settings, metrics and verdicts."""
    errors = Counter(r.error_class for r in records if r.error_class)
    first = [(r.category, r.first_call) for r in records if r.answered and r.first_call]
    document = {
        "format": EPISODES_FORMAT,
        "complete": len(records) == len(tasks) and not errors,
        "config": config.to_json(),
        "suite": suite_summary(suite, tasks),
        "started_at": started_at,
        "finished_at": finished_at,
        "counts": {
            "planned": len(tasks),
            "answered": sum(1 for r in records if r.answered),
            "errors": sum(errors.values()),
        },
        "errors_by_class": dict(sorted(errors.items())),
        "outcomes": outcome_counts(records),
        "metrics": episode_metrics(records, suite.categories),
        "first_call": aggregate(first, suite.categories),
        "items": [r.to_json() for r in records],
    }
    if judge is not None:
        add_judge(document, records, judge)
    return document


@dataclass(frozen=True)
class JudgeRun:
    """The judge's backend and model, whether it saw every answer, and its verdicts."""

    backend: str
    model: str
    every_answer: bool
    verdicts: Mapping[str, JudgeVerdict]


def add_judge(document: dict[str, Any], records: Sequence[EpisodeRecord], judge: JudgeRun) -> None:
    document["judge"] = {
        "backend": judge.backend,
        "model": judge.model,
        "prompt_version": JUDGE_PROMPT_VERSION,
        "every_answer": judge.every_answer,
    }
    document["metrics"].update(judge_metrics(records, judge.verdicts))
    for item in document["items"]:
        verdict = judge.verdicts.get(item["task_id"])
        item["judge"] = verdict.to_json() if verdict else None
