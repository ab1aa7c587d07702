"""``tooleval selftest``: check prompts, gold scores, wrong calls and the parser, no model."""

from __future__ import annotations

import argparse

from rich.console import Console

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_FAILED, EXIT_OK, fail
from tooleval.selftest import run_selftest
from tooleval.suites import SUITE_NAMES, load_suite

NAME = "selftest"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(NAME, help=COMMANDS["selftest"])
    parser.add_argument("--suite", default="infranode", choices=SUITE_NAMES)
    parser.add_argument("-v", "--verbose", action="store_true", help="list every check")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    if suite.scorer is None:
        return fail(NAME, f"suite {suite.name!r} has no single-call items to check")
    console = Console(highlight=False)
    checks = run_selftest(suite)
    failed = [c for c in checks if not c.ok]
    for check in checks if args.verbose else failed:
        mark = "[green]ok[/]" if check.ok else "[red]FAIL[/]"
        console.print(f"{mark} {check.name} {'' if check.ok else check.detail}")
    console.print(f"selftest: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return EXIT_FAILED if failed else EXIT_OK
