"""``tooleval model-tools``: preflight without network, and --live end to end against a
loopback OpenAI-compatible server scripted to play each scenario."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from servers import Reply
from servers import openai_server as srv
from tooleval.commands import model_tools

SENTINEL = "sk-SENTINEL-never-in-reports-0123"
FC = {"address": "Forbidden City"}
MARKER = {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"}


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tooleval")
    model_tools.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["model-tools", *argv])
    code: int = args.func(args)
    return code


def live(tmp_path: Path, case: str, *replies: Reply) -> tuple[int, dict[str, Any], Any]:
    out = tmp_path / "report.json"
    with srv.serve(*replies) as server:
        code = cli("--live", "--backend", "openai", "--base-url", server.base_url,
                   "--model", "test-model", "--case", case, "--output", str(out))  # fmt: skip
    return code, json.loads(out.read_text(encoding="utf-8")), server


def test_preflight_routes_all_15_scenarios_without_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli() == 0
    text = capsys.readouterr().out
    assert "15 scenarios" in text and "missing=" not in text and "no model was called" in text
    assert cli("--json", "--router", "improved") == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["scenarios"]) == 15 and doc["routingMisses"] == 0


def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--case", "nope") == 2
    assert "unknown scenario id(s): nope" in capsys.readouterr().err
    assert cli("--live") == 2
    assert "--live needs --model" in capsys.readouterr().err


def test_live_correct_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    replies = (srv.tool_calls(("geocode", FC)), srv.tool_calls(("addMarker", MARKER)))
    code, report, server = live(tmp_path, "multi-geocode-marker-en", *replies)
    result = report["results"][0]
    assert code == 0 and (result["outcome"], result["passed"], result["workflowPassed"]) == (
        "completed", True, True)  # fmt: skip
    second = server.received[1].body
    assert len(second["tools"]) == 19 and second["messages"][0]["role"] == "system"
    tool_msg = second["messages"][3]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_0"
    assert json.loads(tool_msg["content"])["displayName"] == "Forbidden City, Beijing"
    assert SENTINEL not in json.dumps(report) and server.received[0].header("authorization") is None
    assert report["settings"]["model"] == "test-model" and report["requestCount"] == 2


def test_live_wrong_order(tmp_path: Path) -> None:
    replies = (srv.tool_calls(("addMarker", MARKER)), srv.tool_calls(("geocode", FC)))
    _, report, _ = live(tmp_path, "multi-geocode-marker-en", *replies)
    result = report["results"][0]
    assert result["passed"] and not result["workflowPassed"]
    assert [s["status"] for s in result["steps"]] == ["matched", "order_violation"]
    assert report["summary"]["dependencyCheckPassRate"] == 0.0


def test_live_invalid_arguments(tmp_path: Path) -> None:
    tiles = {"id": "city-tiles", "url": "https://example.com/tileset.json"}
    edge = {"tilesetId": "other", "mode": "edges_only"}
    code, report, _ = live(tmp_path, "tiles-edge-en",
                           srv.tool_calls(("load3dTiles", '{"id": "city-tiles", "url": ')),
                           srv.tool_calls(("load3dTiles", tiles)),
                           srv.tool_calls(("setEdgeDisplayMode", edge)),
                           srv.text("Done."))  # fmt: skip
    result, summary = report["results"][0], report["summary"]
    assert code == 0 and result["outcome"] == "completed" and result["passed"]
    assert summary["argumentValidityRate"] == round(2 / 3, 6)
    assert result["calls"][2]["result"] == {"success": False, "error": "unknown tileset id 'other'"}
    assert [s["status"] for s in result["steps"]] == ["matched", "value_mismatch"]


def test_live_errors_are_outcomes_not_no_tool_answers(tmp_path: Path) -> None:
    code, report, server = live(tmp_path, "layer-basemap-en,camera-orbit-en",
                                srv.rate_limited(retry_after="0"),
                                srv.tool_calls(("setBasemap", {"basemap": "satellite"})),
                                srv.error(400, "bad tools", "invalid_request_error"))  # fmt: skip
    summary = report["summary"]
    assert [r["outcome"] for r in report["results"]] == ["completed", "provider_error"]
    assert len(server.received) == 3 and code == 0
    assert summary["providerErrorRate"] == 0.5 and summary["noToolResponseRate"] == 0.0
    assert summary["scenarioPassRate"] == 1.0 and summary["scoredRuns"] == 1
