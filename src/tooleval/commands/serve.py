"""``tooleval serve``: run the offline InfraNode API replica over HTTP."""

from __future__ import annotations

import argparse

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_INTERRUPTED, EXIT_OK, fail, host_name, port_number
from tooleval.suites.infranode.api.server import serve


def run(args: argparse.Namespace) -> int:
    try:
        serve(host=args.host, port=args.port)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:  # the port is taken, the address is not this machine's
        return fail("serve", f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    return EXIT_OK


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help=COMMANDS["serve"],
        description="Serve the offline InfraNode API replica (contract and coverage of "
        "2026-07-22, deterministic values) over HTTP until interrupted.",
    )
    parser.add_argument(
        "--host", type=host_name, default="127.0.0.1", help="interface to bind (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=port_number, default=8787, help="TCP port (default 8787; 0 = any)"
    )
    parser.set_defaults(func=run)
