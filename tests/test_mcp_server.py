"""The InfraNode MCP server through the SDK's own client: stdio and streamable HTTP."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib import resources
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

TIMEOUT_S = 60
SERVER = [sys.executable, "-m", "tooleval.cli", "mcp"]
CALLS: dict[str, dict[str, Any]] = {
    "list_cities": {},
    "get_city_overview": {"slug": "bonn"},
    "get_city": {"slug": "bonn"},
    "weather": {"slug": "bonn"},
    "air_quality": {"slug": "bonn"},
    "get_city_data": {"slug": "bonn", "resource": "unemployment"},
    "pois": {"slug": "bonn", "type": "pharmacy"},
    "compare": {"cities": ["bonn", "koeln"], "resource": "weather"},
    "stations": {"slug": "berlin", "q": "Ostkreuz"},
    "station_board_departures": {"eva": "8011160"},
    "station_board_arrivals": {"eva": "8011160"},
    "sources": {},
}


def suite_tools() -> list[dict[str, Any]]:
    text = resources.files("tooleval.suites.infranode").joinpath("tools.json").read_text("utf-8")
    tools: list[dict[str, Any]] = json.loads(text)
    return tools


async def check_server(client: Client) -> None:
    """Everything a client should see: instructions, tools, results and errors."""
    assert client.instructions is not None and "list_cities" in client.instructions
    listed = (await client.list_tools()).tools
    published = [
        {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
        for t in listed
    ]
    expected = [
        {"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}
        for t in suite_tools()
    ]
    assert published == expected
    for tool in listed:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint and tool.annotations.idempotent_hint
        assert tool.annotations.destructive_hint is False
    assert sorted(CALLS) == sorted(t.name for t in listed)
    for name, arguments in CALLS.items():
        result = await client.call_tool(name, arguments)
        assert not result.is_error, (name, result.content)
        body = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert body["data"] is not None, name
        assert result.structured_content == body
    await check_errors(client)


async def check_errors(client: Client) -> None:
    wrong_type = await client.call_tool("weather", {"slug": 5})
    assert wrong_type.is_error
    assert "slug: 5 is not of type 'string'" in wrong_type.content[0].text  # type: ignore[union-attr]
    missing = await client.call_tool("get_city_data", {"slug": "bonn"})
    assert missing.is_error and "'resource' is a required property" in missing.content[0].text  # type: ignore[union-attr]
    bad_poi = await client.call_tool("pois", {"slug": "bonn", "type": "zoo"})
    assert bad_poi.is_error and "type:" in bad_poi.content[0].text  # type: ignore[union-attr]
    unknown_city = await client.call_tool("weather", {"slug": "atlantis"})
    assert unknown_city.is_error and "not_found" in unknown_city.content[0].text  # type: ignore[union-attr]
    with pytest.raises(MCPError, match="unknown tool 'no_such_tool'"):
        await client.call_tool("no_such_tool", {})


def stdio_params() -> StdioServerParameters:
    return StdioServerParameters(command=SERVER[0], args=SERVER[1:])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio(mode: str) -> None:
    async def scenario() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with Client(stdio_params(), mode=mode, read_timeout_seconds=30) as client:
                await check_server(client)

    anyio.run(scenario)


def start_reader(process: subprocess.Popen[str]) -> tuple[queue.Queue[str], threading.Thread]:
    """Lines of the server's stderr, read by a thread that ends at EOF."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stderr is not None
    stream = process.stderr

    def pump() -> None:
        for line in stream:
            lines.put(line)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return lines, thread


def read_url(lines: queue.Queue[str]) -> str:
    """The URL the server prints to stderr, waiting at most TIMEOUT_S per line."""
    while True:
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp", lines.get(timeout=TIMEOUT_S))
        if found:
            return found.group(0)


@pytest.fixture
def http_server() -> Iterator[str]:
    args = [*SERVER, "--transport", "streamable-http", "--port", "0"]
    process = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines, reader = start_reader(process)
    try:
        yield read_url(lines)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        reader.join(timeout=15)
        assert process.stderr is not None
        process.stderr.close()


def test_streamable_http(http_server: str) -> None:
    async def scenario() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with Client(http_server, read_timeout_seconds=30) as client:
                await check_server(client)

    anyio.run(scenario)


def test_command_registers_flags() -> None:
    import argparse

    from tooleval.commands import mcp as mcp_command

    parser = argparse.ArgumentParser()
    mcp_command.register(parser.add_subparsers())
    args = parser.parse_args(["mcp", "--transport", "streamable-http", "--port", "0"])
    assert (args.transport, args.port, args.base_url) == ("streamable-http", 0, None)
    assert args.func is mcp_command.run
