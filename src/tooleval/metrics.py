"""Aggregates over per-item scores: the metric means and ``call_match_<category>``.

Each category mean is taken over that category's items only, never diluted by the others.
A value that was not recorded (``format_ok`` None: mode unknown) is left out of its mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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
