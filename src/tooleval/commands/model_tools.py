"""``tooleval model-tools``: the Cesium scenarios as the Cesium guide runs them.

Without ``--live`` only the routing preflight runs: no model request is made and the exit code
is 1 when any scenario's required tools are not routed. With ``--live`` each scenario runs as
a multi-turn conversation over the simulated globe through the shared driver and request path
(the same flags as ``run`` and ``episodes``). The provider is named as in the guide:
``--provider workers-ai`` (the default: the public demo, no key, paced under its 30 requests
per minute), ``--provider deepseek`` (DEEPSEEK_API_KEY, model deepseek-v4-flash, thinking off)
or ``--provider openai --endpoint URL --model M`` (key from MODEL_EVAL_API_KEY, sent only to
that host; model also from MODEL_EVAL_MODEL); or any ``--backend``/``--preset``/``--base-url``.
With ``--live`` the first 6 scenarios run unless ``--limit`` or ``--case`` says otherwise.
The results file (``--output``, default ``results/<model>.scenarios.json``) leads with the
headline ``scenarioCorrectRate`` (each run's verdict and problems are kept with the run) and
the original's ``scenarioPassRate`` beside it, and keeps full transcripts, the tools sent and
their hash, the original harness's nine metrics beside tooleval's, and never a key; the
console table leads with the same two numbers. ``--delay-ms``/``--timeout-ms`` are deprecated
aliases of ``--rpm``/``--timeout``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from tooleval.commands import COMMANDS
from tooleval.commands.common import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    DeprecatedAlias,
    config_from_args,
    data_console,
    fail,
    multi_turn_flags,
    printable,
    provider_flags,
    provider_for,
    questions_of,
    run_flags,
    shown,
)
from tooleval.commands.console import headline_rows, lead_names, problems_line
from tooleval.fileio import dumps, write_json_atomic
from tooleval.providers.presets import PRESETS, chat_url
from tooleval.records import ConversationRecord
from tooleval.runner import load_run_suite, run_conversations, select_tasks
from tooleval.runner.records import RunConfig
from tooleval.runner.toolcheck import ToolsNotDelivered
from tooleval.suites.cesium.preflight import ROUTERS, Routed, preflight, select_scenarios

NAME = "model-tools"
LIVE_LIMIT = 6
USAGE_TIMEOUT_S = 15.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        NAME,
        parents=[provider_flags(), run_flags(), multi_turn_flags()],
        help=COMMANDS[NAME],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--live", action="store_true", help="allow model requests (never without)")
    p.add_argument("--router", choices=tuple(ROUTERS), default="original")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--delay-ms", dest="rpm", metavar="MS", help=argparse.SUPPRESS,
        action=DeprecatedAlias, new="rpm", setting="rpm", scale=60_000.0, inverse=True,
    )  # fmt: skip
    p.add_argument(
        "--timeout-ms", dest="timeout", metavar="MS", help=argparse.SUPPRESS,
        action=DeprecatedAlias, new="timeout", setting="timeout_s", scale=0.001,
    )  # fmt: skip
    p.set_defaults(
        func=run, backend=None, mode="native", max_tokens=1024, max_requests=24, timeout=90.0,
        concurrency=1,
    )  # fmt: skip


def guide_defaults(args: argparse.Namespace) -> None:
    """No provider named at all: the guide's default, the Workers AI demo; a live run without
    --limit or --case runs the first 6 scenarios, as the guide's runner does."""
    named = (args.backend, args.provider, args.preset, args.base_url, args.endpoint)
    if all(value is None for value in named):
        args.provider = "workers-ai"
    if args.backend is None:
        args.backend = "openai"
    if args.live and args.limit is None and not args.case:
        args.limit = LIVE_LIMIT


def print_preflight(routed: list[Routed], router: str) -> None:
    print(f"routing preflight ({router} router): {len(routed)} scenarios")
    for item in routed:
        missing = f" missing={','.join(item.missing)}" if item.missing else ""
        toolsets = ",".join(item.selection.toolsets)
        print(f"- {item.scenario.id}: {len(item.selection.tools)} tools [{toolsets}]{missing}")


