"""``tooleval mcp``: serve the InfraNode tools over MCP (stdio or streamable HTTP).

The SDK is imported only when the command runs, so building the CLI stays fast.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", default="stdio", choices=("stdio", "streamable-http"))
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (0 = a free one)")
    parser.add_argument("--base-url", default=None, help="InfraNode API URL (default: replica)")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "mcp", help="serve the twelve InfraNode tools as an MCP server (replica by default)"
    )
    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tooleval import mcp_server

    try:
        mcp_server.serve(args.transport, args.port, args.base_url)
    except KeyboardInterrupt:
        return 130
    return 0
