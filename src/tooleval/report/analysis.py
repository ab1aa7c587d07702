"""Numbers behind a report: rates with intervals, paired comparisons, the not_covered behaviour.

All functions are pure: they take RunData and return frozen records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tooleval.metrics import METRIC_NAMES
from tooleval.records import ToolCall
from tooleval.report.loading import RunData
from tooleval.report.stats import Rate, mcnemar_exact, paired_bootstrap_delta, rate
from tooleval.runner.records import ItemRecord

ItemKey = tuple[str, int]
NOT_COVERED = "not_covered"
WITHOUT_NOT_COVERED = "call_match_without_not_covered"


@dataclass(frozen=True)
class RunSummary:
    """A run's rates over all planned items (a gap is a miss) and over answered items only."""

    run: RunData
    rates: Mapping[str, Rate]
    rates_answered: Mapping[str, Rate]


def scored_items(run: RunData) -> dict[ItemKey, ItemRecord]:
    """The run's answered, scored items by (task id, repeat)."""
    return {i.key: i for i in run.items if i.answered and i.score is not None}


def summarize_run(run: RunData, categories: Sequence[str]) -> RunSummary:
    scored = list(scored_items(run).values())
    rates: dict[str, Rate] = {}
    answered: dict[str, Rate] = {}
    for name in METRIC_NAMES:
        values = [getattr(i.score, name) for i in scored]
        if None in values:  # not recorded: format_ok in files written before it existed
            rates[name] = answered[name] = rate(0, 0)
            continue
        k = sum(values)
        rates[name] = rate(k, run.planned)
        answered[name] = rate(k, len(scored))
    if NOT_COVERED in run.categories:
        rest = [i for i in scored if i.category != NOT_COVERED]
        k = sum(i.score.call_match for i in rest if i.score is not None)
        planned_rest = run.planned - run.planned_by_category.get(NOT_COVERED, 0)
        rates[WITHOUT_NOT_COVERED] = rate(k, planned_rest)
        answered[WITHOUT_NOT_COVERED] = rate(k, len(rest))
    for category in categories:
        in_cat = [i for i in scored if i.category == category]
        k = sum(i.score.call_match for i in in_cat if i.score is not None)
        key = f"call_match_{category}"
        rates[key] = rate(k, run.planned_by_category.get(category, 0))
        answered[key] = rate(k, len(in_cat))
    return RunSummary(run, rates, answered)


@dataclass(frozen=True)
class ItemDiff:
    """One item two runs scored differently (``a`` and ``b`` are 0 or 1)."""

    task_id: str
    repeat: int
    category: str
    a: int
    b: int


@dataclass(frozen=True)
class PairedComparison:
    """Run ``b`` against run ``a`` on the items both answered; deltas are ``b - a``."""

    a: str
    b: str
    metric: str
    n: int
    a_rate: Rate
    b_rate: Rate
    a_only: int
    b_only: int
    p_value: float
    category_delta: Mapping[str, float | None]
    diffs: tuple[ItemDiff, ...]
    delta_low: float | None = None
    delta_high: float | None = None

    @property
    def delta(self) -> float | None:
        if self.a_rate.value is None or self.b_rate.value is None:
            return None
        return self.b_rate.value - self.a_rate.value


