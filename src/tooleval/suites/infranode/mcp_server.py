"""The InfraNode tools as an MCP server, built on the official ``mcp`` SDK (2.x, low-level
``Server``).

``tools/list`` serves the suite's twelve tools exactly as ``tools.json`` defines them, each
annotated read-only, idempotent and non-destructive. ``tools/call`` validates the arguments
against the tool's schema, runs the call against the InfraNode API (the in-process replica by
default, or a base URL) and returns the API's JSON body as text plus ``structuredContent``.

Errors: an unknown tool is a protocol error (``INVALID_PARAMS``); arguments that break the
schema or the size bounds (``MAX_ARGUMENT_CHARS`` per string), and API answers with an error
status, are tool results with ``isError: true`` whose text says what was wrong, so an agent
can correct itself. Over stdio every malformed line is answered too (``mcp_stdio``).

Started by ``tooleval mcp [--transport stdio|streamable-http] [--port N]`` (the one entry
point; ``serve`` here is the library call). Over HTTP it listens on 127.0.0.1 only, at
``/mcp``; port 0 picks a free port and the URL is printed to stderr.
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import anyio
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from tooleval.records import ToolSpec
from tooleval.suites.infranode import SUITE_VERSION, load_tools
from tooleval.suites.infranode.client import Transport, execute_tool, make_transport
from tooleval.suites.infranode.mcp_stdio import GatedStdin, LineWriter

SERVER_NAME = "tooleval-infranode"
INSTRUCTIONS = (
    "InfraNode: open data for 84 German cities (keyless, read-only). Where to start: "
    "list_cities gives the canonical city slugs (muenchen, koeln, frankfurt-am-main); "
    "get_city_overview(slug) lists which data types a city has and which tool serves each. "
    "Weather and air quality have their own tools; other data types go through "
    "get_city_data(slug, resource). For several cities use one compare call, not one call "
    "per city. Station boards need an EVA number: call stations(slug, q) first and take the "
    "EVA from its list. meta.source_status 'not_covered' means the data type does not exist "
    "for that city; meta.covered_cities names the cities that have it: report the gap, "
    "never invent values."
)
ANNOTATIONS = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
HOST = "127.0.0.1"
# No InfraNode argument is longer than a few dozen characters; a longer one is refused before
# it reaches schema validation or the API (a megabyte slug once cost 36 s of CPU).
MAX_ARGUMENT_CHARS = 1000
MAX_ARGUMENTS_CHARS = 20_000


def mcp_tool(spec: ToolSpec, live: bool) -> types.Tool:
    """One suite tool as an MCP tool (schema unchanged) with read-only annotations."""
    annotations = ANNOTATIONS.model_copy(update={"open_world_hint": live})
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=dict(spec.parameters),
        annotations=annotations,
    )


def oversized(arguments: dict[str, Any]) -> list[str]:
    """Arguments over the size bounds, as ``field: message`` (empty when all fit)."""
    if len(json.dumps(arguments, ensure_ascii=False)) > MAX_ARGUMENTS_CHARS:
        return [f"(arguments): longer than {MAX_ARGUMENTS_CHARS} characters in all"]
    found: list[str] = []
    stack: list[tuple[str, Any]] = [("", arguments)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            found.append(f"{where or '(arguments)'}: longer than {MAX_ARGUMENT_CHARS} characters")
        elif isinstance(value, dict):
            stack.extend((f"{where}/{k}".strip("/"), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{where}/{i}".strip("/"), v) for i, v in enumerate(value))
    return sorted(found)


def schema_errors(spec: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    """Readable schema violations of ``arguments`` (field path and message), sorted."""
    validator = Draft202012Validator(dict(spec.parameters))
    found = []
    for error in validator.iter_errors(arguments):
        where = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
        found.append(f"{where}: {error.message}")
    return sorted(found)


def text_result(payload: Any, is_error: bool) -> types.CallToolResult:
    text = json.dumps(payload, ensure_ascii=False)
    structured = payload if isinstance(payload, dict) and not is_error else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )


def call_tool(
    specs: dict[str, ToolSpec], transport: Transport, name: str, arguments: dict[str, Any]
) -> types.CallToolResult:
    """Validate and execute one call (synchronous; the server runs it in a worker thread)."""
    spec = specs.get(name)
    if spec is None:
        raise MCPError(types.INVALID_PARAMS, f"unknown tool {name!r}; known: {', '.join(specs)}")
    problems = oversized(arguments) or schema_errors(spec, arguments)
    if problems:
        message = {"error": {"code": "invalid_arguments", "message": "; ".join(problems)}}
        return text_result(message, is_error=True)
    answer = execute_tool(transport, name, arguments)
    return text_result(answer.body, is_error=not 200 <= answer.status < 300)


def build_server(base_url: str | None = None) -> Server[Any]:
    """The MCP server over the replica (``base_url`` None) or the API at ``base_url``."""
    specs = {spec.name: spec for spec in load_tools()}
    transport = make_transport(base_url)
    tools = [mcp_tool(spec, live=base_url is not None) for spec in specs.values()]

    async def on_list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        return await anyio.to_thread.run_sync(call_tool, specs, transport, params.name, arguments)

    return Server(
        SERVER_NAME,
        version=SUITE_VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve over stdin/stdout; every line first passes the JSON-RPC gate (``mcp_stdio``)."""
    out = LineWriter(sys.stdout.buffer)
    stdin: Any = anyio.wrap_file(GatedStdin(sys.stdin.buffer, out))  # type: ignore[arg-type]
    stdout: Any = anyio.wrap_file(out)  # type: ignore[arg-type]
    async with stdio_server(stdin, stdout) as (read, write):
        await server.run(read, write, server.create_initialization_options())


def bound_socket(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(128)  # accept connections (queued) from the moment the URL is printed
    return sock


def serve_http(server: Server[Any], port: int) -> None:
    """Streamable HTTP on 127.0.0.1:``port`` (0 = any free port), path ``/mcp``."""
    import uvicorn

    app = server.streamable_http_app(host=HOST)
    sock = bound_socket(port)
    actual = sock.getsockname()[1]
    print(f"tooleval mcp: listening on http://{HOST}:{actual}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def serve(transport: str, port: int, base_url: str | None) -> None:
    server = build_server(base_url)
    if transport == "stdio":
        anyio.run(serve_stdio, server)
    else:
        serve_http(server, port)
