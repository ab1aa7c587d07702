"""``tooleval export --format sft|rl``: training data from the InfraNode suite.

``sft``: gold-verified chat examples (plus successful episodes with ``--episodes FILE``).
``rl``: RL starting points (prompt, tools, gold). Every line is checked against the packaged
JSON Schema before the file is written (atomically).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_OK, fail, positive_int, url

NAME = "export"
API_HELP = "InfraNode API URL to verify against (default: the offline replica)"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(NAME, help=COMMANDS["export"])
    p.add_argument("--format", required=True, choices=("sft", "rl"))
    p.add_argument("--output", type=Path, default=None, help="exports/infranode-<format>.jsonl")
    p.add_argument(
        "--episodes",
        type=Path,
        action="append",
        default=None,
        metavar="FILE",
        help="sft: add successful episodes from a tooleval episodes results file",
    )
    p.add_argument("--no-gold", action="store_true", help="sft: episodes only, no gold examples")
    p.add_argument("--api-base-url", type=url, default=None, help=API_HELP)
    p.add_argument("--max-result-chars", type=positive_int, default=4000, metavar="N")
    p.set_defaults(func=run)  # fmt: skip


def load_episodes(path: Path) -> dict[str, Any]:
    """An InfraNode episodes results file (any format version), or ValueError naming it."""
    from tooleval.runner.results import MULTI_TURN, load_results

    try:
        document = load_results(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read episodes results ({exc.strerror or exc})") from None
    suite = (document.get("suite") or {}).get("name")
    if document.get("kind") != MULTI_TURN or suite != "infranode":
        raise ValueError(f"{path}: not a tooleval episodes results file of the infranode suite")
    return document


def records_for(args: argparse.Namespace) -> Iterable[dict[str, Any]]:
    from tooleval.export import episode_examples, gold_examples, rl_prompts
    from tooleval.suites.infranode import load_suite
    from tooleval.suites.infranode.client import make_transport

    suite = load_suite()
    if args.format == "rl":
        yield from rl_prompts(suite)
        return
    transport = make_transport(args.api_base_url)
    if not args.no_gold:
        yield from gold_examples(suite, transport, args.max_result_chars)
    for path in args.episodes or []:
        yield from episode_examples(suite, load_episodes(path), transport, args.max_result_chars)


def render(kind: str, records: Iterable[dict[str, Any]]) -> tuple[str, int]:
    """JSONL text of the records, each validated; raises ValueError naming the bad line."""
    from tooleval.export import schema_errors

    lines = []
    for number, record in enumerate(records, start=1):
        problems = schema_errors(kind, record)
        if problems:
            raise ValueError(f"record {number} ({record.get('id')}): {'; '.join(problems)}")
        lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines), len(lines)


def run(args: argparse.Namespace) -> int:
    from tooleval.fileio import write_text_atomic

    output = args.output or Path("exports") / f"infranode-{args.format}.jsonl"
    try:
        text, count = render(args.format, records_for(args))
        write_text_atomic(output, text)
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    print(f"wrote {count} {args.format} records to {output}")
    return EXIT_OK
