"""Reports across runs: load results files, compute rates with intervals, render and write.

``load_runs`` -> ``build_report`` -> ``write_report`` (Markdown, JSON, HTML, PNG charts).
"""

from __future__ import annotations

from pathlib import Path

from tooleval.fileio import dumps, write_bytes_atomic, write_text_atomic
from tooleval.report.build import Report, build_report, report_json
from tooleval.report.charts import all_charts
from tooleval.report.html import render_html
from tooleval.report.loading import LoadedRuns, ReportInputError, RunData, load_runs, read_run
from tooleval.report.stats import mcnemar_exact, wilson_interval
from tooleval.report.tables import markdown, rich_table

__all__ = [
    "LoadedRuns",
    "Report",
    "ReportInputError",
    "RunData",
    "build_report",
    "load_runs",
    "markdown",
    "mcnemar_exact",
    "read_run",
    "report_json",
    "rich_table",
    "wilson_interval",
    "write_report",
]

REPORT_FILES = ("report.md", "report.json", "report.html")


def write_report(report: Report, out_dir: Path) -> list[Path]:
    """Write report.md, report.json, report.html and the PNG charts; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    charts = all_charts(report)
    written: list[Path] = []
    for name, data in charts.items():
        write_bytes_atomic(out_dir / name, data)
        written.append(out_dir / name)
    texts = {
        "report.md": markdown(report, list(charts)),
        "report.json": dumps(report_json(report), indent=1) + "\n",
        "report.html": render_html(report, charts),
    }
    for name, text in texts.items():
        write_text_atomic(out_dir / name, text)
        written.append(out_dir / name)
    return written
