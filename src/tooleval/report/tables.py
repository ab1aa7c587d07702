"""The report as text: one table across runs (rich for the terminal, Markdown for files)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich.table import Table

from tooleval.report import multiturn
from tooleval.report.analysis import (
    BEHAVIOURS,
    WITHOUT_NOT_COVERED,
    PairedComparison,
    RunSummary,
)
from tooleval.report.build import Report
from tooleval.report.stats import DELTA_METHOD, INTERVAL_METHOD, PAIRED_METHOD, Rate
from tooleval.report.text import md_table as md_table
from tooleval.report.text import pct as pct
from tooleval.report.text import signed as signed
from tooleval.report.text import with_interval as with_interval

INCOMPLETE_MARK = "⚠ incomplete"
SIDE_METRICS = ("tool_match", "args_match", "parsed", "format_ok")
MAX_DIFF_ROWS = 25
BEHAVIOUR_LABELS = {
    "direct_gold": "direct (gold)",
    "direct_other_args": "direct, other args",
    "overview_first": "overview first",
    "other_call": "other call",
    "no_call": "no call",
}


def errors_cell(summary: RunSummary) -> str:
    run = summary.run
    if not run.errors:
        return "0"
    detail = ", ".join(f"{k} {v}" for k, v in sorted(run.errors_by_class.items()))
    return f"{run.errors} ({detail})"


def without_not_covered(summary: RunSummary, show: Callable[[Rate], str]) -> str:
    found = summary.rates.get(WITHOUT_NOT_COVERED)
    return "–" if found is None else show(found)


def header(report: Report) -> list[str]:
    cols = ["#", "model", "setup", "answered", "call_match [95% CI]"]
    if report.any_incomplete:
        cols.append("call_match answered-only")
    if report.has_not_covered:
        cols.append("call_match w/o not_covered")
    cols += ["tool_match", "args_match", "parsed", "format_ok"]
    cols += list(report.categories)
    cols.append("errors")
    return cols


def row(report: Report, index: int, summary: RunSummary) -> list[str]:
    run = summary.run
    answered = f"{run.answered}/{run.planned}"
    if not run.complete:
        answered += f" {INCOMPLETE_MARK}"
    cells = [str(index), run.model, run.setup, answered, with_interval(summary.rates["call_match"])]
    if report.any_incomplete:
        cells.append("" if run.complete else with_interval(summary.rates_answered["call_match"]))
    if report.has_not_covered:
        cells.append(without_not_covered(summary, with_interval))
    cells += [pct(summary.rates[m].value) for m in SIDE_METRICS]
    for category in report.categories:
        cells.append(pct(summary.rates[f"call_match_{category}"].value))
    cells.append(errors_cell(summary))
    return cells


def table_rows(report: Report) -> list[list[str]]:
    return [row(report, i, s) for i, s in enumerate(report.shown, start=1)]


def compact_interval(r: Rate) -> str:
    if r.low is None or r.high is None:
        return "–"
    return f"{100 * r.low:.0f}–{100 * r.high:.0f}"


def terminal_header(report: Report) -> list[str]:
    cols = ["#", "model", "setup", "answered", "call\nmatch", "95% CI"]
    if report.any_incomplete:
        cols.append("answered\nonly")
    if report.has_not_covered:
        cols.append("w/o not\ncovered")
    cols += ["tool", "args", "parsed", "format\nok"]
    cols += [c.replace("_", "\n") for c in report.categories]
    return [*cols, "errors"]


def terminal_row(report: Report, index: int, summary: RunSummary) -> list[str]:
    run = summary.run
    call = summary.rates["call_match"]
    answered = f"{run.answered}/{run.planned}" + ("" if run.complete else " ⚠")
    cells = [str(index), run.model, run.setup, answered, pct(call.value), compact_interval(call)]
    if report.any_incomplete:
        cells.append("" if run.complete else pct(summary.rates_answered["call_match"].value))
    if report.has_not_covered:
        cells.append(without_not_covered(summary, lambda r: pct(r.value)))
    cells += [pct(summary.rates[m].value) for m in SIDE_METRICS]
    cells += [pct(summary.rates[f"call_match_{c}"].value) for c in report.categories]
    return [*cells, str(run.errors)]


def rich_table(report: Report) -> Table:
    """A compact terminal table; Markdown and HTML carry the details (intervals, errors)."""
    title = f"tooleval report: {len(report.summaries)} runs, sorted by {report.sort_key}"
    if report.top and report.top < len(report.summaries):
        title += f" (top {report.top})"
    caption = "call_match in %, 95% CI: Wilson; ⚠ = incomplete run (gaps count as misses)"
    table = Table(title=title, caption=caption, padding=(0, 1))
    for index, name in enumerate(terminal_header(report)):
        if index in (1, 2):
            table.add_column(name, justify="left", overflow="fold", min_width=6)
        else:
            table.add_column(name, justify="right", no_wrap=True)
    for index, summary in enumerate(report.shown, start=1):
        table.add_row(*terminal_row(report, index, summary))
    return table


def delta_text(c: PairedComparison) -> str:
    """The delta with its paired bootstrap interval, e.g. ``+7.7 [+2.2, +13.2]``."""
    if c.delta_low is None or c.delta_high is None:
        return signed(c.delta)
    return f"{signed(c.delta)} [{signed(c.delta_low)}, {signed(c.delta_high)}]"


def comparison_lines(c: PairedComparison, title: str) -> list[str]:
    lines = [
        f"### {title}",
        "",
        f"On the {c.n} items both answered: {c.a} {with_interval(c.a_rate)}, "
        f"{c.b} {with_interval(c.b_rate)}, delta {delta_text(c)} points. "
        f"Only {c.a} right: {c.a_only}; only {c.b} right: {c.b_only}; "
        f"p = {c.p_value:.3g} ({PAIRED_METHOD}; delta interval: {DELTA_METHOD}).",
        "",
    ]
    deltas = [[cat, signed(v)] for cat, v in c.category_delta.items() if v is not None]
    if deltas:
        lines += [*md_table(["category", f"delta ({c.b} − {c.a})"], deltas), ""]
    if c.diffs:
        shown = c.diffs[:MAX_DIFF_ROWS]
        rows = [[d.task_id, str(d.repeat), d.category, str(d.a), str(d.b)] for d in shown]
        lines += [*md_table(["item", "repeat", "category", c.a, c.b], rows), ""]
        if len(c.diffs) > len(shown):
            lines += [f"… and {len(c.diffs) - len(shown)} more items (report.json lists all).", ""]
    return lines


def not_covered_lines(report: Report) -> list[str]:
    if not report.shown_not_covered:
        return []
    head = ["run", "answered", *(BEHAVIOUR_LABELS[b] for b in BEHAVIOURS)]
    rows = [
        [b.run_id, str(b.answered), *(f"{b.counts[n]} ({pct(b.share(n))} %)" for n in BEHAVIOURS)]
        for b in report.shown_not_covered
    ]
    return [
        "## not_covered, read separately",
        "",
        "The first call on items whose data type the city lacks. The suite scores the direct "
        "get_city_data call as gold (the API answers not_covered and names covered cities); "
        "looking at get_city_overview first is a defensible behaviour, not an error.",
        "",
        *md_table(head, rows),
        "",
    ]


def markdown(report: Report, images: Sequence[str] = ()) -> str:
    """The report as Markdown; ``images`` are chart file names to link below the table."""
    lines = ["# tooleval report", "", f"Rates in percent; intervals: {INTERVAL_METHOD}.", ""]
    if report.summaries:
        lines += [*md_table(header(report), table_rows(report)), ""]
    lines += [f"![{Path(name).stem}]({name})" for name in images] + ([""] if images else [])
    if report.any_incomplete:
        lines += [
            f"{INCOMPLETE_MARK}: not every planned item was answered; `call_match` counts a gap "
            "as a miss, the answered-only column scores the answers that arrived.",
            "",
        ]
    if report.mode_deltas:
        lines += ["## Prompt vs. native mode", ""]
        for c in report.mode_deltas:
            lines += comparison_lines(c, f"{c.a} → {c.b}")
    if report.comparisons:
        lines += ["## Paired comparisons", ""]
        for c in report.comparisons:
            lines += comparison_lines(c, f"{c.a} vs. {c.b}")
    lines += not_covered_lines(report)
    lines += multiturn.markdown_lines(report.conversations)
    if report.skipped:
        lines += ["Skipped files: " + ", ".join(f"{p.name} ({why})" for p, why in report.skipped)]
    return "\n".join(lines).rstrip() + "\n"
