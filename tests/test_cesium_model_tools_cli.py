"""``tooleval model-tools``: the preflight without network, and ``--live`` end to end against
loopback servers, with the Cesium guide's provider names (``--provider workers-ai|deepseek|
openai``, ``--endpoint``, ``MODEL_EVAL_API_KEY``) on the shared request path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from servers import Reply, ScriptedServer
from servers import openai_server as srv
from tooleval.cli import main
from tooleval.commands.common import resolve_target
from tooleval.commands.model_tools import guide_defaults

SENTINEL = "sk-SENTINEL-never-in-reports-0123"
FC = {"address": "Forbidden City"}
MARKER = {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"}
FAST = ("--rpm", "6000")  # the default pacing of the demo (27/min) would take minutes here


def cli(*argv: str) -> int:
    return main(["model-tools", *argv])


def results(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def live(tmp_path: Path, case: str, *replies: Reply) -> tuple[int, dict[str, Any], ScriptedServer]:
    out = tmp_path / "report.json"
    with srv.serve(*replies) as server:
        code = cli("--live", "--backend", "openai", "--base-url", server.base_url,
                   "--model", "test-model", "--case", case, "--output", str(out))  # fmt: skip
    return code, results(out), server


def chat_server(*replies: Reply, usage: Reply | None = None) -> ScriptedServer:
    """The Workers AI demo's two routes: POST /api/chat and GET /api/usage."""
    fixed = {("GET", "/api/usage"): usage} if usage is not None else {}
    return ScriptedServer(replies, lambda m, p: (m, p) == ("POST", "/api/chat"), fixed=fixed)


def test_preflight_routes_all_15_scenarios_without_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli() == 0
    text = capsys.readouterr().out
    assert "15 scenarios" in text and "missing=" not in text and "no model was called" in text
    assert cli("--json", "--router", "improved") == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["scenarios"]) == 15 and doc["routing_misses"] == 0


def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--case", "nope") == 2
    assert capsys.readouterr().err.strip() == "tooleval model-tools: unknown scenario id(s): nope"
    assert cli("--live", "--backend", "openai") == 2
    assert "--model is required" in capsys.readouterr().err
    assert cli("--live", "--provider", "openai", "--model", "m") == 2
    assert "--provider openai needs --endpoint URL" in capsys.readouterr().err
    for flag, value in (("--max-rounds", "0"), ("--rpm", "nan"), ("--endpoint", "x")):
        with pytest.raises(SystemExit) as exit_info:
            cli("--live", flag, value)
        assert exit_info.value.code == 2
        assert capsys.readouterr().err.startswith(f"tooleval model-tools: argument {flag}: ")


def test_live_correct_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    replies = (
        srv.tool_calls(("geocode", FC)),
        srv.tool_calls(("addMarker", MARKER)),
        srv.text("ok"),
    )
    code, report, server = live(tmp_path, "multi-geocode-marker-en", *replies)
    (item,) = report["items"]
    assert code == 0 and (item["ending"], item["outcome"]) == ("answered", "correct")
    assert item["score"]["workflow_passed"] and report["format"] == "tooleval-results/2"
    second = server.received[1].body
    assert len(second["tools"]) == 19 and second["messages"][0]["role"] == "system"
    tool_msg = second["messages"][3]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_0"
    assert json.loads(tool_msg["content"])["displayName"] == "Forbidden City, Beijing"
    assert SENTINEL not in json.dumps(report) and server.received[0].header("authorization") is None
    assert report["config"]["model"] == "test-model" and item["requests"] == 3


