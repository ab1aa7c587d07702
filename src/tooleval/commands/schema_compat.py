"""``tooleval schema-compat``: will each provider accept the tool schemas we send?

Without options, audits both suites (Cesium and InfraNode) on every surface tooleval sends:
canonical schemas, MCP ``tools/list`` entries, OpenAI function definitions, Gemini and Anthropic
declarations. ``--tools FILE`` audits a tools file (OpenAI function list, MCP ``tools/list``
result, or a list of ``{name, inputSchema|parameters}``); ``--mcp "CMD"`` starts a stdio MCP
server and audits its ``tools/list``. Output: ``surface | tool | providers | rule | JSON path |
message``; exit 1 when a finding at ``--fail-on`` severity or worse exists, 2 on bad input.
Severities: rejected > dropped (silently ignored) > unenforced (accepted, never checked).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_FAILED, EXIT_OK, fail, positive_float
from tooleval.records import ToolSpec
from tooleval.schema_compat.gate import AuditReport, audit_surfaces
from tooleval.schema_compat.report import SEVERITIES, at_least, count_line, render_table
from tooleval.schema_compat.surfaces import Surface, file_surface, suite_surfaces


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "schema-compat",
        help=COMMANDS["schema-compat"],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tools", metavar="FILE", action="append", default=[])
    parser.add_argument(
        "--mcp",
        metavar="COMMAND",
        action="append",
        default=[],
        help="command line that starts a stdio MCP server",
    )
    parser.add_argument("--suite", choices=("cesium", "infranode"), action="append", default=[])
    parser.add_argument(
        "--what-if", action="store_true", help="also apply strict profiles tooleval does not send"
    )
    parser.add_argument("--fail-on", choices=SEVERITIES, default="rejected")
    parser.add_argument(
        "--show",
        choices=SEVERITIES,
        default=None,
        help="list findings down to this severity (default: --fail-on)",
    )
    parser.add_argument("--timeout-s", type=positive_float, default=30.0, help="MCP server timeout")
    parser.add_argument("--json", action="store_true", help="print one JSON report")
    parser.set_defaults(func=run)  # fmt: skip


def suite_specs(name: str) -> tuple[ToolSpec, ...]:
    if name == "cesium":
        from tooleval.suites.cesium import load_tools

        return load_tools()
    from tooleval.suites.infranode import load_tools as load_infranode

    return load_infranode()


def gather(args: argparse.Namespace) -> list[Surface]:
    surfaces: list[Surface] = [file_surface(Path(p)) for p in args.tools]
    if args.mcp:
        from tooleval.schema_compat.mcp_audit import mcp_surface

        surfaces += [mcp_surface(command, args.timeout_s) for command in args.mcp]
    suites = args.suite or ([] if surfaces else ["cesium", "infranode"])
    for name in suites:
        surfaces += suite_surfaces(name, suite_specs(name))
    return surfaces


def print_text(report: AuditReport, show: str) -> None:
    listed = at_least(report.findings, show)
    profiles = ", ".join(f"{p}@{v}" for p, v in report.profiles)
    print(f"profiles: {profiles}")
    for surface, count in report.surfaces:
        print(f"surface {surface}: {count} tools")
    if listed:
        print(render_table(listed))
    print(f"findings: {count_line(report.findings)}")


def run(args: argparse.Namespace) -> int:
    try:
        surfaces = gather(args)
    except (OSError, ValueError) as exc:
        return fail("schema-compat", exc)
    report = audit_surfaces(surfaces, what_if=args.what_if)
    failing = at_least(report.findings, args.fail_on)
    if args.json:
        doc = report.to_json() | {"failOn": args.fail_on, "failed": bool(failing)}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        print_text(report, args.show or args.fail_on)
    return EXIT_FAILED if failing else EXIT_OK
