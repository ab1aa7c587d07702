"""The capability table (providers/families.py): every model family's default request and each
``--reasoning`` value give a body its strict loopback server accepts; what each value sends;
sampling values a family's API rejects are refused before any request; what was sent is
recorded in the results file; the flags are the same in every command that talks to a model."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servers import ScriptedServer, anthropic_server, gemini_server, openai_server
from tooleval.cli import main
from tooleval.providers.anthropic import AnthropicProvider
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.families import FAMILIES, family_for
from tooleval.providers.gemini import GeminiProvider
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.records import GenerationRequest, Message, ToolSpec

ENV = {"TEST_KEY": "sk-SENTINEL-capabilities"}
WEATHER = ToolSpec(
    "get_weather", "Wetter", {"type": "object", "properties": {"city": {"type": "string"}}}
)
MESSAGES = (Message("system", "Antworte knapp."), Message("user", "Wetter in Köln?"))

# One model per row of the table: (dialect, preset, model, strict server flavour).
EXAMPLES: dict[str, tuple[str, str | None, str, str]] = {
    "openai-chat": ("openai", "openai", "gpt-4.1-mini", "openai"),
    "openai-gpt-5.x": ("openai", "openai", "gpt-5.1", "openai"),
    "openai-gpt-5-pro": ("openai", "openai", "gpt-5-pro", "openai"),
    "openai-gpt-5": ("openai", "openai", "gpt-5-mini", "openai"),
    "openai-o-series": ("openai", "openai", "o4-mini", "openai"),
    "openai-other": ("openai", "openai", "computer-use-preview", "openai"),
    "deepseek": ("openai", "deepseek", "deepseek-v4-flash", "deepseek"),
    "openrouter": ("openai", "openrouter", "google/gemini-3-pro-preview", "openrouter"),
    "ollama": ("openai", "ollama", "qwen3:8b", "ollama"),
    "qwen-template-server": ("openai", "vllm", "Qwen/Qwen3-8B", "vllm"),
    "openai-compatible": ("openai", "hf", "meta-llama/Llama-3.3-70B-Instruct", "vllm"),
    "gemini-3-pro": ("gemini", None, "gemini-3-pro-preview", ""),
    "gemini-3.x-pro": ("gemini", None, "gemini-3.1-pro-preview", ""),
    "gemini-3-flash": ("gemini", None, "gemini-3-flash-preview", ""),
    "gemini-2.5-pro": ("gemini", None, "gemini-2.5-pro", ""),
    "gemini-2.5-flash-lite": ("gemini", None, "gemini-2.5-flash-lite", ""),
    "gemini-2.5-flash": ("gemini", None, "gemini-2.5-flash", ""),
    "gemini-no-thinking": ("gemini", None, "gemini-2.0-flash", ""),
    "gemini-other": ("gemini", None, "gemini-exp-1206", ""),
    "claude-adaptive-only": ("anthropic", None, "claude-opus-4-7", ""),
    "claude-4.6": ("anthropic", None, "claude-sonnet-4-6", ""),
    "claude-budget": ("anthropic", None, "claude-haiku-4-5", ""),
    "claude-other": ("anthropic", None, "claude-next", ""),
}
REASONING = (None, "off", "low", "high", "3000")


def test_every_row_has_an_example_and_names_its_source() -> None:
    assert [f.name for f in FAMILIES] == list(EXAMPLES)
    for family in FAMILIES:
        _, preset, model, _ = EXAMPLES[family.name]
        assert family_for(family.dialect, preset, model) == family
        assert len(family.source) > 40, family.name


def serve(dialect: str, flavour: str) -> ScriptedServer:
    if dialect == "gemini":
        return gemini_server.serve(gemini_server.text("ok"))
    if dialect == "anthropic":
        return anthropic_server.serve(anthropic_server.text("ok"))
    return openai_server.serve(openai_server.text("ok"), flavour=flavour)


def provider(dialect: str, preset: str | None, model: str, base_url: str) -> Any:
    options: dict[str, Any] = {"base_url": base_url, "api_key_env": "TEST_KEY", "env": ENV}
    if dialect == "gemini":
        return GeminiProvider(model, **options)
    if dialect == "anthropic":
        return AnthropicProvider(model, **options)
    return OpenAICompatProvider(model, preset=preset, **options)


@functools.cache
def cached(name: str, base_url: str) -> Any:
    """One provider per family and server (an SDK client is slow to make)."""
    dialect, preset, model, _ = EXAMPLES[name]
    return provider(dialect, preset, model, base_url)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[tuple[str, str], ScriptedServer]]:
    """One strict server per wire format and flavour, shared by the module's tests."""
    started = {}
    for dialect, _, _, flavour in EXAMPLES.values():
        if (dialect, flavour) not in started:
            started[(dialect, flavour)] = serve(dialect, flavour).__enter__()
    yield started
    for server in started.values():
        server.__exit__(None, None, None)


