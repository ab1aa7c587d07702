"""Text forms of the report's numbers (percentages, intervals, deltas) and Markdown tables,
shared by every renderer."""

from __future__ import annotations

from tooleval.report.stats import Rate


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def with_interval(r: Rate) -> str:
    if r.value is None or r.low is None or r.high is None:
        return "–"
    return f"{pct(r.value)} [{pct(r.low)}–{pct(r.high)}]"


def signed(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}"


def md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return [line(head), "|" + "|".join("---" for _ in head) + "|", *(line(r) for r in rows)]
