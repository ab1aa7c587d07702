"""``tooleval audit``: check that every item of a suite is defensible; non-zero on a defect."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_FAILED, EXIT_OK, fail
from tooleval.fileio import iter_jsonl
from tooleval.records import Task
from tooleval.suites.infranode.audit import AuditReport, audit_suite
from tooleval.suites.infranode.phrasing import REGISTERS
from tooleval.tasks import task_from_json

NAME = "audit"
AUDITED_SUITES = ("infranode",)  # the suites with single-call items built by a generator


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(NAME, help=COMMANDS[NAME])
    parser.add_argument("--suite", default="infranode", choices=AUDITED_SUITES)
    parser.add_argument(
        "--tasks", type=Path, default=None, help="a tasks.jsonl to audit (default: the shipped one)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def read_tasks(path: Path) -> list[Task]:
    """Tasks from a JSONL file; errors (``ValueError``, ``OSError``) name the file and line."""
    return [task_from_json(row, f"{path}:{line}") for line, row in iter_jsonl(path)]


def summary_table(report: AuditReport) -> Table:
    table = Table(title=f"tooleval audit: {report.suite} {report.version}, {report.tasks} tasks")
    columns = ("category", "items", "templates", "openings", "top opening", "f/c/t", "kinds")
    for name in columns:
        left = name in ("category", "top opening")
        table.add_column(name, justify="left" if left else "right", no_wrap=True)
    table.caption = "f/c/t: questions in formal, colloquial and terse register"
    for c in report.categories:
        word, count = c.top_opening
        registers = "/".join(str(c.registers.get(r, 0)) for r in REGISTERS) if c.registers else "–"
        table.add_row(
            c.category,
            str(c.items),
            str(c.templates),
            str(c.openings),
            f"{word} ({count})",
            registers,
            str(len(c.kinds)),
        )
    return table


def print_report(report: AuditReport) -> None:
    table = summary_table(report)
    natural = Console(width=1000).measure(table).maximum
    console = Console(highlight=False, soft_wrap=True)
    if console.width < natural:  # a narrow terminal wraps lines instead of cutting columns
        console = Console(highlight=False, soft_wrap=True, width=natural)
    console.print(table)
    for defect in report.defects:
        console.print(
            f"[red]defect[/] {defect.task_id or 'suite'} {defect.check}: {defect.message}"
        )
    counts = ", ".join(f"{k} {v}" for k, v in sorted(report.counts().items()))
    console.print(f"{len(report.defects)} defects" + (f" ({counts})" if counts else ""))


def run(args: argparse.Namespace) -> int:
    try:
        tasks = read_tasks(args.tasks) if args.tasks is not None else None
    except OSError as exc:
        return fail(NAME, f"cannot read {args.tasks}: {exc.strerror or exc}")
    except ValueError as exc:  # JsonFileError, TaskFormatError: they name the file and line
        return fail(NAME, exc)
    report = audit_suite(tasks, str(args.tasks) if args.tasks else "tasks.jsonl (shipped)")
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
    else:
        print_report(report)
    return EXIT_OK if report.ok else EXIT_FAILED