CASES = [(name, value) for name in EXAMPLES for value in REASONING]


@pytest.mark.parametrize(("name", "reasoning"), CASES, ids=[f"{n}-{r}" for n, r in CASES])
def test_default_flags_give_bodies_the_strict_server_accepts(
    servers: dict[tuple[str, str], ScriptedServer], name: str, reasoning: str | None
) -> None:
    dialect, preset, model, flavour = EXAMPLES[name]
    server = servers[(dialect, flavour)]
    client = cached(name, server.base_url)
    request = GenerationRequest(messages=MESSAGES, tools=(WEATHER,), reasoning=reasoning)
    before = (len(server.received), len(server.rejected))
    if family_for(dialect, preset, model).control == "none" and reasoning not in (None, "off"):
        with pytest.raises(ValueError, match="no reasoning control"):
            client.generate(request)
        assert len(server.received) == before[0]  # refused before any request
        return
    assert client.generate(request).text == "ok"
    assert (len(server.received), len(server.rejected)) == (before[0] + 1, before[1])


def settings(name: str, **request: Any) -> dict[str, Any]:
    client = cached(name, "http://127.0.0.1:9")
    sent: dict[str, Any] = client.request_settings(GenerationRequest(MESSAGES, **request))
    assert sent.pop("family") == name
    sent.pop("note", None)  # test_what_could_not_be_done_is_noted
    return sent


@pytest.mark.parametrize(
    ("name", "reasoning", "expected"),
    [
        ("openai-gpt-5", None, {"max_completion_tokens": 160}),
        ("openai-gpt-5", "off", {"max_completion_tokens": 160, "reasoning_effort": "minimal"}),
        (
            "openai-gpt-5.x",
            "off",
            {"max_completion_tokens": 160, "reasoning_effort": "none", "temperature": 0.0},
        ),
        ("openai-gpt-5.x", "2048", {"max_completion_tokens": 160, "reasoning_effort": "medium"}),
        ("openai-o-series", "off", {"max_completion_tokens": 160, "reasoning_effort": "low"}),
        ("openai-chat", None, {"max_completion_tokens": 160, "temperature": 0.0}),
        (
            "deepseek",
            None,
            {"max_tokens": 160, "temperature": 0.0, "thinking": {"type": "disabled"}},
        ),
        (
            "deepseek",
            "medium",
            {
                "max_tokens": 160,
                "temperature": 0.0,
                "thinking": {"type": "enabled"},
                "reasoning_effort": "high",
            },
        ),
        (
            "openrouter",
            "off",
            {"max_tokens": 160, "temperature": 0.0, "reasoning": {"enabled": False}},
        ),
        (
            "openrouter",
            "3000",
            {"max_tokens": 160, "temperature": 0.0, "reasoning": {"max_tokens": 3000}},
        ),
        ("ollama", "off", {"max_tokens": 160, "temperature": 0.0, "reasoning_effort": "none"}),
        (
            "qwen-template-server",
            "off",
            {
                "max_tokens": 160,
                "temperature": 0.0,
                "chat_template_kwargs": {"enable_thinking": False},
            },
        ),
        ("openai-compatible", "off", {"max_tokens": 160, "temperature": 0.0}),
        ("gemini-3-pro", None, {"maxOutputTokens": 160}),
        (
            "gemini-3-pro",
            "off",
            {
                "maxOutputTokens": 1184,
                "thinkingConfig": {"thinkingLevel": "low", "includeThoughts": True},
            },
        ),
        (
            "gemini-3-flash",
            "off",
            {
                "maxOutputTokens": 160,
                "thinkingConfig": {"thinkingLevel": "minimal", "includeThoughts": True},
            },
        ),
        (
            "gemini-2.5-pro",
            "off",
            {
                "maxOutputTokens": 288,
                "temperature": 0.0,
                "thinkingConfig": {"thinkingBudget": 128, "includeThoughts": True},
            },
        ),
        (
            "gemini-2.5-flash",
            "off",
            {"maxOutputTokens": 160, "temperature": 0.0, "thinkingConfig": {"thinkingBudget": 0}},
        ),
        (
            "claude-adaptive-only",
            "high",
            {
                "max_tokens": 16544,
                "thinking": {"type": "adaptive"},
                "output_config": {"effort": "high"},
            },
        ),
        ("claude-adaptive-only", "off", {"max_tokens": 160, "thinking": {"type": "disabled"}}),
        (
            "claude-budget",
            "low",
            {"max_tokens": 1184, "thinking": {"type": "enabled", "budget_tokens": 1024}},
        ),
    ],
)
def test_what_reasoning_sends_per_family(
    name: str, reasoning: str | None, expected: dict[str, Any]
) -> None:
    assert settings(name, reasoning=reasoning) == expected


