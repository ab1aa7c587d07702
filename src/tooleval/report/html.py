"""A self-contained HTML page: the table, the charts as base64 data URIs, comparisons."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from html import escape

from tooleval.report.analysis import BEHAVIOURS, PairedComparison
from tooleval.report.build import Report
from tooleval.report.charts import BARS, HEATMAP, NOT_COVERED
from tooleval.report.stats import DELTA_METHOD, INTERVAL_METHOD, PAIRED_METHOD
from tooleval.report.tables import (
    BEHAVIOUR_LABELS,
    INCOMPLETE_MARK,
    delta_text,
    header,
    pct,
    signed,
    table_rows,
    with_interval,
)

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}
table{border-collapse:collapse;font-size:13px;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
tr.incomplete td{background:#fff6e0}
img{max-width:100%;display:block;margin:1em 0}
.note{color:#555;font-size:13px}
"""
LEFT_COLUMNS = (1, 2, 3)


def html_table(
    head: Sequence[str], rows: Sequence[Sequence[str]], row_classes: Sequence[str] = ()
) -> str:
    numbered = bool(head) and head[0] == "#"

    def cls(index: int) -> str:
        left = index in LEFT_COLUMNS if numbered else index == 0
        return ' class="l"' if left else ""

    parts = ["<table><thead><tr>"]
    parts += [f"<th{cls(i)}>{escape(h)}</th>" for i, h in enumerate(head)]
    parts.append("</tr></thead><tbody>")
    for n, cells in enumerate(rows):
        klass = f' class="{row_classes[n]}"' if n < len(row_classes) and row_classes[n] else ""
        parts.append(
            f"<tr{klass}>"
            + "".join(f"<td{cls(i)}>{escape(c)}</td>" for i, c in enumerate(cells))
            + "</tr>"
        )
    parts.append("</tbody></table>")
    return "".join(parts)


def image(name: str, charts: Mapping[str, bytes], alt: str) -> str:
    data = charts.get(name)
    if data is None:
        return ""
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{encoded}">'


def comparison_html(c: PairedComparison, title: str) -> str:
    summary = (
        f"On the {c.n} items both answered: {c.a} {with_interval(c.a_rate)}, {c.b} "
        f"{with_interval(c.b_rate)}, delta {delta_text(c)} points; only {c.a} right: "
        f"{c.a_only}, only {c.b} right: {c.b_only}; p = {c.p_value:.3g}."
    )
    deltas = [[cat, signed(v)] for cat, v in c.category_delta.items() if v is not None]
    diffs = [[d.task_id, str(d.repeat), d.category, str(d.a), str(d.b)] for d in c.diffs]
    parts = [f"<h3>{escape(title)}</h3>", f"<p>{escape(summary)}</p>"]
    if deltas:
        parts.append(html_table(["category", "delta"], deltas))
    if diffs:
        parts.append("<details><summary>items that differ</summary>")
        parts.append(html_table(["item", "repeat", "category", c.a, c.b], diffs))
        parts.append("</details>")
    return "".join(parts)


def not_covered_html(report: Report, charts: Mapping[str, bytes]) -> str:
    if not report.shown_not_covered:
        return ""
    head = ["run", "answered", *(BEHAVIOUR_LABELS[b] for b in BEHAVIOURS)]
    rows = [
        [b.run_id, str(b.answered), *(f"{b.counts[n]} ({pct(b.share(n))} %)" for n in BEHAVIOURS)]
        for b in report.shown_not_covered
    ]
    note = (
        "The first call on items whose data type the city lacks: a behaviour, not an error rate. "
        "The suite scores the direct get_city_data call as gold; checking get_city_overview "
        "first is defensible too."
    )
    return (
        "<h2>not_covered, read separately</h2>"
        f'<p class="note">{escape(note)}</p>'
        + html_table(head, rows)
        + image(NOT_COVERED, charts, "not_covered behaviour")
    )


def render_html(report: Report, charts: Mapping[str, bytes]) -> str:
    classes = ["" if s.run.complete else "incomplete" for s in report.shown]
    body = [
        "<h1>tooleval report</h1>",
        f'<p class="note">{len(report.summaries)} runs, sorted by {escape(report.sort_key)}; '
        f"rates in percent; intervals: {escape(INTERVAL_METHOD)}; paired test: "
        f"{escape(PAIRED_METHOD)}; delta intervals: {escape(DELTA_METHOD)}. "
        f"{escape(INCOMPLETE_MARK)}: gaps count as misses in "
        "call_match; the answered-only column scores the answers that arrived.</p>",
        html_table(header(report), table_rows(report), classes),
        image(HEATMAP, charts, "call_match heatmap: runs by category"),
        image(BARS, charts, "call_match with 95% intervals"),
    ]
    if report.mode_deltas:
        body.append("<h2>Prompt vs. native mode</h2>")
        body += [comparison_html(c, f"{c.a} → {c.b}") for c in report.mode_deltas]
    if report.comparisons:
        body.append("<h2>Paired comparisons</h2>")
        body += [comparison_html(c, f"{c.a} vs. {c.b}") for c in report.comparisons]
    body.append(not_covered_html(report, charts))
    if report.skipped:
        skipped = ", ".join(f"{p.name} ({why})" for p, why in report.skipped)
        body.append(f'<p class="note">Skipped: {escape(skipped)}</p>')
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>tooleval report</title><style>{STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
