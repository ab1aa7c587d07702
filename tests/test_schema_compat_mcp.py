"""``tooleval schema-compat --mcp``: audit the tools/list of a real stdio MCP server (SDK)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from test_schema_compat import cli
from tooleval.schema_compat.mcp_audit import list_mcp_tools

SERVER = Path(__file__).parent / "mcp_servers" / "tiny_server.py"


def command(*flags: str) -> str:
    return shlex.join([sys.executable, str(SERVER), *flags])


def test_lists_every_page_through_the_sdk_client() -> None:
    tools = list_mcp_tools(command("--bad", "--page-size", "2"))
    assert [t["name"] for t in tools] == [
        "echo",
        "add_point",
        "draw_path",
        "with.pointer",
        "either",
    ]
    assert tools[1]["inputSchema"]["properties"]["at"]["items"] == {"type": "number"}


def test_clean_server_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--mcp", command()) == 0
    assert "findings: 0 rejected" in capsys.readouterr().out


def test_bad_server_fails_with_attributed_findings(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--mcp", command("--bad"), "--json") == 1
    found = {
        (f["tool"], f["profile"], f["rule"], f["path"])
        for f in json.loads(capsys.readouterr().out)["findings"]
    }
    assert ("draw_path", "vscode-mcp", "array-items", "$.properties.points") in found
    assert ("with.pointer", "webmcp", "schema-pointer", "$.$schema") in found
    assert ("with.pointer", "openai", "tool-name", "name") in found
    assert ("either", "original", "root-union", "$.oneOf") in found


def test_a_command_that_is_not_a_server_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--mcp", "", "--suite", "cesium") == 2
    assert "needs a command" in capsys.readouterr().err
    assert cli("--mcp", shlex.join([sys.executable, "-c", "pass"]), "--timeout-s", "20") == 2
    assert "could not list tools" in capsys.readouterr().err


def test_infranode_mcp_server_passes_the_gate(capsys: pytest.CaptureFixture[str]) -> None:
    server = shlex.join([sys.executable, "-m", "tooleval.cli", "mcp"])
    assert cli("--mcp", server, "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["surfaces"][0]["tools"] == 12 and doc["failed"] is False
