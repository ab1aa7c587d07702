"""``tooleval episodes``: multi-step episodes executed against the InfraNode API.

The model's tool calls run against the offline replica (``--api-base-url`` for a live or
served API) and the results go back to it, for up to ``--max-rounds`` turns. Writes
``results/<model>.episodes.json`` and prints outcome counts and metrics.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from tooleval.episodes import EpisodeConfig, build_document, run_episodes
from tooleval.episodes.judge import judge_records
from tooleval.episodes.records import EpisodeRecord
from tooleval.episodes.results import JudgeRun
from tooleval.providers.registry import LOCAL_MODEL
from tooleval.records import Task
from tooleval.runner.results import now_iso, write_results
from tooleval.suites.infranode import CATEGORIES, load_suite
from tooleval.suites.infranode.client import make_transport


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "episodes", help="multi-step episodes: tool calls executed against the InfraNode API"
    )
    p.add_argument("--backend", default="local", help="openai|gemini|anthropic|local|fake")
    p.add_argument("--model", default=None, help="model name (local: a GGUF path or default)")
    p.add_argument("--base-url", default=None, help="model API base URL (overrides the preset)")
    p.add_argument("--preset", default=None, help="openai-compatible preset, e.g. hf, deepseek")
    p.add_argument(
        "--api-key-env", default=None, metavar="VAR", help="variable holding the key (see run)"
    )
    p.add_argument("--mode", default="prompt", choices=("prompt", "native"))
    p.add_argument("--api-base-url", default=None, help="InfraNode API URL (default: replica)")
    p.add_argument("--max-rounds", type=int, default=4, metavar="N", help="model turns per task")
    p.add_argument("--max-result-chars", type=int, default=4000, metavar="N")
    p.add_argument("--category", action="append", choices=CATEGORIES, default=None)
    p.add_argument("--limit", type=int, default=None, metavar="N", help="first N tasks only")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--rpm", type=float, default=None, help="max model calls per minute")
    p.add_argument("--max-tokens", type=int, default=160)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--reasoning", default=None, help="off|low|medium|high|<token budget>")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per model request")
    p.add_argument("--script", type=Path, default=None, help="fake backend: replies JSONL")
    p.add_argument("--output", type=Path, default=None, help="results/<model>.episodes.json")
    p.add_argument(
        "--judge-backend", default=None, help="optional judge model for undecided final answers"
    )
    p.add_argument("--judge-model", default=None, help="the judge's model (fake: a script)")
    p.add_argument(
        "--judge-all", action="store_true", help="judge every answer whose calls were right"
    )
    p.set_defaults(func=run)


def default_output(model: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model).name).strip("_") or "model"
    return Path("results") / f"{safe}.episodes.json"


def config_from_args(args: argparse.Namespace) -> EpisodeConfig:
    for flag in ("max_rounds", "max_result_chars", "concurrency", "max_tokens"):
        if getattr(args, flag) < 1:
            raise SystemExit(f"tooleval episodes: --{flag.replace('_', '-')} must be at least 1")
    model = args.model or (LOCAL_MODEL if args.backend in ("local", "fake") else None)
    if model is None:
        raise SystemExit(f"tooleval episodes: --model is required for --backend {args.backend}")
    return EpisodeConfig(
        backend=args.backend,
        model=model,
        base_url=args.base_url,
        preset=args.preset,
        mode=args.mode,
        api_base_url=args.api_base_url,
        max_rounds=args.max_rounds,
        max_result_chars=args.max_result_chars,
        concurrency=args.concurrency,
        rpm=args.rpm,
        limit=args.limit,
        categories=tuple(args.category or ()),
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        seed=args.seed,
        reasoning=args.reasoning,
        timeout_s=args.timeout,
        output=args.output or default_output(model),
    )


def select_tasks(tasks: tuple[Task, ...], config: EpisodeConfig) -> tuple[Task, ...]:
    chosen = tuple(t for t in tasks if not config.categories or t.category in config.categories)
    return chosen[: config.limit] if config.limit else chosen


def build_provider_for(
    config: EpisodeConfig, script: Path | None, tasks: tuple[Task, ...], api_key_env: str | None
) -> Any:
    from tooleval.providers.registry import build_cli_provider

    return build_cli_provider(
        config.backend,
        model=config.model,
        base_url=config.base_url,
        preset=config.preset,
        timeout_s=config.timeout_s,
        script=script,
        questions={t.id: t.question for t in tasks},
        api_key_env=api_key_env,
    )


def summary_table(document: dict[str, Any]) -> Table:
    table = Table(title=f"{document['config']['model']} – episodes ({document['config']['mode']})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, count in document["outcomes"].items():
        table.add_row(f"outcome {name}", str(count))
    for name, value in document["metrics"].items():
        shown = "–" if value is None else f"{value:.2f}"
        table.add_row(name, shown)
    table.add_row("first-call call_match", _fmt(document["first_call"].get("call_match")))
    return table


def run_judge(
    args: argparse.Namespace, tasks: tuple[Task, ...], records: list[EpisodeRecord]
) -> JudgeRun | None:
    """The judge's verdicts when ``--judge-backend`` is given (see tooleval.episodes.judge)."""
    if not args.judge_backend:
        return None
    from tooleval.providers.registry import build_cli_provider

    model = args.judge_model or (LOCAL_MODEL if args.judge_backend == "local" else None)
    if model is None:
        raise ValueError(f"--judge-model is required for --judge-backend {args.judge_backend}")
    provider = build_cli_provider(
        args.judge_backend, model=model, base_url=None, preset=None, timeout_s=args.timeout
    )
    verdicts = judge_records(provider, tasks, records, args.judge_all)
    return JudgeRun(args.judge_backend, model, args.judge_all, verdicts)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    config = config_from_args(args)
    suite = load_suite()
    tasks = select_tasks(suite.tasks, config)
    try:
        provider = build_provider_for(config, args.script, tasks, args.api_key_env)
    except ValueError as exc:
        console.print(f"[red]tooleval episodes:[/] {exc}")
        return 2
    transport = make_transport(config.api_base_url)
    started = now_iso()

    def progress(record: EpisodeRecord) -> None:
        outcome = record.score.outcome if record.score else f"error {record.error_class}"
        console.print(f"{record.task_id}: {outcome}")

    records = run_episodes(config, provider, tasks, suite.tools, transport, progress)
    try:
        judge = run_judge(args, tasks, records)
    except ValueError as exc:
        console.print(f"[red]tooleval episodes:[/] judge: {exc}")
        return 2
    document = build_document(config, suite, tasks, records, started, now_iso(), judge)
    assert config.output is not None
    write_results(config.output, document)
    Console(highlight=False).print(summary_table(document))
    console.print(f"results: {config.output}")
    return 0 if document["complete"] else 3