def _category_delta(
    pairs: Sequence[tuple[str, int, int]], categories: Sequence[str]
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for category in categories:
        rows = [(a, b) for cat, a, b in pairs if cat == category]
        out[category] = (sum(b - a for a, b in rows) / len(rows)) if rows else None
    return out


def compare_runs(
    a: RunData, b: RunData, categories: Sequence[str], metric: str = "call_match"
) -> PairedComparison:
    """Paired comparison on the items answered in both runs (exact McNemar test)."""
    left, right = scored_items(a), scored_items(b)
    common = [key for key in left if key in right]
    pairs: list[tuple[str, int, int]] = []
    diffs: list[ItemDiff] = []
    for key in common:
        x = int(getattr(left[key].score, metric))
        y = int(getattr(right[key].score, metric))
        pairs.append((left[key].category, x, y))
        if x != y:
            diffs.append(ItemDiff(key[0], key[1], left[key].category, x, y))
    interval = (
        paired_bootstrap_delta([x for _, x, _ in pairs], [y for _, _, y in pairs])
        if pairs
        else (None, None)
    )
    a_only = sum(1 for _, x, y in pairs if x > y)
    b_only = sum(1 for _, x, y in pairs if y > x)
    return PairedComparison(
        a=a.run_id,
        b=b.run_id,
        metric=metric,
        n=len(pairs),
        a_rate=rate(sum(x for _, x, _ in pairs), len(pairs)),
        b_rate=rate(sum(y for _, _, y in pairs), len(pairs)),
        a_only=a_only,
        b_only=b_only,
        p_value=mcnemar_exact(a_only, b_only),
        category_delta=_category_delta(pairs, categories),
        diffs=tuple(diffs),
        delta_low=interval[0],
        delta_high=interval[1],
    )


def mode_pairs(runs: Sequence[RunData]) -> list[tuple[RunData, RunData]]:
    """(prompt run, native run) for every model that ran in both modes on the same suite.

    Of several candidates the native run with the same max tokens, reasoning and repeats is
    preferred; otherwise the first one found.
    """
    pairs: list[tuple[RunData, RunData]] = []
    for prompt in (r for r in runs if r.mode == "prompt"):
        natives = [
            r
            for r in runs
            if r.mode == "native" and r.model == prompt.model and r.suite_name == prompt.suite_name
        ]
        if not natives:
            continue
        same = [r for r in natives if _setup_key(r) == _setup_key(prompt)]
        pairs.append((prompt, (same or natives)[0]))
    return pairs


def _setup_key(run: RunData) -> tuple[object, ...]:
    return tuple(run.config.get(k) for k in ("max_tokens", "reasoning", "repeats"))


BEHAVIOURS = ("direct_gold", "direct_other_args", "overview_first", "other_call", "no_call")
DATA_TOOL = "get_city_data"
OVERVIEW_TOOL = "get_city_overview"


@dataclass(frozen=True)
class NotCoveredBehaviour:
    """What a model's first call was on the not_covered items: a behaviour, not an error."""

    run_id: str
    counts: Mapping[str, int]
    answered: int
    unanswered: int
    slug_checked: bool

    def share(self, behaviour: str) -> float | None:
        return self.counts.get(behaviour, 0) / self.answered if self.answered else None


def classify_not_covered(record: ItemRecord, gold: ToolCall | None) -> str:
    """One of BEHAVIOURS for an answered not_covered item.

    ``direct_gold``: the gold get_city_data call; ``direct_other_args``: get_city_data with other
    arguments; ``overview_first``: get_city_overview for the right city (any city when the gold
    call is unknown); ``other_call``: anything else; ``no_call``: no tool call parsed.
    """
    first = record.parsed.first if record.parsed is not None else None
    if first is None:
        return "no_call"
    if record.score is not None and record.score.call_match:
        return "direct_gold"
    if first.name == (gold.name if gold else DATA_TOOL):
        return "direct_other_args"
    if first.name == OVERVIEW_TOOL and (
        gold is None or first.arguments.get("slug") == gold.arguments.get("slug")
    ):
        return "overview_first"
    return "other_call"


def not_covered_behaviour(run: RunData) -> NotCoveredBehaviour | None:
    """The run's not_covered behaviour, or None when it planned no items of that category."""
    if NOT_COVERED not in run.categories:
        return None
    items = {i.key: i for i in run.items if i.category == NOT_COVERED}
    answered = [i for i in items.values() if i.answered]
    counts = Counter(classify_not_covered(i, run.gold.get(i.task_id)) for i in answered)
    planned = run.planned_by_category.get(NOT_COVERED, len(items))
    if not planned:
        return None  # e.g. a --limit run that never reached the category
    return NotCoveredBehaviour(
        run_id=run.run_id,
        counts={b: counts.get(b, 0) for b in BEHAVIOURS},
        answered=len(answered),
        unanswered=max(0, planned - len(answered)),
        slug_checked=bool(run.gold),
    )
