"""Assemble a Report from loaded runs: summaries (sorted), comparisons, mode deltas."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.metrics import METRIC_NAMES
from tooleval.report.analysis import (
    BEHAVIOURS,
    WITHOUT_NOT_COVERED,
    NotCoveredBehaviour,
    PairedComparison,
    RunSummary,
    compare_runs,
    mode_pairs,
    not_covered_behaviour,
    summarize_run,
)
from tooleval.report.loading import LoadedRuns, RunData
from tooleval.report.multiturn import ConversationSummary, summarize_conversations, summary_json
from tooleval.report.stats import DELTA_METHOD, INTERVAL_METHOD, PAIRED_METHOD
from tooleval.report.versions import check_one_version

REPORT_FORMAT = "tooleval-report/1"


@dataclass(frozen=True)
class Report:
    """Everything a renderer shows. ``summaries`` are sorted; ``shown`` honours ``top``."""

    summaries: tuple[RunSummary, ...]
    categories: tuple[str, ...]
    comparisons: tuple[PairedComparison, ...]
    mode_deltas: tuple[PairedComparison, ...]
    not_covered: tuple[NotCoveredBehaviour, ...]
    skipped: tuple[tuple[Path, str], ...]
    sort_key: str
    top: int | None = None
    conversations: tuple[ConversationSummary, ...] = ()

    @property
    def shown(self) -> tuple[RunSummary, ...]:
        return self.summaries[: self.top] if self.top else self.summaries

    @property
    def shown_not_covered(self) -> tuple[NotCoveredBehaviour, ...]:
        shown = {s.run.run_id for s in self.shown}
        return tuple(b for b in self.not_covered if b.run_id in shown)

    @property
    def any_incomplete(self) -> bool:
        return any(not s.run.complete for s in self.summaries)

    @property
    def has_not_covered(self) -> bool:
        return any(WITHOUT_NOT_COVERED in s.rates for s in self.summaries)


def union_categories(runs: Sequence[RunData]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for run in runs:
        for category in run.categories:
            seen.setdefault(category, None)
    return tuple(seen)


def find_run(runs: Sequence[RunData], name: str) -> RunData:
    """A run by id (file stem), else by a model name that only one run has."""
    exact = [r for r in runs if r.run_id == name]
    by_model = [r for r in runs if r.model == name]
    found = exact or by_model
    if len(found) != 1:
        ids = ", ".join(r.run_id for r in runs)
        what = "no run" if not found else "more than one run"
        raise ValueError(f"--compare: {what} called {name!r}; runs are: {ids}")
    return found[0]


def sort_summaries(summaries: Sequence[RunSummary], key: str) -> list[RunSummary]:
    """Best first by ``key`` (runs without a value last), then by model name."""

    def order(summary: RunSummary) -> tuple[int, float, str]:
        value = summary.rates[key].value if key in summary.rates else None
        return (value is None, -(value or 0.0), summary.run.label)

    return sorted(summaries, key=order)


def build_report(
    loaded: LoadedRuns,
    compare: Sequence[tuple[str, str]] = (),
    sort_key: str = "call_match",
    top: int | None = None,
) -> Report:
    runs = loaded.runs
    check_one_version(runs)
    check_one_version(loaded.conversations)
    categories = union_categories(runs)
    keys = (*METRIC_NAMES, WITHOUT_NOT_COVERED, *(f"call_match_{c}" for c in categories))
    if sort_key not in keys:
        raise ValueError(f"--sort: unknown metric {sort_key!r}; choose one of: {', '.join(keys)}")
    summaries = [summarize_run(r, categories) for r in runs]
    comparisons = [
        compare_runs(find_run(runs, a), find_run(runs, b), categories) for a, b in compare
    ]
    deltas = [compare_runs(p, n, categories) for p, n in mode_pairs(runs)]
    ordered = sort_summaries(summaries, sort_key)
    behaviours = [not_covered_behaviour(s.run) for s in ordered]
    return Report(
        summaries=tuple(ordered),
        categories=categories,
        comparisons=tuple(comparisons),
        mode_deltas=tuple(deltas),
        not_covered=tuple(b for b in behaviours if b is not None),
        skipped=loaded.skipped,
        sort_key=sort_key,
        top=top,
        conversations=summarize_conversations(loaded.conversations),
    )


def run_json(summary: RunSummary) -> dict[str, Any]:
    run = summary.run
    return {
        **run.to_json(),
        "mode": run.mode,
        "max_tokens": run.config.get("max_tokens"),
        "reasoning": run.config.get("reasoning"),
        "repeats": run.config.get("repeats", 1),
        "pass_hat_k": run.pass_hat_k,
        "category_counts_exact": run.planned_by_category_exact,
        "rates": {k: r.to_json() for k, r in summary.rates.items()},
        "rates_answered": {k: r.to_json() for k, r in summary.rates_answered.items()},
    }


def comparison_json(c: PairedComparison) -> dict[str, Any]:
    return {
        "a": c.a,
        "b": c.b,
        "metric": c.metric,
        "n": c.n,
        "a_rate": c.a_rate.to_json(),
        "b_rate": c.b_rate.to_json(),
        "delta": c.delta,
        "delta_interval": [c.delta_low, c.delta_high],
        "a_only": c.a_only,
        "b_only": c.b_only,
        "p_value": c.p_value,
        "category_delta": dict(c.category_delta),
        "differing_items": [
            {"task_id": d.task_id, "repeat": d.repeat, "category": d.category, "a": d.a, "b": d.b}
            for d in c.diffs
        ],
    }


def behaviour_json(b: NotCoveredBehaviour) -> dict[str, Any]:
    return {
        "run_id": b.run_id,
        "answered": b.answered,
        "unanswered": b.unanswered,
        "slug_checked": b.slug_checked,
        "counts": dict(b.counts),
        "shares": {name: b.share(name) for name in BEHAVIOURS},
    }


def report_json(report: Report) -> dict[str, Any]:
    """The whole report as plain JSON (every run, regardless of ``top``)."""
    return {
        "format": REPORT_FORMAT,
        "interval": INTERVAL_METHOD,
        "paired_test": PAIRED_METHOD,
        "delta_interval": DELTA_METHOD,
        "sort": report.sort_key,
        "categories": list(report.categories),
        "runs": [run_json(s) for s in report.summaries],
        "comparisons": [comparison_json(c) for c in report.comparisons],
        "mode_deltas": [comparison_json(c) for c in report.mode_deltas],
        "not_covered": [behaviour_json(b) for b in report.not_covered],
        "multi_turn_runs": [summary_json(c) for c in report.conversations],
        "skipped": [{"file": p.name, "reason": why} for p, why in report.skipped],
    }
