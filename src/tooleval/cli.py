"""The ``tooleval`` command: a thin layer that maps flags to library calls.

Only the module of the command being run is imported (start-up stays fast); the others are
listed from ``tooleval.commands.COMMANDS`` for ``--help``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from tooleval.commands import COMMANDS, module_name
from tooleval.commands.common import Parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if known."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    """The parser; the full flags of the command in ``argv`` (of every command when None)."""
    parser = Parser(
        prog="tooleval", description="Measure how well LLMs call tools, offline and reproducibly."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    wanted = chosen_command(argv) if argv is not None else None
    for name, help_text in COMMANDS.items():
        if argv is None or name == wanted:
            importlib.import_module(module_name(name)).register(subparsers)
        else:
            subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args = parser.parse_args(args_list)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
