"""``tooleval mcp``: serve the InfraNode tools over MCP (stdio or streamable HTTP).

The server lives with the InfraNode suite (``tooleval.suites.infranode.mcp_server``); the SDK
is imported only when the command runs, so building the CLI stays fast.
"""

from __future__ import annotations

import argparse

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_INTERRUPTED, EXIT_OK, fail, port_number, url


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("mcp", help=COMMANDS["mcp"])
    p.add_argument("--transport", default="stdio", choices=("stdio", "streamable-http"))
    p.add_argument("--port", type=port_number, default=8765, help="HTTP port (0 = a free one)")
    p.add_argument(
        "--base-url", type=url, default=None, help="InfraNode API URL (default: replica)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tooleval.suites.infranode.mcp_server import serve

    try:
        serve(args.transport, args.port, args.base_url)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:  # the port is taken
        return fail("mcp", f"cannot listen on port {args.port}: {exc.strerror or exc}")
    return EXIT_OK
