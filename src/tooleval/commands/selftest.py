"""``tooleval selftest``: check prompts, gold scores, wrong calls and the parser, no model."""

from __future__ import annotations

import argparse

from rich.console import Console

from tooleval.selftest import run_selftest
from tooleval.suites import SUITE_NAMES, load_suite


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("selftest", help="check prompts and scoring without a model")
    parser.add_argument("--suite", default="infranode", choices=SUITE_NAMES)
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    checks = run_selftest(load_suite(args.suite))
    failed = [c for c in checks if not c.ok]
    for check in checks if args.verbose else failed:
        mark = "[green]ok[/]" if check.ok else "[red]FAIL[/]"
        console.print(f"{mark} {check.name} {'' if check.ok else check.detail}")
    console.print(f"selftest: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
