"""Report charts as PNG bytes: a heatmap (runs × categories), call_match bars with intervals,
and the not_covered behaviour as stacked bars.

Matplotlib is used through its object API on the Agg canvas (no pyplot, no display, no global
state). Figure sizes are fixed in inches at ``DPI`` so a chart's pixel size is predictable.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from tooleval.report.analysis import BEHAVIOURS
from tooleval.report.build import Report
from tooleval.report.tables import BEHAVIOUR_LABELS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 100
HEATMAP = "report-heatmap.png"
BARS = "report-call-match.png"
NOT_COVERED = "report-not-covered.png"


def heatmap_size(n_runs: int, n_columns: int) -> tuple[float, float]:
    """Figure size in inches: wide enough for the columns, tall enough for the runs."""
    return (4.0 + 0.9 * n_columns, 1.6 + 0.42 * max(1, n_runs))


def bars_size(n_runs: int) -> tuple[float, float]:
    return (8.0, 1.4 + 0.42 * max(1, n_runs))


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _figure(size: tuple[float, float]) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=size, dpi=DPI, layout="constrained")


def heatmap_png(report: Report) -> bytes:
    """call_match overall and per category, in percent, one row per shown run."""
    import numpy as np

    runs = report.shown
    keys = ["call_match", *(f"call_match_{c}" for c in report.categories)]
    labels = ["overall", *report.categories]
    values = np.array(
        [[_percent(s.rates[k].value) for k in keys] for s in runs], dtype=float
    ).reshape(len(runs), len(keys))
    figure = _figure(heatmap_size(len(runs), len(keys)))
    ax = figure.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(keys)), labels, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(runs)), [_run_label(s.run.label, s.run.complete) for s in runs])
    ax.tick_params(axis="y", labelsize=8)
    for (row, col), value in np.ndenumerate(values):
        text = "–" if np.isnan(value) else f"{value:.0f}"
        colour = "white" if not np.isnan(value) and (value < 15 or value > 85) else "black"
        ax.text(col, row, text, ha="center", va="center", fontsize=8, color=colour)
    ax.set_title("call_match by category (%)", fontsize=10)
    figure.colorbar(image, ax=ax, fraction=0.03)
    return _png(figure)


def bars_png(report: Report) -> bytes:
    """call_match per run with its 95 % Wilson interval; answered-only as a hollow marker."""
    runs = list(reversed(report.shown))
    figure = _figure(bars_size(len(runs)))
    ax = figure.add_subplot()
    for y, summary in enumerate(runs):
        r = summary.rates["call_match"]
        value = _percent(r.value)
        ax.barh(y, value, color="#4c78a8" if summary.run.complete else "#b0b0b0")
        if r.low is not None and r.high is not None:
            err = [[value - 100 * r.low], [100 * r.high - value]]
            ax.errorbar(value, y, xerr=err, fmt="none", ecolor="black", capsize=3, lw=1)
        answered = summary.rates_answered["call_match"].value
        if not summary.run.complete and answered is not None:
            ax.plot(100 * answered, y, marker="D", mfc="none", mec="#e45756", ms=6)
    ax.set_yticks(range(len(runs)), [_run_label(s.run.label, s.run.complete) for s in runs])
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("call_match (%), bars: 95 % Wilson interval; diamond: answered-only", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _png(figure)


def not_covered_png(report: Report) -> bytes | None:
    """Stacked shares of the first call on not_covered items; None when no run has them."""
    rows = [b for b in report.shown_not_covered if b.answered]
    if not rows:
        return None
    colours = ("#54a24b", "#88d27a", "#4c78a8", "#f58518", "#bab0ac")
    figure = _figure(bars_size(len(rows)))
    ax = figure.add_subplot()
    for y, behaviour in enumerate(reversed(rows)):
        left = 0.0
        for name, colour in zip(BEHAVIOURS, colours, strict=True):
            width = 100 * (behaviour.share(name) or 0.0)
            ax.barh(
                y, width, left=left, color=colour, label=BEHAVIOUR_LABELS[name] if y == 0 else None
            )
            left += width
    ax.set_yticks(range(len(rows)), [b.run_id for b in reversed(rows)])
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("first call on not_covered items (% of answered)", fontsize=8)
    ax.legend(fontsize=7, ncols=5, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)
    return _png(figure)


def all_charts(report: Report) -> dict[str, bytes]:
    """File name -> PNG bytes for every chart this report has (none without single-call runs)."""
    if not report.summaries:
        return {}
    charts = {HEATMAP: heatmap_png(report), BARS: bars_png(report)}
    behaviour = not_covered_png(report)
    if behaviour is not None:
        charts[NOT_COVERED] = behaviour
    return charts


def _percent(value: float | None) -> float:
    return float("nan") if value is None else 100 * value


def _run_label(label: str, complete: bool) -> str:
    short = label if len(label) <= 48 else label[:45] + "…"
    return short if complete else f"{short} (incomplete)"