@pytest.mark.parametrize(
    ("name", "note"),
    [
        ("openai-gpt-5", "openai-gpt-5 cannot switch thinking off; its lowest setting is sent"),
        ("gemini-3-pro", "gemini-3-pro cannot switch thinking off; its lowest setting is sent"),
        ("openai-compatible", "openai-compatible: no portable switch; nothing is sent"),
        ("gemini-no-thinking", "gemini-no-thinking does not think"),
        ("ollama", None),
    ],
)
def test_what_could_not_be_done_is_noted(name: str, note: str | None) -> None:
    client = cached(name, "http://127.0.0.1:9")
    assert client.request_settings(GenerationRequest(MESSAGES, reasoning="off")).get("note") == note


@pytest.mark.parametrize(
    ("name", "request_fields", "sent"),
    [
        ("openai-gpt-5", {"temperature": 1.0}, {"temperature": 1.0}),
        ("openai-gpt-5.x", {"temperature": 0.3, "reasoning": "off"}, {"temperature": 0.3}),
        ("gemini-3-pro", {"temperature": 0.2, "top_p": 0.9}, {"temperature": 0.2, "topP": 0.9}),
        ("openai-chat", {"top_p": 0.5}, {"temperature": 0.0, "top_p": 0.5}),
    ],
)
def test_sampling_values_the_family_accepts_are_sent(
    name: str, request_fields: dict[str, Any], sent: dict[str, Any]
) -> None:
    got = settings(name, **request_fields)
    assert {k: got[k] for k in sent} == sent


@pytest.mark.parametrize(
    ("name", "request_fields", "words"),
    [
        ("openai-gpt-5", {"temperature": 0.0}, "only its default"),
        ("openai-gpt-5.x", {"temperature": 0.3, "reasoning": "low"}, "only its default"),
        ("openai-o-series", {"top_p": 0.9}, "no top_p"),
        ("claude-4.6", {"temperature": 0.0}, "no temperature"),
    ],
)
def test_sampling_values_the_family_rejects_are_refused(
    name: str, request_fields: dict[str, Any], words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        settings(name, **request_fields)


def test_llama_server_without_jinja_is_a_setup_error_not_a_retry() -> None:
    with openai_server.serve(openai_server.text("ok"), flavour="llamacpp-nojinja") as server:
        client = OpenAICompatProvider("m", base_url=server.base_url, preset="llamacpp", env={})
        with pytest.raises(ProviderError) as info:
            client.generate(GenerationRequest(MESSAGES, tools=(WEATHER,)))
    assert info.value.error_class is ErrorClass.CLIENT_ERROR and not info.value.retryable
    assert "--jinja" in str(info.value)


# --- the CLI ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "episodes", "model-tools"])
def test_every_model_command_has_the_reasoning_and_sampling_flags(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert all(flag in text for flag in ("--reasoning", "--temperature", "--top-p", "--max-tokens"))


def test_a_rejected_temperature_stops_model_tools_before_any_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-SENTINEL-capabilities")
    with openai_server.serve(openai_server.text("ok")) as server:
        code = main(
            [
                "model-tools",
                "--live",
                "--backend",
                "openai",
                "--preset",
                "openai",
                "--model",
                "gpt-5",
                "--base-url",
                server.base_url,
                "--api-key-env",
                "TEST_KEY",
                "--temperature",
                "0.5",
                "--output",
                str(tmp_path / "r.json"),
            ]
        )
    assert code == 2 and server.received == []
    assert (
        "--temperature 0.5: openai-gpt-5 models accept only its default" in capsys.readouterr().err
    )
    assert not (tmp_path / "r.json").exists()


def test_results_record_what_was_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-SENTINEL-capabilities")
    out = tmp_path / "r.json"
    with openai_server.serve(openai_server.text("Weiß ich nicht.")) as server:
        code = main(
            [
                "run",
                "--backend",
                "openai",
                "--preset",
                "openai",
                "--model",
                "gpt-5",
                "--base-url",
                server.base_url,
                "--api-key-env",
                "TEST_KEY",
                "--limit",
                "1",
                "--reasoning",
                "off",
                "--output",
                str(out),
            ]
        )
    assert code == 0 and server.rejected == []
    document = json.loads(out.read_text())
    assert document["request_settings"] == {
        "family": "openai-gpt-5",
        "max_completion_tokens": 160,
        "reasoning_effort": "minimal",
        "note": "openai-gpt-5 cannot switch thinking off; its lowest setting is sent",
    }
    assert server.received[0].body["reasoning_effort"] == "minimal"


def test_the_backend_pages_list_every_family() -> None:
    pages = "".join(
        p.read_text() for p in (Path(__file__).parent.parent / "docs" / "backends").glob("*.md")
    )
    assert [f.name for f in FAMILIES if f"`{f.name}`" not in pages] == []
