"""``tooleval run`` end to end on loopback: OpenAI-compatible server, fake backend, keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servers import openai_server
from servers.base import Reply
from tooleval.cli import main
from tooleval.runner.journal import journal_path
from tooleval.suites.infranode import load_tasks

SENTINEL = "sk-SENTINEL-4f1c9a7e2b"
# the gold call of the first shipped task, so the first item scores 1
WEATHER_CALL = json.dumps(load_tasks()[0].gold.to_json())


def run_cli(*args: str) -> int:
    return main(["run", *args])


def test_prompt_mode_against_a_local_openai_compatible_server(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    with openai_server.serve(openai_server.text(WEATHER_CALL)) as server:
        code = run_cli(
            "--backend", "openai", "--base-url", server.base_url, "--model", "X",
            "--limit", "5", "--output", str(out), "--concurrency", "2",
        )  # fmt: skip
        received = list(server.received)
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["complete"] is True and doc["counts"]["answered"] == 5
    assert len(received) == 5
    system = received[0].body["messages"][0]
    assert system["role"] == "system" and '"name":"get_city_data"' in system["content"]
    assert "tools" not in received[0].body
    first = doc["items"][0]
    assert first["task_id"] == "routing_broad-001" and first["score"]["call_match"] == 1


def test_native_mode_sends_the_twelve_tools(tmp_path: Path) -> None:
    out = tmp_path / "n.json"
    reply = openai_server.tool_calls(("weather", {"slug": "magdeburg"}))
    with openai_server.serve(reply) as server:
        code = run_cli(
            "--backend", "openai", "--base-url", server.base_url, "--model", "X",
            "--mode", "native", "--limit", "3", "--output", str(out),
        )  # fmt: skip
        body = server.received[0].body
    assert code == 0
    assert len(body["tools"]) == 12
    doc = json.loads(out.read_text())
    assert doc["items"][0]["parsed"]["extractor"] == "native"
    assert doc["setup"] == "native"


def test_errors_make_an_incomplete_run_with_exit_code_3(tmp_path: Path) -> None:
    out = tmp_path / "e.json"
    with openai_server.serve(openai_server.quota_exhausted()) as server:
        code = run_cli(
            "--backend", "openai", "--base-url", server.base_url, "--model", "X",
            "--limit", "4", "--output", str(out), "--stop-after-errors", "2", "--concurrency", "1",
        )  # fmt: skip
    assert code == 3
    doc = json.loads(out.read_text())
    assert doc["complete"] is False
    assert doc["errors_by_class"] == {"quota_exhausted": 2}
    assert doc["metrics_answered"]["call_match"] is None


def test_fake_backend_runs_a_script(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": WEATHER_CALL}) + "\n")
    out = tmp_path / "f.json"
    assert (
        run_cli("--backend", "fake", "--script", str(script), "--limit", "2", "--output", str(out))
        == 0
    )
    assert json.loads(out.read_text())["config"]["backend"] == "fake"


@pytest.mark.parametrize(
    "replies", [[openai_server.text(WEATHER_CALL)], [openai_server.server_error(500)]]
)
def test_a_sentinel_key_never_reaches_any_written_file_or_output(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    replies: list[Reply],
) -> None:
    for var in ("OPENAI_API_KEY", "HF_TOKEN", "MY_KEY"):
        monkeypatch.setenv(var, SENTINEL)
    out = tmp_path / "k.json"
    with openai_server.serve(*replies) as server:
        run_cli(
            "--backend", "openai", "--base-url", server.base_url, "--model", "X",
            "--api-key-env", "MY_KEY", "--limit", "2", "--output", str(out), "--max-retries", "0",
        )  # fmt: skip
        auth = server.received[0].header("authorization")
    assert auth == f"Bearer {SENTINEL}"  # sent to the host it was configured for
    captured = capsys.readouterr()
    for text in (out.read_text(), journal_path(out).read_text(), captured.out, captured.err):
        assert SENTINEL not in text
