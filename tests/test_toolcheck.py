"""Tools that reach the model: ``tool_choice`` on every request with tools, and the
"did the tools arrive?" check on the first native request, against loopback servers that
count the prompts they build (``servers.openai_server``), one of which drops the tools."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conftest import make_mini_suite
from servers import openai_server as srv
from tooleval.cli import main
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.openai_compat import OpenAICompatProvider, build_openai_body
from tooleval.providers.presets import PRESETS
from tooleval.records import GenerationRequest, GenerationResponse, Message, ToolSpec, Usage
from tooleval.runner import run_conversations, run_suite
from tooleval.runner.journal import journal_path, read_journal
from tooleval.runner.records import RunConfig
from tooleval.runner.toolcheck import (
    COUNTED_SLACK,
    MIN_SHARE,
    STOP_REASON,
    ToolsCheck,
    ToolsNotDelivered,
    check_of,
    confirm,
    known_counter,
    missing_message,
    needed_tokens,
    probe_request,
    threshold_for,
    tool_schema_text,
)

CALL = json.dumps({"name": "weather", "arguments": {"slug": "berlin"}})
TOOLS = (
    ToolSpec("weather", "Das Wetter einer Stadt", {"type": "object", "properties": {
        "slug": {"type": "string", "description": "Stadt"}, "days": {"type": "integer"}}}),
    ToolSpec("air_quality", "Luftqualität", {"type": "object", "properties": {
        "slug": {"type": "string"}}, "required": ["slug"]}),
)  # fmt: skip
REQUEST = GenerationRequest(
    messages=(Message("system", "Du bist ein Assistent."), Message("user", "Wetter in Ulm?")),
    tools=TOOLS,
    max_tokens=160,
    reasoning="low",
)


def answer(text: str | None = "Sonnig.", prompt_tokens: int | None = 500, calls: Any = ()) -> Any:
    return GenerationResponse(text=text, tool_calls=calls, usage=Usage(input_tokens=prompt_tokens))


def needed() -> int:
    return needed_tokens(TOOLS, None)


# --- the figures, pure -----------------------------------------------------------------------


def test_needed_tokens_count_names_and_parameters_but_not_descriptions() -> None:
    text = tool_schema_text(TOOLS)
    assert '"name":"weather"' in text and '"required":["slug"]' in text
    assert "Das Wetter einer Stadt" not in text  # some servers drop descriptions
    assert needed_tokens(TOOLS, None) == -(-len(text) // 4)
    assert needed_tokens(TOOLS, lambda t: len(t.split(","))) == len(text.split(","))


def test_threshold_is_a_share_of_the_need_and_a_counted_baseline_needs_slack() -> None:
    assert threshold_for(400, counted=False) == 100 == MIN_SHARE * 400
    assert threshold_for(2, counted=False) == 1
    assert threshold_for(40, counted=True) == COUNTED_SLACK
    assert threshold_for(4000, counted=True) == 1000


def test_tool_calls_in_the_answer_prove_the_tools_arrived() -> None:
    calls = (srv_call(),)
    check = check_of(REQUEST, answer(None, 40, calls), None)
    assert (check.verdict, check.method, check.prompt_tokens) == (
        "arrived", "tool_calls_in_answer", 40,
    )  # fmt: skip


def srv_call() -> Any:
    from tooleval.records import NativeToolCall

    return NativeToolCall("weather", '{"slug": "ulm"}', "c1")


def test_without_prompt_tokens_nothing_can_be_checked() -> None:
    check = check_of(REQUEST, answer(prompt_tokens=None), None)
    assert check.verdict == "unchecked" and check.reason is not None
    assert "prompt_tokens" in check.reason


def test_a_counted_baseline_decides_when_the_tokenizer_is_known() -> None:
    counter = ("words", lambda messages: 100, lambda text: len(text) // 4)
    need = needed_tokens(TOOLS, counter[2])
    grown = check_of(REQUEST, answer(prompt_tokens=100 + COUNTED_SLACK), counter)
    assert (grown.verdict, grown.method, grown.baseline_tokens) == ("arrived", "counted:words", 100)
    assert grown.needed_tokens == need and grown.difference == COUNTED_SLACK
    same = check_of(REQUEST, answer(prompt_tokens=103), counter)
    assert same.verdict == "missing" and same.difference == 3


def test_the_request_without_tools_confirms_or_clears_a_miss() -> None:
    first = check_of(REQUEST, answer(prompt_tokens=80), None)
    assert first.verdict == "unchecked" and first.prompt_tokens == 80
    dropped = confirm(first, answer(prompt_tokens=80))
    assert (dropped.verdict, dropped.method, dropped.difference) == (
        "missing", "request_without_tools", 0,
    )  # fmt: skip
    arrived = confirm(first, answer(prompt_tokens=80 - threshold_for(needed(), False)))
    assert arrived.verdict == "arrived"
    failed = confirm(first, ProviderError(ErrorClass.SERVER_ERROR, "boom"))
    assert failed.verdict == "unchecked" and "boom" in (failed.reason or "")


def test_the_probe_is_the_same_prompt_without_tools_and_one_token() -> None:
    probe = probe_request(REQUEST)
    assert probe.messages == REQUEST.messages
    assert (probe.tools, probe.max_tokens, probe.reasoning) == ((), 1, None)


def test_the_message_names_the_figures_the_cause_and_the_servers_page() -> None:
    check = ToolsCheck("missing", "request_without_tools", 2, 30, 8, 170, 168)
    text = missing_message(check, "llamacpp")
    for part in ("2 tools", "about 30 tokens", "170 prompt tokens", "168", "ignored `tools`",
                 "docs/backends/llama-cpp.md", "--mode prompt", "--no-tools-check"):  # fmt: skip
        assert part in text, part
    assert "docs/backends/vllm-sglang.md" in missing_message(check, "vllm")
    assert "docs/backends/README.md" in missing_message(check, None)
    assert check.to_json()["difference"] == 2


def test_the_smollm2_family_has_a_known_tokenizer() -> None:
    for name in ("SmolLM2-135M-Instruct", "smollm2", "HuggingFaceTB/SmolLM2-1.7B-Instruct"):
        found = known_counter(name)
        assert found is not None and found[0] == "smollm2", name
    for name in ("gpt-4o", "qwen3-8b", "smollm-135m"):
        assert known_counter(name) is None, name


# --- tool_choice -----------------------------------------------------------------------------


def test_every_request_with_tools_names_tool_choice_auto() -> None:
    body = build_openai_body(REQUEST, "m")
    assert body["tool_choice"] == "auto" and len(body["tools"]) == 2
    for name in ("openai", "vllm", "sglang", "ollama", "llamacpp", "hf", "deepseek"):
        assert build_openai_body(REQUEST, "m", PRESETS[name])["tool_choice"] == "auto", name
    assert "tool_choice" not in build_openai_body(replace(REQUEST, tools=()), "m")


def test_a_preset_carries_another_tool_choice_or_none() -> None:
    required = replace(PRESETS["vllm"], tool_choice="required")
    assert build_openai_body(REQUEST, "m", required)["tool_choice"] == "required"
    silent = replace(PRESETS["vllm"], tool_choice=None)
    assert "tool_choice" not in build_openai_body(REQUEST, "m", silent)


# --- the guard in a run, against loopback servers --------------------------------------------


def config(tmp_path: Path, **changes: Any) -> RunConfig:
    base = RunConfig(
        suite="mini", backend="openai", model="m", mode="native", concurrency=1,
        max_retries=0, output=tmp_path / "r.json",
    )  # fmt: skip
    return replace(base, **changes)


def run_mini(tmp_path: Path, server: srv.OpenAIServer, **changes: Any) -> dict[str, Any]:
    provider = OpenAICompatProvider("m", base_url=server.base_url)
    return run_suite(config(tmp_path, **changes), provider, suite=make_mini_suite())


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_server_that_drops_tools_stops_the_run_before_a_run_of_zeros(
    tmp_path: Path, concurrency: int
) -> None:
    with srv.serve(srv.text("Das Wetter ist schön."), tools="dropped") as server:
        with pytest.raises(ToolsNotDelivered, match="left the tools out of the prompt"):
            run_mini(tmp_path, server, concurrency=concurrency)
        bodies = [r.body for r in server.received]
    assert len(bodies) == 2  # the first request, then the same prompt without tools
    assert bodies[0]["tools"] and bodies[0]["tool_choice"] == "auto"
    assert "tools" not in bodies[1] and bodies[1]["max_tokens"] == 1
    assert bodies[1]["messages"] == bodies[0]["messages"]
    document = json.loads((tmp_path / "r.json").read_text())
    check = document["tools_check"]
    assert check["verdict"] == "missing" and check["difference"] == 0
    assert check["prompt_tokens"] == check["baseline_tokens"] > 0
    assert check["needed_tokens"] > 0 and check["tools"] == 2
    assert document["stop_reason"].startswith(STOP_REASON)
    assert document["items"] == [] and document["complete"] is False
    assert read_journal(journal_path(tmp_path / "r.json")).records == []


def test_a_server_that_renders_tools_passes_with_one_extra_tiny_request(tmp_path: Path) -> None:
    with srv.serve(srv.text("Sonnig."), tools="honoured") as server:
        document = run_mini(tmp_path, server, concurrency=3)
        probes = [r.body for r in server.received if "tools" not in r.body]
    assert document["complete"] is True and document["counts"]["answered"] == 6
    assert len(probes) == 1 and probes[0]["max_tokens"] == 1
    check = document["tools_check"]
    assert check["verdict"] == "arrived" and check["method"] == "request_without_tools"
    assert check["difference"] >= check["threshold"] > 0


def test_tool_choice_makes_a_llama_cpp_style_server_render_the_tools(tmp_path: Path) -> None:
    """chatml-function-calling renders tools only with a tool_choice: we always send one."""
    with srv.serve(srv.text("Sonnig."), tools="with_tool_choice") as server:
        document = run_mini(tmp_path, server)
    assert document["tools_check"]["verdict"] == "arrived"


def test_an_answer_with_tool_calls_needs_no_extra_request(tmp_path: Path) -> None:
    with srv.serve(srv.tool_calls(("weather", {"slug": "ulm"})), tools="dropped") as server:
        document = run_mini(tmp_path, server)
        sent = len(server.received)
    assert sent == 6 and document["tools_check"]["method"] == "tool_calls_in_answer"


def test_the_check_can_be_switched_off_and_skips_prompt_mode(tmp_path: Path) -> None:
    with srv.serve(srv.text("Sonnig."), tools="dropped") as server:
        off = run_mini(tmp_path, server, tools_check=False, output=tmp_path / "off.json")
        prompt = run_mini(tmp_path, server, mode="prompt", output=tmp_path / "p.json")
        sent = len(server.received)
    assert off["complete"] and prompt["complete"] and sent == 12
    assert off["tools_check"] is None and prompt["tools_check"] is None


def test_a_server_without_usage_is_recorded_as_unchecked(tmp_path: Path) -> None:
    body = srv.completion({"role": "assistant", "content": "Sonnig."})
    del body["usage"]
    with srv.serve(srv.Reply(body=body), tools="dropped") as server:
        document = run_mini(tmp_path, server)
    assert document["complete"] is True
    assert document["tools_check"]["verdict"] == "unchecked"


def test_a_conversation_run_is_checked_on_its_first_request(tmp_path: Path) -> None:
    with srv.serve(srv.text("Sonnig."), tools="dropped") as server:
        provider = OpenAICompatProvider("m", base_url=server.base_url)
        cfg = replace(config(tmp_path), suite="infranode", limit=2)
        with pytest.raises(ToolsNotDelivered):
            run_conversations(cfg, provider)
        sent = len(server.received)
    assert sent == 2
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["kind"] == "multi_turn" and document["tools_check"]["verdict"] == "missing"
    assert document["items"] == []


# --- the commands ----------------------------------------------------------------------------

DROPPED_COMMANDS = {
    "run": ["run", "--limit", "3"],
    "episodes": ["episodes", "--limit", "2"],
    "model-tools": ["model-tools", "--live", "--case", "layer-basemap-en"],
}


@pytest.mark.parametrize("command", sorted(DROPPED_COMMANDS))
def test_every_command_that_sends_tools_stops_with_the_message_and_exit_1(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    with srv.serve(srv.text("Gerne helfe ich."), tools="dropped") as server:
        code = main([
            *DROPPED_COMMANDS[command], "--backend", "openai", "--base-url", server.base_url,
            "--model", "m", "--mode", "native", "--output", str(out), "--concurrency", "2",
        ])  # fmt: skip
        first = server.received[0].body
    err = capsys.readouterr().err
    assert code == 1, err
    last = err.splitlines()[-1]  # after the progress line, one line
    assert last.startswith(f"tooleval {command}: the server left the tools out of the prompt")
    assert "ignored `tools`" in last and last.endswith(f"results: {out}")
    assert first["tool_choice"] == "auto" and first["tools"]
    assert json.loads(out.read_text())["tools_check"]["verdict"] == "missing"