def test_live_console_leads_with_the_headline_and_the_original_rule_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clockwise orbit asked for, an anticlockwise one made: the original's rule passes it."""
    wrong = {"speed": 0.01, "clockwise": False}
    _, report, _ = live(tmp_path, "camera-orbit-en", srv.tool_calls(("startOrbit", wrong)),
                        srv.text("Orbiting."))  # fmt: skip
    lines = [line for line in capsys.readouterr().out.splitlines() if "│" in line]
    metrics = [line.split("│")[1].strip() for line in lines]
    assert metrics[:2] == ["scenarioCorrectRate (headline)", "scenarioPassRate"]
    assert "0.000" in lines[0] and "0/1 runs correct" in lines[0]
    assert "1.000" in lines[1] and "original's rule" in lines[1]
    assert metrics.count("scenarioPassRate") == 1 and "scenarioCorrectRate" not in metrics
    assert report["headline"]["problems"] == {"value_mismatch": 1}


def test_live_wrong_order(tmp_path: Path) -> None:
    replies = (
        srv.tool_calls(("addMarker", MARKER)),
        srv.tool_calls(("geocode", FC)),
        srv.text("ok"),
    )
    _, report, _ = live(tmp_path, "multi-geocode-marker-en", *replies)
    score = report["items"][0]["score"]
    assert score["passed"] and not score["workflow_passed"]
    assert [s["status"] for s in score["steps"]] == ["matched", "order_violation"]
    assert report["metrics"]["dependency_check_pass_rate"] == 0.0


def test_live_invalid_arguments(tmp_path: Path) -> None:
    tiles = {"id": "city-tiles", "url": "https://example.com/tileset.json"}
    edge = {"tilesetId": "other", "mode": "edges_only"}
    code, report, _ = live(tmp_path, "tiles-edge-en",
                           srv.tool_calls(("load3dTiles", '{"id": "city-tiles", "url": ')),
                           srv.tool_calls(("load3dTiles", tiles)),
                           srv.tool_calls(("setEdgeDisplayMode", edge)),
                           srv.text("Done."))  # fmt: skip
    item = report["items"][0]
    assert code == 0 and item["ending"] == "answered" and item["score"]["passed"]
    assert report["original_metrics"]["argumentValidityRate"] == pytest.approx(2 / 3)
    assert item["calls"][2]["result"] == {"success": False, "error": "unknown tileset id 'other'"}
    assert [s["status"] for s in item["score"]["steps"]] == ["matched", "value_mismatch"]


def test_live_errors_are_endings_not_no_tool_answers(tmp_path: Path) -> None:
    code, report, server = live(tmp_path, "layer-basemap-en,camera-orbit-en",
                                srv.rate_limited(retry_after="0"),
                                srv.tool_calls(("setBasemap", {"basemap": "satellite"})),
                                srv.text("Done."),
                                srv.error(400, "bad tools", "invalid_request_error"))  # fmt: skip
    assert [i["ending"] for i in report["items"]] == ["answered", "provider_error"]
    assert len(server.received) == 4 and code == 3
    assert report["metrics"]["provider_error_rate"] == 0.5
    assert report["metrics"]["no_tool_response_rate"] == 0.0
    assert report["metrics"]["scenarioCorrectRate"] == 1.0
    assert report["original_metrics"]["noToolResponseRate"] == 0.5  # upstream counts the error
    assert report["original_metrics"]["scenarioPassRate"] == 0.5


