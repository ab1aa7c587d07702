"""``tooleval report``: one table across runs, plus Markdown, JSON, HTML and PNG charts."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_OK, data_console, fail, positive_int, shown
from tooleval.report import (
    ReportInputError,
    build_report,
    load_runs,
    multiturn,
    rich_table,
    write_report,
)
from tooleval.report.versions import select_version

NAME = "report"
DEFAULT_RESULTS = Path("results")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("report", help=COMMANDS["report"])
    p.add_argument(
        "paths", nargs="*", type=Path, help="results files or folders (default: results/)"
    )
    p.add_argument("--out", type=Path, default=None, help="where to write (default: the folder)")
    p.add_argument("--no-files", action="store_true", help="print the table only, write nothing")
    p.add_argument("--sort", default="call_match", metavar="METRIC", help="sort runs by METRIC")
    p.add_argument(
        "--top", type=positive_int, default=None, metavar="N", help="show the best N runs only"
    )
    p.add_argument(
        "--compare",
        nargs=2,
        action="append",
        default=[],
        metavar=("A", "B"),
        help="paired comparison of two runs (file stem or model name); repeatable",
    )
    p.add_argument(
        "--skip-bad", action="store_true", help="skip malformed results files instead of failing"
    )
    p.add_argument(
        "--suite-version",
        default=None,
        metavar="V",
        help="report only runs of this suite version (runs of different versions do not compare)",
    )
    p.set_defaults(func=run)


def default_out(paths: list[Path]) -> Path:
    """The first folder given, else the folder of the first file."""
    for path in paths:
        if path.is_dir():
            return path
    return paths[0].parent if paths else DEFAULT_RESULTS


def print_table(table: Table) -> None:
    """Print at the table's natural width: a narrow terminal wraps lines, never drops columns."""
    natural = Console(width=1000, markup=False).measure(table).maximum
    console = data_console()  # names in results files are shown as is, never interpreted
    if console.width < natural:
        console = data_console(width=natural)
    console.print(table)


def run(args: argparse.Namespace) -> int:
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    paths: list[Path] = args.paths or [DEFAULT_RESULTS]
    try:
        loaded = load_runs(paths, strict=not args.skip_bad)
        if args.suite_version is not None:
            loaded = select_version(loaded, args.suite_version)
        if loaded.empty:
            return fail(NAME, f"no results files in {', '.join(map(str, paths))}")
        report = build_report(loaded, [tuple(c) for c in args.compare], args.sort, args.top)
    except (ReportInputError, ValueError) as exc:
        return fail(NAME, exc)
    for path, reason in loaded.skipped:
        err.print(f"[yellow]skipped[/] {shown(path)}: {shown(reason)}")
    if report.summaries:
        print_table(rich_table(report))
    if report.conversations:
        print_table(multiturn.rich_table(report.conversations))
    if not args.no_files:
        out = args.out or default_out(paths)
        written = write_report(report, out)
        err.print(shown(f"wrote {', '.join(p.name for p in written)} to {out}"))
    return EXIT_OK
