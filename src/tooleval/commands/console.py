"""What the multi-turn commands (``episodes``, ``model-tools``) print first: the results
document's headline and the original harness's rule beside it. Kept apart from
``tooleval.report`` so a run does not import the report machinery."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def fmt(value: Any) -> str:
    return "null" if not isinstance(value, int | float) else f"{value:.3f}"


def headline_rows(document: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(name, value, defined by) for the document's headline and the original's rule beside
    it; none when the document has no ``headline`` section (then ``success`` leads)."""
    headline = document.get("headline")
    if not isinstance(headline, Mapping):
        return []
    judged = f"tooleval: {headline.get('correct')}/{headline.get('judged')} runs correct"
    lead = [(f"{headline.get('metric')} (headline)", fmt(headline.get("value")), judged)]
    beside = headline.get("beside")
    if isinstance(beside, Mapping):
        lead.append((str(beside.get("metric")), fmt(beside.get("value")), str(beside.get("label"))))
    return lead


def lead_names(document: Mapping[str, Any]) -> frozenset[str]:
    """The metric names the lead rows already show (left out of the rest of the table)."""
    headline = document.get("headline")
    if not isinstance(headline, Mapping):
        return frozenset()
    beside = headline.get("beside")
    names = {str(headline.get("metric"))}
    return frozenset(
        names | ({str(beside.get("metric"))} if isinstance(beside, Mapping) else set())
    )


def problems_line(document: Mapping[str, Any]) -> str | None:
    """``problems in wrong runs: value_mismatch 3, answer_missing 1`` where there are any."""
    headline = document.get("headline")
    problems = headline.get("problems") if isinstance(headline, Mapping) else None
    if not problems:
        return None
    return "problems in wrong runs: " + ", ".join(f"{k} {v}" for k, v in problems.items())
