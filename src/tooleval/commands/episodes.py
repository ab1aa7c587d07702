"""``tooleval episodes``: multi-turn conversations of a suite, run by the shared driver.

InfraNode (default): the model's tool calls run against the offline API replica
(``--api-base-url`` for a live or served API) and the results go back to it, for up to
``--max-rounds`` turns. ``--suite cesium`` runs the Cesium scenarios over the simulated globe
(``tooleval model-tools`` is the same with the Cesium guide's routing preflight). Writes
``results/<model>.episodes.json`` and prints the outcomes and metrics.

InfraNode with ``--judge-backend``: after the run (its results file is written first), a judge
model reads the final answers the deterministic check could not decide (``--judge-all``: every
answer whose calls were right); its verdicts are added to the file as their own metrics.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
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
    multi_turn_flags,
    printable,
    provider_flags,
    provider_for,
    questions_of,
    run_flags,
    setting,
    shown,
    url,
)
from tooleval.commands.console import headline_rows, lead_names
from tooleval.commands.judging import add_verdicts, judge_flags, judge_for
from tooleval.records import ConversationRecord
from tooleval.runner import default_results_path, load_run_suite, run_conversations
from tooleval.runner.results import write_results
from tooleval.runner.toolcheck import ToolsNotDelivered
from tooleval.suites import SUITE_NAMES

NAME = "episodes"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        NAME,
        parents=[provider_flags(), run_flags(), multi_turn_flags(), judge_flags()],
        help=COMMANDS["episodes"],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
    )
    p.add_argument("--suite", default="infranode", choices=SUITE_NAMES)
    p.add_argument(
        "--api-base-url", type=url, default=None, help="InfraNode API URL (default: replica)"
    )
    p.add_argument(
        "--max-result-chars", type=setting("max_result_chars"), default=4000, metavar="N"
    )
    p.set_defaults(func=run)


def summary_table(document: dict[str, Any]) -> Table:
    config = document["config"]
    title = f"{config['model']} – {config['suite']} episodes ({document['setup']})"
    table = Table(title=printable(title))
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value, defined_by in headline_rows(document):
        table.add_row(f"{name} – {defined_by}", value)
    shown = lead_names(document)
    for name, count in (document.get("outcomes") or {}).items():
        table.add_row(f"outcome {name}", str(count))
    for name, value in document["metrics"].items():
        if name not in shown:
            table.add_row(name, fmt(value))
    for name, value in (document.get("original_metrics") or {}).items():
        if name not in shown:
            table.add_row(f"{name} (original harness)", fmt(value))
    first = document.get("first_call") or {}
    for name in ("call_match", "format_ok"):
        if name in first:
            table.add_row(f"first-call {name}", fmt(first[name]))
    return table


def fmt(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    options = (("api_base_url", args.api_base_url),) if args.api_base_url else ()
    try:
        config = config_from_args(
            args, args.suite, "episodes", max_result_chars=args.max_result_chars,
            suite_options=options,
        )  # fmt: skip
        suite = load_run_suite(config)
        judge = judge_for(args, config, suite)
        provider = provider_for(config, args.script, questions_of(suite.tasks))
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    records: list[ConversationRecord] = []

    def progress(record: ConversationRecord) -> None:
        records.append(record)
        console.print(shown(f"{record.task_id}: {record.outcome}"))

    try:
        document = run_conversations(config, provider, suite=suite, on_record=progress)
        if judge is not None:
            add_verdicts(judge, args.judge_all, suite, records, document)
            write_results(default_results_path(config), document)
    except ToolsNotDelivered as exc:
        return fail(NAME, f"{exc}; results: {config.output}", EXIT_FAILED)
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    except KeyboardInterrupt:
        console.print(f"\n[yellow]interrupted[/]: results so far: {shown(config.output)}")
        return EXIT_INTERRUPTED
    data_console().print(summary_table(document))
    console.print(f"results: {shown(config.output)}")
    if document["stop_reason"]:
        console.print(f"[yellow]stopped early[/]: {shown(document['stop_reason'])}")
    return EXIT_OK if document["complete"] else EXIT_INCOMPLETE
