"""The ``tooleval`` command: a thin layer that maps flags to library calls."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module in tooleval.commands exposes register(subparsers) and sets a ``func`` default.
COMMAND_MODULES: tuple[str, ...] = (
    "run",
    "selftest",
    "generate",
    "serve",
    "parse",
    "schema_compat",
    "routing",
    "model_tools",
    "episodes",
    "mcp",
    "export",
    "lm_eval_path",
    "lm_eval_import",
    "report",
    "measure",
    "audit",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tooleval", description="Measure how well LLMs call tools, offline and reproducibly."
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"tooleval.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