def preflight_document(routed: list[Routed], router: str) -> dict[str, Any]:
    return {
        "router": router,
        "routing_misses": sum(1 for r in routed if r.missing),
        "scenarios": [
            {"id": r.scenario.id, "missing": list(r.missing), **r.selection.to_json()}
            for r in routed
        ],
    }


def run_preflight(args: argparse.Namespace) -> int:
    try:
        routed = preflight(select_scenarios(args.case), args.router)
    except ValueError as exc:
        return fail(NAME, exc)
    routed = routed[: args.limit] if args.limit else routed
    document = preflight_document(routed, args.router)
    if args.json:
        print(dumps(document, indent=2))
    else:
        print_preflight(routed, args.router)
        print("no model was called (add --live to run the scenarios)")
    if args.output:
        write_json_atomic(args.output, document, indent=2)
    return EXIT_FAILED if document["routing_misses"] else EXIT_OK


def usage_before(config: RunConfig) -> dict[str, Any] | None:
    """The Workers AI demo's quota state (GET /api/usage), or None when it cannot be read."""
    if config.preset != "workers-ai":
        return None
    base = config.base_url or PRESETS["workers-ai"].base_url
    chat = config.endpoint or chat_url(PRESETS["workers-ai"], base) or base
    usage_url = chat.removesuffix("/chat") + "/usage"
    try:
        headers = {"Accept": "application/json"}
        answer = httpx.get(usage_url, headers=headers, timeout=USAGE_TIMEOUT_S)
        body = answer.json() if answer.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def summary_table(document: dict[str, Any]) -> Table:
    """The headline first (``scenarioCorrectRate``), the original's ``scenarioPassRate`` beside
    it labelled as the original's rule, then the other metrics of both."""
    config = document["config"]
    title = f"{config['model']} – cesium scenarios ({document['setup']})"
    table = Table(title=printable(title))
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("defined by")
    for row in headline_rows(document):
        table.add_row(*row)
    shown = lead_names(document)
    for name, value in (document.get("original_metrics") or {}).items():
        if name not in shown:
            table.add_row(name, fmt(value), "original harness")
    for name, value in document["metrics"].items():
        if name not in shown:
            table.add_row(name, fmt(value), "tooleval")
    return table


def fmt(value: Any) -> str:
    return "null" if value is None else f"{value:.3f}"


def run_live(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    options = (("router", args.router),)
    try:
        config = config_from_args(args, "cesium", "scenarios", suite_options=options)
        suite = load_run_suite(config)
        provider = provider_for(config, args.script, questions_of(suite.tasks))
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    usage = usage_before(config)
    if usage is not None:
        console.print(
            shown(f"Workers AI usage before run: {usage.get('percent')}% ({usage.get('state')})")
        )
        if usage.get("state") == "paused":
            return fail(NAME, "the Workers AI demo's budget is paused; try again later", 1)
    total = len(select_tasks(suite, config)) * config.repeats
    done = 0

    def progress(record: ConversationRecord) -> None:
        nonlocal done
        done += 1
        calls = " -> ".join(c.name or "<missing>" for c in record.calls) or "no tool"
        console.print(shown(f"[{done}/{total}] {record.task_id}: {record.outcome} ({calls})"))

    extra = {"provider_usage_before": usage}
    try:
        document = run_conversations(config, provider, suite=suite, on_record=progress, extra=extra)
    except ToolsNotDelivered as exc:
        return fail(NAME, f"{exc}; results: {config.output}", EXIT_FAILED)
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    except KeyboardInterrupt:
        console.print(f"\n[yellow]interrupted[/]: results so far: {shown(config.output)}")
        return EXIT_INTERRUPTED
    if args.json:
        keys = ("headline", "metrics", "original_metrics", "original_counts", "endings")
        print(json.dumps({k: document.get(k) for k in keys}, ensure_ascii=False, indent=2))
    else:
        data_console().print(summary_table(document))
        problems = problems_line(document)
        if problems:
            console.print(problems)
    console.print(f"results: {shown(config.output)}")
    return EXIT_OK if document["complete"] else EXIT_INCOMPLETE


def run(args: argparse.Namespace) -> int:
    guide_defaults(args)
    if not args.live:
        return run_preflight(args)
    if args.mode != "native":
        return fail(NAME, "the Cesium scenarios run in native mode only")
    return run_live(args)
