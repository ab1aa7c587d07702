"""``tooleval lm-eval-path``: print the folder holding the lm-eval task, for --include_path."""

from __future__ import annotations

import argparse

from tooleval.commands import COMMANDS
from tooleval.integrations.lm_eval import task_dir


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "lm-eval-path",
        help=COMMANDS["lm-eval-path"],
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(task_dir())
    return 0