def test_provider_deepseek_limit_15_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--provider deepseek --live --limit 15``: the default model with thinking off; the
    DeepSeek key stays home when the requests go to another host."""
    monkeypatch.setenv("DEEPSEEK_API_KEY", SENTINEL)
    out = tmp_path / "d.json"
    with srv.serve(srv.text("I cannot do that.")) as server:
        code = cli("--provider", "deepseek", "--live", "--limit", "15",
                   "--base-url", server.base_url, "--output", str(out))  # fmt: skip
    report = results(out)
    assert code == 0 and len(report["items"]) == 15 and report["complete"]
    first = server.received[0]
    assert first.body["model"] == "deepseek-v4-flash"
    assert first.body["thinking"] == {"type": "disabled"} and first.body["max_tokens"] == 1024
    assert first.header("authorization") is None and SENTINEL not in out.read_text()
    assert report["config"]["preset"] == "deepseek" and report["config"]["max_requests"] == 24


def test_provider_workers_ai_sends_messages_and_tools_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MODEL_EVAL_API_KEY", SENTINEL)  # never sent to the keyless demo
    usage = Reply(body={"state": "normal", "percent": 12})
    server = chat_server(srv.tool_calls(("setBasemap", {"basemap": "satellite"})), srv.text("ok"),
                         usage=usage)  # fmt: skip
    out = tmp_path / "w.json"
    with server:
        endpoint = f"{server.base_url}/api/chat"
        code = cli("--provider", "workers-ai", "--live", "--case", "layer-basemap-en",
                   "--endpoint", endpoint, "--output", str(out), *FAST)  # fmt: skip
    chats = [r for r in server.received if r.method == "POST"]
    assert code == 0 and [r.path for r in chats] == ["/api/chat", "/api/chat"]
    assert set(chats[0].body) == {"messages", "tools"}
    assert all(r.header("authorization") is None for r in server.received)
    report = results(out)
    assert report["config"]["model"] == "@cf/zai-org/glm-4.7-flash"
    assert report["provider_usage_before"] == {"state": "normal", "percent": 12}
    assert "Workers AI usage before run: 12% (normal)" in capsys.readouterr().err


def test_workers_ai_paces_under_its_limit_by_default() -> None:
    import argparse

    from tooleval.commands.model_tools import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["model-tools", "--live"])

    guide_defaults(args)
    target = resolve_target(args)
    assert (target.preset, target.rpm) == ("workers-ai", 27.0) and args.limit == 6


def test_a_paused_workers_ai_budget_stops_before_any_request(tmp_path: Path) -> None:
    server = chat_server(srv.text("never"), usage=Reply(body={"state": "paused", "percent": 100}))
    with server:
        code = cli("--provider", "workers-ai", "--live", "--endpoint",
                   f"{server.base_url}/api/chat", "--output", str(tmp_path / "p.json"))  # fmt: skip
    assert code == 1 and [r.method for r in server.received] == ["GET"]


def test_provider_openai_endpoint_sends_model_eval_key_to_that_host_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODEL_EVAL_API_KEY", SENTINEL)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-travel")
    out = tmp_path / "o.json"
    with srv.serve(srv.text("no")) as server:
        endpoint = f"{server.base_url}/chat/completions"
        code = cli("--provider", "openai", "--live", "--endpoint", endpoint, "--model",
                   "tool-model", "--case", "layer-basemap-en", "--output", str(out))  # fmt: skip
    assert code == 0 and server.received[0].header("authorization") == f"Bearer {SENTINEL}"
    assert server.received[0].body["model"] == "tool-model"
    assert SENTINEL not in out.read_text()
    assert results(out)["config"]["api_key_env"] == "MODEL_EVAL_API_KEY"


def test_model_eval_model_names_the_openai_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODEL_EVAL_MODEL", "env-model")
    with srv.serve(srv.text("no")) as server:
        code = cli("--provider", "openai", "--live", "--endpoint",
                   f"{server.base_url}/chat/completions", "--case", "layer-basemap-en",
                   "--output", str(tmp_path / "m.json"))  # fmt: skip
    assert code == 0 and server.received[0].body["model"] == "env-model"


def test_deprecated_delay_and_timeout_flags_still_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.json"
    with srv.serve(srv.text("no")) as server:
        code = cli("--live", "--backend", "openai", "--base-url", server.base_url, "--model", "m",
                   "--case", "layer-basemap-en", "--delay-ms", "10", "--timeout-ms", "5000",
                   "--output", str(out))  # fmt: skip
    config = results(out)["config"]
    assert code == 0 and (config["rpm"], config["timeout_s"]) == (6000.0, 5.0)
    err = capsys.readouterr().err
    assert "--delay-ms is deprecated; use --rpm" in err and "--timeout-ms is deprecated" in err
