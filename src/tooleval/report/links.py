"""Links from the numbers of the summary tables to the item explorer's filtered list.

A link is a URL fragment (``#run=gpt-4.1&cat=resource_key&metric=call_match``) that the page's
script reads as its filter state, so a link can also be copied and shared. Keys:
``run``, ``cat`` (a category, or ``!name`` for every category but one), ``metric`` and ``val``
(``1`` hits, ``0`` misses), ``err`` (``none`` answered only, ``any`` unanswered, or a class),
``beh`` (a not_covered behaviour), ``q`` (search text), ``view=compare`` with ``a``, ``b`` and
``only`` (``a`` or ``b``: the run that alone got the item right).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from tooleval.report.analysis import NOT_COVERED, PairedComparison, RunSummary
from tooleval.report.explorer import METRICS

RUN_COLUMNS = frozenset({"model", "setup", "answered"})


@dataclass(frozen=True)
class Linked:
    """A table cell whose text links to the items behind it."""

    text: str
    href: str


Cell = str | Linked | tuple[Linked, ...]
"""Plain text, one link, or several links shown as ``first (second, third)``."""


def items_href(**state: str) -> str:
    """The fragment for a filter state; empty values are left out."""
    return "#" + urlencode({key: value for key, value in state.items() if value})


def column_state(column: str, categories: Sequence[str]) -> dict[str, str] | None:
    """The filter (without the run) behind a main-table column, or None for no link."""
    if column in RUN_COLUMNS:
        return {}
    if column.startswith("call_match ["):
        return {"metric": "call_match"}
    if column == "call_match answered-only":
        return {"metric": "call_match", "err": "none"}
    if column == "call_match w/o not_covered":
        return {"metric": "call_match", "cat": f"!{NOT_COVERED}"}
    if column in METRICS:
        return {"metric": column}
    if column in categories:
        return {"metric": "call_match", "cat": column}
    return None


def error_cell(summary: RunSummary) -> Cell:
    """The errors cell: the total links to every unanswered item, each class to its items."""
    run = summary.run
    total = Linked(str(run.errors), items_href(run=run.run_id, err="any"))
    if not run.errors:
        return total
    by_class = (
        Linked(f"{name} {count}", items_href(run=run.run_id, err=name))
        for name, count in sorted(run.errors_by_class.items())
    )
    return (total, *by_class)


def linked_row(
    head: Sequence[str], cells: Sequence[str], summary: RunSummary, categories: Sequence[str]
) -> list[Cell]:
    """A main-table row with every number linked to its items."""
    out: list[Cell] = []
    for column, text in zip(head, cells, strict=True):
        state = column_state(column, categories)
        if column == "errors":
            out.append(error_cell(summary))
        elif state is None or not text or text == "–":
            out.append(text)
        else:
            out.append(Linked(text, items_href(run=summary.run.run_id, **state)))
    return out


def behaviour_href(run_id: str, behaviour: str | None) -> str:
    state = {"beh": behaviour} if behaviour else {"err": "none"}
    return items_href(run=run_id, cat=NOT_COVERED, **state)


def compare_href(c: PairedComparison, **state: str) -> str:
    return items_href(view="compare", a=c.a, b=c.b, metric=c.metric, **state)


def comparison_links(c: PairedComparison) -> Mapping[str, str]:
    """Hrefs for a comparison's counts: common items, differing items, each direction."""
    return {
        "all": compare_href(c, only="all"),
        "differ": compare_href(c),
        "a_only": compare_href(c, only="a"),
        "b_only": compare_href(c, only="b"),
    }
