"""Aggregates over per-item scores: the metric means and ``call_match_<category>``.

Each category mean is taken over that category's items only, never diluted by the others.
A value that was not recorded (``format_ok`` None: mode unknown) is left out of its mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tooleval.records import ItemScore

METRIC_NAMES = ("call_match", "tool_match", "args_match", "parsed", "format_ok")


def mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def aggregate(
    scored: Iterable[tuple[str, ItemScore]], categories: Sequence[str]
) -> dict[str, float | None]:
    """Metrics over ``(category, score)`` pairs; a category without items maps to None."""
    pairs = list(scored)
    result: dict[str, float | None] = {
        name: mean([getattr(score, name) for _, score in pairs]) for name in METRIC_NAMES
    }
    for category in categories:
        values = [score.call_match for cat, score in pairs if cat == category]
        result[f"call_match_{category}"] = mean(values)
    return result


def metric_names(categories: Sequence[str]) -> tuple[str, ...]:
    """All metric keys ``aggregate`` produces, in report order."""
    return METRIC_NAMES + tuple(f"call_match_{c}" for c in categories)


def pass_hat_k(passes: Mapping[str, Sequence[bool]], k: int) -> float | None:
    """tau-bench's pass^k: the share of tasks whose ``k`` planned runs all passed.

    ``passes`` maps each planned task to its runs' verdicts in repeat order; a run that is
    missing or failed with an error counts as not passed (so the denominator is every planned
    task, as in ``metrics``). None without tasks. The one definition every results file uses.
    """
    if not passes:
        return None
    passed = sum(1 for runs in passes.values() if len(runs) >= k and all(runs[:k]))
    return passed / len(passes)


def pass_at_k(passes: Mapping[str, Sequence[bool]], k: int) -> float | None:
    """The share of tasks with at least one passing run among their first ``k`` (same inputs
    and denominator as ``pass_hat_k``)."""
    if not passes:
        return None
    return sum(1 for runs in passes.values() if any(runs[:k])) / len(passes)
