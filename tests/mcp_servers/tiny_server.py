"""A tiny stdio MCP server for the schema gate's tests, built on the official ``mcp`` SDK.

``python tiny_server.py`` publishes two clean tools; ``--bad`` adds tools that break rules
(an array without items beside prefixItems, a ``$schema`` pointer, a root ``oneOf``, a name
OpenAI would reject). ``--page-size N`` splits ``tools/list`` into pages of N tools.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

CLEAN: list[dict[str, Any]] = [
    dict(
        name="echo",
        description="Echo a text.",
        inputSchema={"type": "object", "properties": {"text": {"type": "string"}},
                     "required": ["text"], "additionalProperties": False},
    ),
    dict(
        name="add_point",
        description="Add a point.",
        inputSchema={"type": "object", "properties": {"at": {
            "type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
            "items": {"type": "number"}, "minItems": 2, "maxItems": 2}},
            "required": ["at"]},
    ),
]  # fmt: skip
BAD: list[dict[str, Any]] = [
    dict(
        name="draw_path",
        description="Draw a path.",
        inputSchema={"type": "object", "properties": {"points": {
            "type": "array", "prefixItems": [{"type": "number"}]}}},
    ),
    dict(
        name="with.pointer",
        description="Publishes a meta-schema pointer.",
        inputSchema={"$schema": "https://json-schema.org/draft/2020-12/schema",
                     "type": "object", "properties": {}},
    ),
    dict(
        name="either",
        description="A root union.",
        inputSchema={"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                     "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
    ),
]  # fmt: skip


def build(tools: list[dict[str, Any]], page_size: int) -> Server[Any]:
    """A low-level SDK server whose ``tools/list`` pages through ``tools``."""
    published = [types.Tool.model_validate(tool) for tool in tools]

    async def list_tools(
        _ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        start = int(params.cursor) if params and params.cursor else 0
        end = start + page_size
        cursor = str(end) if end < len(published) else None
        return types.ListToolsResult.model_validate(
            {"tools": published[start:end], "nextCursor": cursor}
        )

    return Server("tiny", on_list_tools=list_tools)


async def main(argv: list[str]) -> None:
    tools = CLEAN + (BAD if "--bad" in argv else [])
    page_size = int(argv[argv.index("--page-size") + 1]) if "--page-size" in argv else 100
    server = build(tools, page_size)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
