"""``tooleval run``: evaluate a model on a suite and print the table.

With no flags it runs the full InfraNode suite on the embedded local model, offline.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tooleval.providers._shared import parse_reasoning
from tooleval.providers.registry import LOCAL_MODEL
from tooleval.runner import ResumeError, RunConfig, default_output, run_suite
from tooleval.runner.records import Decoding, ItemRecord
from tooleval.suites import SUITE_NAMES


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("run", help="evaluate a model on a suite (default: local model)")
    p.add_argument("--suite", default="infranode", choices=SUITE_NAMES)
    p.add_argument("--backend", default="local", help="openai|gemini|anthropic|local|fake")
    p.add_argument("--model", default=None, help="model name (local: a GGUF path or default)")
    p.add_argument("--base-url", default=None, help="API base URL (overrides the preset's)")
    p.add_argument("--preset", default=None, help="openai-compatible preset, e.g. hf, deepseek")
    p.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="environment variable holding the key (needed when --base-url leaves the preset)",
    )
    p.add_argument("--mode", default="prompt", choices=("prompt", "native"))
    p.add_argument(
        "--decoding",
        default=None,
        choices=("free", "constrained"),
        help="local backend: constrained = only valid calls of the suite's tools (the default "
        "there); free = the model writes anything (the only choice for other backends)",
    )
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--rpm", type=float, default=None, help="max calls per minute, all workers")
    p.add_argument("--resume", action="store_true", help="keep answered items, ask the rest")
    p.add_argument("--fresh", action="store_true", help="start over; keep old journal as .bak")
    p.add_argument(
        "--stop-after-errors",
        type=int,
        default=None,
        metavar="N",
        help="stop after N items failed with provider errors (requests in flight still finish)",
    )
    p.add_argument(
        "--max-requests",
        type=int,
        default=None,
        metavar="N",
        help="send at most N HTTP requests, retries included, then stop",
    )
    p.add_argument("--limit", type=int, default=None, metavar="N", help="first N tasks only")
    p.add_argument("--repeats", type=int, default=1, metavar="K")
    p.add_argument("--max-tokens", type=int, default=160)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--reasoning", default=None, help="off|low|medium|high|<token budget>")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    p.add_argument("--max-retries", type=int, default=4, help="retries of a retryable error")
    p.add_argument("--script", type=Path, default=None, help="fake backend: replies JSONL")
    p.add_argument("--output", type=Path, default=None, help="results file (results/<model>.json)")
    p.set_defaults(func=run)


def bad_flag(message: str) -> NoReturn:
    """Exit with code 2 (bad input) and one line on stderr."""
    print(f"tooleval run: {message}", file=sys.stderr)
    raise SystemExit(2)


def config_from_args(args: argparse.Namespace) -> RunConfig:
    for flag in ("concurrency", "repeats", "max_tokens"):
        if getattr(args, flag) < 1:
            bad_flag(f"--{flag.replace('_', '-')} must be at least 1")
    model = args.model or (LOCAL_MODEL if args.backend in ("local", "fake") else None)
    if model is None:
        bad_flag(f"--model is required for --backend {args.backend}")
    try:
        parse_reasoning(args.reasoning)
    except ValueError as exc:
        bad_flag(f"--{exc}")
    decoding: Decoding = args.decoding or ("constrained" if args.backend == "local" else "free")
    if decoding == "constrained" and args.backend != "local":
        bad_flag(
            f"--decoding constrained is only available for --backend local, not {args.backend}"
        )
    output_name = f"{model}-constrained" if decoding == "constrained" else model
    return RunConfig(
        suite=args.suite,
        backend=args.backend,
        model=model,
        base_url=args.base_url,
        preset=args.preset,
        mode=args.mode,
        decoding=decoding,
        concurrency=args.concurrency,
        rpm=args.rpm,
        resume=args.resume,
        fresh=args.fresh,
        stop_after_errors=args.stop_after_errors,
        max_requests=args.max_requests,
        limit=args.limit,
        repeats=args.repeats,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        seed=args.seed,
        reasoning=args.reasoning,
        timeout_s=args.timeout,
        max_retries=args.max_retries,
        output=args.output or default_output(output_name),
    )


def build_provider_for(config: RunConfig, script: Path | None, api_key_env: str | None) -> Any:
    from tooleval.providers.registry import build_cli_provider
    from tooleval.suites import load_suite

    suite = load_suite(config.suite)
    questions = {t.id: t.question for t in suite.tasks}
    return build_cli_provider(
        config.backend,
        model=config.model,
        base_url=config.base_url,
        preset=config.preset,
        timeout_s=config.timeout_s,
        script=script,
        questions=questions if config.backend == "fake" else None,
        api_key_env=api_key_env,
        decoding=config.decoding,
        tools=suite.tools,
    )


def results_table(document: dict[str, Any]) -> Table:
    metrics = document["metrics"]
    answered = document["metrics_answered"]
    complete = document["complete"]
    title = f"{document['config']['model']} ({document['setup']})"
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


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    config = config_from_args(args)
    try:
        provider = build_provider_for(config, args.script, args.api_key_env)
    except (ValueError, OSError) as exc:
        console.print(f"[red]tooleval run:[/] {exc}")
        return 2
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("errors {task.fields[errors]}"),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task(f"{config.model}", total=None, errors=0, rate="")
        errors, answered, started = 0, 0, time.monotonic()

        def on_plan(total: int, done: int) -> None:
            progress.update(bar, total=total, completed=done)

        def on_record(record: ItemRecord) -> None:
            nonlocal errors, answered
            errors += record.error_class is not None
            answered += 1
            rate = answered / max(time.monotonic() - started, 1e-9)
            progress.update(bar, advance=1, errors=errors, rate=f"{rate:.2f} items/s")

        try:
            document = run_suite(config, provider, on_record=on_record, on_plan=on_plan)
        except ResumeError as exc:
            console.print(f"[red]tooleval run:[/] {exc}")
            return 2
        except OSError as exc:
            console.print(
                f"[red]tooleval run:[/] cannot write the results: {exc}; answers already "
                "written are in the journal: fix this, then rerun with --resume"
            )
            return 2
        except KeyboardInterrupt:
            console.print(
                f"\n[yellow]interrupted[/]: answers so far are in the journal; continue with "
                f"the same command plus --resume (results: {config.output})"
            )
            return 130
    Console(highlight=False).print(results_table(document))
    counts = document["counts"]
    console.print(
        f"answered {counts['answered']}/{counts['planned']}, provider errors {counts['errors']}"
        f" {document['errors_by_class'] or ''}; results: {config.output}"
    )
    if document["stop_reason"]:
        console.print(f"[yellow]stopped early[/]: {document['stop_reason']}")
    return 0 if document["complete"] else 3
