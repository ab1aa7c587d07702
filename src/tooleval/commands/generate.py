"""``tooleval generate``: build tasks.jsonl from the API, verifying every gold call."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_OK, fail, positive_int, url
from tooleval.fileio import write_text_atomic
from tooleval.suites.infranode.client import make_transport
from tooleval.suites.infranode.generator import GeneratorConfig, generate_tasks
from tooleval.tasks import task_to_json

NAME = "generate"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("generate", help=COMMANDS["generate"])
    parser.add_argument("--out", required=True, type=Path, help="tasks.jsonl to write")
    parser.add_argument(
        "--base-url",
        type=url,
        default=None,
        help="live API base URL (default: the offline replica)",
    )
    parser.add_argument("--max-per-category", type=positive_int, default=None, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=run)


def tasks_jsonl(base_url: str | None, config: GeneratorConfig) -> str:
    """The generator's output as JSONL text (what ``--out`` receives, byte for byte)."""
    tasks = generate_tasks(make_transport(base_url), config)
    return "".join(json.dumps(task_to_json(t), ensure_ascii=False) + "\n" for t in tasks)


def run(args: argparse.Namespace) -> int:
    try:
        text = tasks_jsonl(args.base_url, GeneratorConfig(args.seed, args.max_per_category))
        write_text_atomic(args.out, text)
    except (ValueError, OSError) as exc:
        return fail(NAME, exc)
    print(f"wrote {text.count(chr(10))} tasks to {args.out}")
    return EXIT_OK
