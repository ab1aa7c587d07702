"""A self-contained HTML page: summary tables linked to the item explorer, charts, comparisons.

Nothing is loaded from the network: the charts are base64 data URIs, the explorer's script and
style ship in the package (``report/assets``) and are inlined, and a Content-Security-Policy
allows exactly those two inline blocks, images from data URIs and nothing else. Every value
from a results file is HTML-escaped here or rendered as text by the script.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files

from tooleval.report.analysis import BEHAVIOURS, PairedComparison
from tooleval.report.build import Report
from tooleval.report.charts import BARS, HEATMAP, NOT_COVERED
from tooleval.report.links import (
    Cell,
    Joined,
    Linked,
    behaviour_href,
    compare_href,
    comparison_links,
    conversation_table,
    linked_row,
    original_table,
)
from tooleval.report.loading import RunData
from tooleval.report.multiturn import HEAD as CONVERSATION_HEAD
from tooleval.report.multiturn import LEFT as CONVERSATION_LEFT
from tooleval.report.multiturn import NOTE as CONVERSATION_NOTE
from tooleval.report.page_data import explorer_data, json_block
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

DATA_ID = "tooleval-data"
CAMEL = re.compile(r"([a-z])([A-Z])")
RUN_COLUMNS = ("#", "model", "setup")


def asset(name: str) -> str:
    """A file from the package's report/assets folder."""
    return (files("tooleval.report") / "assets" / name).read_text(encoding="utf-8")


def csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(script: str, style: str) -> str:
    """Only the page's own script and style run; images only from data URIs; no requests."""
    return (
        f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def cell_html(cell: Cell) -> str:
    if isinstance(cell, Linked):
        return f'<a href="{escape(cell.href)}">{escape(cell.text)}</a>'
    if isinstance(cell, Joined):
        joined = escape(cell.separator).join(cell_html(part) for part in cell.parts)
        return joined + escape(cell.suffix)
    if isinstance(cell, tuple):
        first, *rest = (cell_html(c) for c in cell)
        return first + (f" ({', '.join(rest)})" if rest else "")
    return escape(cell)


def head_html(text: str) -> str:
    """A header cell that may break after underscores and inside camelCase (long category and
    metric names)."""
    return CAMEL.sub(r"\1<wbr>\2", escape(text).replace("_", "_<wbr>"))


def html_table(
    head: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    row_classes: Sequence[str] = (),
    left: Sequence[int] = (0,),
    klass: str = "",
) -> str:
    def cls(index: int) -> str:
        return ' class="l"' if index in left else ""

    parts = [f'<table class="{escape(klass)}">' if klass else "<table>", "<thead><tr>"]
    parts += [f"<th{cls(i)}>{head_html(h)}</th>" for i, h in enumerate(head)]
    parts.append("</tr></thead><tbody>")
    for n, cells in enumerate(rows):
        klass_n = row_classes[n] if n < len(row_classes) else ""
        parts.append(f'<tr class="{escape(klass_n)}">' if klass_n else "<tr>")
        parts += [f"<td{cls(i)}>{cell_html(c)}</td>" for i, c in enumerate(cells)]
        parts.append("</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def summary_tables(report: Report) -> str:
    """The main table without per-category columns, then call_match by category per run."""
    if not report.summaries:
        return ""
    head = header(report)
    rows = [
        linked_row(head, cells, summary, report.categories)
        for cells, summary in zip(table_rows(report), report.shown, strict=True)
    ]
    classes = ["" if s.run.complete else "incomplete" for s in report.shown]
    cats = set(report.categories)
    main = [i for i, h in enumerate(head) if h not in cats]
    by_cat = [i for i, h in enumerate(head) if h in cats or h in RUN_COLUMNS]

    def pick(columns: list[int], cells: Sequence[Cell]) -> list[Cell]:
        return [cells[i] for i in columns]

    left_main = [n for n, i in enumerate(main) if head[i] in ("model", "setup", "answered")]
    parts = [
        html_table([head[i] for i in main], [pick(main, r) for r in rows], classes, left_main),
    ]
    if report.categories:
        parts += [
            "<h3>call_match by category</h3>",
            html_table([head[i] for i in by_cat], [pick(by_cat, r) for r in rows], classes, (1, 2)),
        ]
    return "".join(parts)


def image(name: str, charts: Mapping[str, bytes], alt: str) -> str:
    data = charts.get(name)
    if data is None:
        return ""
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{encoded}">'


def link(text: str, href: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def comparison_html(c: PairedComparison, title: str) -> str:
    hrefs = comparison_links(c)
    summary = (
        f"On the {link(str(c.n), hrefs['all'])} items both answered: "
        f"{escape(c.a)} {with_interval(c.a_rate)}, "
        f"{escape(c.b)} {with_interval(c.b_rate)}, delta {delta_text(c)} points; "
        f"only {escape(c.a)} right: {link(str(c.a_only), hrefs['a_only'])}, "
        f"only {escape(c.b)} right: {link(str(c.b_only), hrefs['b_only'])}; "
        f"p = {c.p_value:.3g}. Side by side: "
        f"{link(f'{len(c.diffs)} items that differ', hrefs['differ'])}."
    )
    deltas: list[list[Cell]] = [
        [cat, Linked(signed(v), compare_href(c, cat=cat))]
        for cat, v in c.category_delta.items()
        if v is not None
    ]
    diffs: list[list[Cell]] = []
    for d in c.diffs:
        href = compare_href(c, q=d.task_id)
        cells = (d.task_id, str(d.repeat), d.category, str(d.a), str(d.b))
        diffs.append([Linked(text, href) for text in cells])
    parts = [f"<h3>{escape(title)}</h3>", f"<p>{summary}</p>"]
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
    rows: list[list[Cell]] = [
        [
            b.run_id,
            Linked(str(b.answered), behaviour_href(b.run_id, None)),
            *(
                Linked(f"{b.counts[n]} ({pct(b.share(n))} %)", behaviour_href(b.run_id, n))
                for n in BEHAVIOURS
            ),
        ]
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


def conversations_html(report: Report) -> str:
    """The multi-turn runs (episodes, scenarios), every number linked to its conversations."""
    if not report.conversations:
        return ""
    note = f"{CONVERSATION_NOTE} Each number opens its conversations; a row there opens to "
    note += "the whole conversation."
    classes = ["" if c.run.complete else "incomplete" for c in report.conversations]
    left = sorted(CONVERSATION_LEFT)
    parts = [
        "<h2>Multi-turn runs</h2>",
        f'<p class="note">{escape(note)}</p>',
        html_table(CONVERSATION_HEAD, conversation_table(report.conversations), classes, left),
    ]
    head, table = original_table(report.conversations)
    if table:
        parts += [
            "<h3>Original harness metrics</h3>",
            '<p class="note">As the original Cesium evaluation defines them (error runs in every '
            "denominator, null for an empty one); each links to all conversations of its run.</p>",
            html_table(head, table, left=(0, 1), klass="original"),
        ]
    return "".join(parts)


def explorer_runs(report: Report) -> list[RunData]:
    """The shown runs, plus any run a comparison names."""
    runs = {s.run.run_id: s.run for s in report.shown}
    every = {s.run.run_id: s.run for s in report.summaries}
    for c in (*report.comparisons, *report.mode_deltas):
        for run_id in (c.a, c.b):
            runs.setdefault(run_id, every[run_id])
    return list(runs.values())


def explorer_html(report: Report) -> str:
    pairs = [(c.a, c.b) for c in (*report.mode_deltas, *report.comparisons)]
    conversations = [c.run for c in report.conversations]
    data = explorer_data(explorer_runs(report), report.categories, pairs, conversations)
    return (
        '<section id="explorer"><h2>Items</h2>'
        '<p class="note">One row per item and repeat; click a row for the gold call, the '
        "parsed call, the raw output and the parser's reason, and for a multi-turn run the "
        "whole conversation. Every number above links here."
        "<noscript> The item explorer needs JavaScript.</noscript></p>"
        '<div id="explorer-app"></div></section>' + json_block(data, DATA_ID)
    )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def intro(report: Report) -> str:
    if not report.summaries:
        return (
            f'<p class="note">{plural(len(report.conversations), "multi-turn run")}. '
            "Every number links to the conversations behind it.</p>"
        )
    return (
        f'<p class="note">{plural(len(report.summaries), "run")}, sorted by '
        f"{escape(report.sort_key)}; "
        f"rates in percent; intervals: {escape(INTERVAL_METHOD)}; paired test: "
        f"{escape(PAIRED_METHOD)}; delta intervals: {escape(DELTA_METHOD)}. "
        f"{escape(INCOMPLETE_MARK)}: gaps count as misses in "
        "call_match; the answered-only column scores the answers that arrived. "
        "Every number links to the items behind it.</p>"
    )


def render_html(report: Report, charts: Mapping[str, bytes]) -> str:
    body = [
        "<header><h1>tooleval report</h1></header>",
        intro(report),
        summary_tables(report),
        '<div class="charts">',
        image(HEATMAP, charts, "call_match heatmap: runs by category"),
        image(BARS, charts, "call_match with 95% intervals"),
        "</div>",
        conversations_html(report),
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
    body.append(explorer_html(report))
    script, style = asset("dom.js") + asset("explorer.js"), asset("report.css")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" '
        f'content="{escape(content_security_policy(script, style))}">'
        f"<title>tooleval report</title><style>{style}</style></head><body>"
        + "\n".join(body)
        + f"<script>{script}</script></body></html>\n"
    )
