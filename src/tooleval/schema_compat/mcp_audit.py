"""List the tools of a stdio MCP server with the official ``mcp`` SDK client."""

from __future__ import annotations

import shlex
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import PaginatedRequestParams

from tooleval.schema_compat.surfaces import Surface, entries_from_json


async def _list_tools(argv: list[str]) -> list[dict[str, Any]]:
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    tools: list[dict[str, Any]] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        cursor: str | None = None
        while True:
            page = PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=page)
            tools.extend(
                t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools
            )
            cursor = result.next_cursor
            if not cursor:
                return tools


def list_mcp_tools(command: str, timeout_s: float = 30.0) -> list[dict[str, Any]]:
    """The ``tools/list`` entries (all pages) of the server started by ``command``."""
    argv = shlex.split(command)
    if not argv:
        raise ValueError("--mcp needs a command that starts a stdio MCP server")

    async def run() -> list[dict[str, Any]]:
        with anyio.fail_after(timeout_s):
            return await _list_tools(argv)

    return anyio.run(run)


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def mcp_surface(command: str, timeout_s: float = 30.0) -> Surface:
    """The server's tools as a surface; ValueError naming the command when listing fails."""
    try:
        tools = list_mcp_tools(command, timeout_s)
    except ValueError:
        raise
    except Exception as exc:  # the SDK raises groups of transport errors
        cause = _innermost(exc)
        raise ValueError(f"--mcp {command!r}: could not list tools: {cause!r}") from exc
    return Surface(f"mcp:{command}", "external", entries_from_json(tools, "tools/list"))
