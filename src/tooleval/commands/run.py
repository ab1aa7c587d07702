"""``tooleval run``: evaluate a model on a suite, one call per item, and print the table.

With no flags it runs the full InfraNode suite on the embedded local model, offline.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tooleval.commands import COMMANDS
from tooleval.commands.common import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    config_from_args,
    data_console,
    fail,
    printable,
    provider_flags,
    provider_for,
    questions_of,
    run_flags,
    shown,
)
from tooleval.providers.base import Provider
from tooleval.records import DECODINGS, Decoding
from tooleval.runner import load_run_suite, run_suite
from tooleval.runner.records import ItemRecord, RunConfig
from tooleval.runner.toolcheck import ToolsNotDelivered
from tooleval.suites import SUITE_NAMES, Suite

NAME = "run"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        NAME,
        parents=[provider_flags(), run_flags()],
        help=COMMANDS["run"],
    )
    p.add_argument("--suite", default="infranode", choices=SUITE_NAMES)
    p.add_argument(
        "--decoding",
        default=None,
        choices=DECODINGS,
        help="local backend: constrained = only valid calls of the suite's tools (the default "
        "there); free = the model writes anything (the only choice for other backends)",
    )
    p.add_argument("--resume", action="store_true", help="keep answered items, ask the rest")
    p.add_argument(
        "--resume-force", action="store_true",
        help="resume even though settings differ (the results record both configurations)",
    )  # fmt: skip
    p.add_argument("--fresh", action="store_true", help="start over; keep old journal as .bak")
    p.set_defaults(func=run)


def results_table(document: dict[str, Any]) -> Table:
    metrics = document["metrics"]
    answered = document["metrics_answered"]
    complete = document["complete"]
    title = printable(f"{document['config']['model']} ({document['setup']})")
    table = Table(title=title if complete else f"{title} — INCOMPLETE")
    table.add_column("metric")
    table.add_column("all items", justify="right")
    if not complete:
        table.add_column("answered only", justify="right")
    for name, value in metrics.items():
        row = [name, fmt(value)]
        if not complete:
            row.append(fmt(answered.get(name)))
        table.add_row(*row)
    return table


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def progress_bar(console: Console) -> Progress:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=console, transient=False)


def execute(config: RunConfig, suite: Suite[Any], provider: Provider, console: Console) -> int:
    with progress_bar(console) as progress:
        bar = progress.add_task(shown(config.model), total=None, errors=0, rate="")
        errors, answered, started = 0, 0, time.monotonic()

        def on_plan(total: int, done: int) -> None:
            progress.update(bar, total=total, completed=done)

        def on_record(record: ItemRecord) -> None:
            nonlocal errors, answered
            errors += record.error_class is not None
            answered += 1
            rate = answered / max(time.monotonic() - started, 1e-9)
            progress.update(bar, advance=1, errors=errors, rate=f"{rate:.2f} items/s")

        document = run_suite(config, provider, suite=suite, on_record=on_record, on_plan=on_plan)
    data_console().print(results_table(document))
    counts = document["counts"]
    console.print(
        f"answered {counts['answered']}/{counts['planned']}, provider errors {counts['errors']}"
        f" {shown(document['errors_by_class'] or '')}; results: {shown(config.output)}"
    )
    if document["stop_reason"]:
        console.print(f"[yellow]stopped early[/]: {shown(document['stop_reason'])}")
    return EXIT_OK if document["complete"] else EXIT_INCOMPLETE


def decoding_of(args: argparse.Namespace) -> Decoding:
    """``--decoding``, defaulting to constrained for the local backend and free elsewhere;
    ValueError for constrained decoding on a backend that cannot do it."""
    backend = "openai" if args.provider is not None else args.backend
    decoding: Decoding = args.decoding or ("constrained" if backend == "local" else "free")
    if decoding == "constrained" and backend != "local":
        raise ValueError(
            f"--decoding constrained is only available for --backend local, not {backend} "
            "(hosted APIs constrain tool calls themselves in --mode native)"
        )
    return decoding


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        decoding = decoding_of(args)
        suffix = "" if decoding == "free" else decoding
        config = config_from_args(
            args, args.suite, suffix, resume=args.resume or args.resume_force,
            resume_force=args.resume_force, fresh=args.fresh, decoding=decoding,
        )  # fmt: skip
        suite = load_run_suite(config)
        provider = provider_for(config, args.script, questions_of(suite.tasks), suite.tools)
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    try:
        return execute(config, suite, provider, console)
    except ToolsNotDelivered as exc:
        return fail(NAME, f"{exc}; results: {config.output}", EXIT_FAILED)
    except ValueError as exc:  # ResumeError included
        return fail(NAME, exc)
    except OSError as exc:
        return fail(
            NAME,
            f"cannot write the results: {exc}; answers already written are in the journal: "
            "fix this, then rerun with --resume",
        )
    except KeyboardInterrupt:
        console.print(
            "\n[yellow]interrupted[/]: answers so far are in the journal; continue with "
            f"the same command plus --resume (results: {shown(config.output)})"
        )
        return EXIT_INTERRUPTED
