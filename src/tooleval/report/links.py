"""Links from the numbers of the summary tables to the item explorer's filtered list.

A link is a URL fragment (``#run=gpt-4.1&cat=resource_key&metric=call_match``) that the page's
script reads as its filter state, so a link can also be copied and shared. Keys:
``run``, ``cat`` (a category, or ``!name`` for every category but one), ``metric`` and ``val``
(``1`` hits, ``0`` misses), ``err`` (``none`` answered only, ``any`` unanswered, ``class`` a
provider error of any class, or one class), ``end`` (how a conversation ended), ``cls`` (a
conversation's outcome class), ``beh`` (a not_covered behaviour), ``q`` (search text),
``view=compare`` with ``a``, ``b`` and ``only`` (``a`` or ``b``: the run that alone got the
item right).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from tooleval.report.analysis import NOT_COVERED, PairedComparison, RunSummary
from tooleval.report.explorer import METRICS
from tooleval.report.loading import RunInfo
from tooleval.report.multiturn import HEAD as CONVERSATION_HEAD
from tooleval.report.multiturn import ConversationSummary, original_rows, rows

RUN_COLUMNS = frozenset({"model", "setup", "answered"})
RATE, BESIDE = "rate [95% CI]", "original's rule"
ORIGINAL_RULE = "passed"
"""A conversation's pass by the original harness's rule (Cesium: ``score.passed``)."""


@dataclass(frozen=True)
class Linked:
    """A table cell whose text links to the items behind it."""

    text: str
    href: str


@dataclass(frozen=True)
class Joined:
    """Parts (text or links) shown one after another, separated by ``separator``."""

    parts: tuple[str | Linked, ...]
    separator: str = ", "
    suffix: str = ""


Cell = str | Linked | tuple[Linked, ...] | Joined
"""Plain text, one link, several links shown as ``first (second, third)``, or joined parts."""


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


def error_cell(run: RunInfo) -> Cell:
    """The errors cell: the total links to every item with a provider error, each class to its
    items (items a stopped run never asked are not errors: they are ``not_run``)."""
    total = Linked(str(run.errors), items_href(run=run.run_id, err="class"))
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
            out.append(error_cell(summary.run))
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


def counts_cell(run_id: str, key: str, counts: Mapping[str, int]) -> Cell:
    """``name count, …``, each linked to its items (``key=name``); ``0`` links to none."""
    if not counts:
        return "0"
    return Joined(
        tuple(
            Linked(f"{name} {count}", items_href(run=run_id, **{key: name}))
            for name, count in sorted(counts.items())
        )
    )


def conversation_cells(summary: ConversationSummary, cells: Sequence[str]) -> list[Cell]:
    """A row of the multi-turn table with every number linked to its conversations."""
    run = summary.run
    href = {"run": run.run_id}
    linked: dict[str, Cell] = {
        "model": Linked(run.model, items_href(**href)),
        "setup": Linked(run.setup, items_href(**href)),
        "finished": Joined(
            (
                Linked(str(summary.success.n), items_href(**href, err="none")),
                Linked(str(run.planned), items_href(**href)),
            ),
            "/",
            "" if run.complete else " ⚠",
        ),
        "endings": counts_cell(run.run_id, "end", run.endings),
        "outcomes": counts_cell(run.run_id, "cls", run.outcomes),
        "errors": error_cell(run),
    }
    beside = cells[CONVERSATION_HEAD.index(BESIDE)]
    if summary.beside is not None:  # the original's rule, over every conversation of the run
        linked[BESIDE] = Linked(beside, items_href(**href, metric=ORIGINAL_RULE))
    success = cells[CONVERSATION_HEAD.index(RATE)]
    if success != "–":  # the headline: the suite's success (Cesium: judged correct)
        linked[RATE] = Linked(success, items_href(**href, metric="success", err="none"))
    return [linked.get(name, text) for name, text in zip(CONVERSATION_HEAD, cells, strict=True)]


def conversation_table(summaries: Sequence[ConversationSummary]) -> list[list[Cell]]:
    return [
        conversation_cells(s, cells) for s, cells in zip(summaries, rows(summaries), strict=True)
    ]


def original_table(
    summaries: Sequence[ConversationSummary],
) -> tuple[list[str], list[list[Cell]]]:
    """The original harness's metrics; each pools every conversation of its run, so each
    links to all of them."""
    head, table = original_rows(summaries)
    with_original = [s for s in summaries if s.run.original_metrics]
    out: list[list[Cell]] = []
    for summary, cells in zip(with_original, table, strict=True):
        href = items_href(run=summary.run.run_id)
        out.append([text if text == "null" else Linked(text, href) for text in cells])
    return head, out
