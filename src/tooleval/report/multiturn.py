"""Multi-turn runs in a report (InfraNode episodes, Cesium scenarios), beside the single-call
table: each run's headline with its interval (``success``; the Cesium scenarios'
``scenarioCorrectRate``), the original harness's rule beside it where a suite keeps one (the
Cesium original's ``scenarioPassRate``), endings, and an original harness's metrics under their
own names. (The commands' console tables lead with the same numbers:
``tooleval.commands.console``.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from tooleval.report.loading import ConversationRun
from tooleval.report.stats import Rate, rate
from tooleval.report.text import md_table, with_interval


@dataclass(frozen=True)
class ConversationSummary:
    """``success``: conversations that reached the suite's goal (for the Cesium scenarios: were
    judged correct), of those the model finished (provider errors, an exhausted budget and
    routing misses are counted apart)."""

    run: ConversationRun
    success: Rate

    @property
    def headline(self) -> str:
        """The name of the rate in ``success`` (``success`` unless the file names another)."""
        return str((self.run.headline or {}).get("metric") or "success")

    @property
    def beside(self) -> Mapping[str, Any] | None:
        """The original harness's rule shown beside the headline, where there is one."""
        beside = (self.run.headline or {}).get("beside")
        return beside if isinstance(beside, Mapping) else None


def summarize_conversations(runs: Sequence[ConversationRun]) -> tuple[ConversationSummary, ...]:
    summaries = [ConversationSummary(r, rate(r.successes, r.scored)) for r in runs]
    return tuple(sorted(summaries, key=lambda s: (s.run.suite_name, -(s.success.value or 0.0))))


def _counts(values: dict[str, int] | Any) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(dict(values).items())) or "0"


HEAD = [
    "#", "suite", "model", "setup", "finished", "headline", "rate [95% CI]", "original's rule",
    "endings", "outcomes", "errors",
]  # fmt: skip
LEFT = frozenset({1, 2, 3, 5, 7, 8, 9, 10})
NOTE = (
    "headline: each suite's headline rate over the conversations the model finished "
    "(InfraNode episodes: success; Cesium scenarios: scenarioCorrectRate, the runs judged "
    "correct; interval: Wilson 95 %); original's rule: the Cesium original's "
    "scenarioPassRate (every required tool got one schema-valid call; all runs), shown for "
    "comparison only; endings count every conversation; outcomes are the suite's verdict "
    "classes (the ending where a conversation was not scored)."
)


def beside_text(beside: Mapping[str, Any] | None) -> str:
    """``scenarioPassRate 93.3`` in percent like the headline (``–`` where the suite keeps no
    original rule, ``null`` where its denominator was empty)."""
    if beside is None:
        return "–"
    value = beside.get("value")
    shown = "null" if not isinstance(value, int | float) else f"{100 * value:.1f}"
    return f"{beside.get('metric')} {shown}"


def rows(summaries: Sequence[ConversationSummary]) -> list[list[str]]:
    out = []
    for index, s in enumerate(summaries, start=1):
        run = s.run
        finished = f"{s.success.n}/{run.planned}" + ("" if run.complete else " ⚠")
        out.append(
            [
                str(index),
                f"{run.suite_name} {run.suite_version}",
                run.model,
                run.setup,
                finished,
                s.headline,
                with_interval(s.success),
                beside_text(s.beside),
                _counts(run.endings),
                _counts(run.outcomes),
                _counts(run.errors_by_class),
            ]
        )
    return out


def original_rows(summaries: Sequence[ConversationSummary]) -> tuple[list[str], list[list[str]]]:
    """One column per original metric name, one row per run that has them."""
    with_original = [s for s in summaries if s.run.original_metrics]
    names: list[str] = []
    for s in with_original:
        names += [n for n in (s.run.original_metrics or {}) if n not in names]
    table = [
        [s.run.model, s.run.setup, *(_value(s.run.original_metrics or {}, n) for n in names)]
        for s in with_original
    ]
    return ["model", "setup", *names], table


def _value(metrics: Any, name: str) -> str:
    value = metrics.get(name)
    return "null" if value is None else f"{value:.3f}"


def markdown_lines(summaries: Sequence[ConversationSummary]) -> list[str]:
    if not summaries:
        return []
    lines = [
        "## Multi-turn runs",
        "",
        NOTE + " ⚠ = incomplete run.",
        "",
        *md_table(HEAD, rows(summaries)),
        "",
    ]
    head, table = original_rows(summaries)
    if table:
        lines += [
            "### Original harness metrics",
            "",
            "As the original Cesium evaluation defines them (error runs included in every "
            "denominator, null for an empty denominator).",
            "",
            *md_table(head, table),
            "",
        ]
    return lines


def rich_table(summaries: Sequence[ConversationSummary]) -> Table:
    table = Table(title=f"multi-turn runs: {len(summaries)}", padding=(0, 1))
    for index, name in enumerate(HEAD):
        if index in LEFT:
            table.add_column(name, justify="left", overflow="fold")
        else:
            table.add_column(name, justify="right", overflow="fold")
    for row in rows(summaries):
        table.add_row(*row)
    return table


def summary_json(s: ConversationSummary) -> dict[str, Any]:
    run = s.run
    return {
        **run.to_json(),
        "headline": s.headline,
        "success": s.success.to_json(),
        "beside": dict(s.beside) if s.beside else None,
        "endings": dict(run.endings),
        "outcomes": dict(run.outcomes),
        "metrics": dict(run.metrics),
        "original_metrics": dict(run.original_metrics) if run.original_metrics else None,
    }
