"""The Anthropic backend: pure build/parse functions, then the SDK against a loopback
/v1/messages server in prompt and native mode, and every failure class."""

from __future__ import annotations

from typing import Any

import pytest

from servers import Reply
from servers import anthropic_server as srv
from tooleval.providers.anthropic import (
    AnthropicProvider,
    build_anthropic_body,
    parse_anthropic_body,
    render_anthropic_messages,
)
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.records import GenerationRequest, Message, NativeToolCall, ToolSpec

KEY = "sk-ant-SENTINEL-0123456789"
WEATHER = ToolSpec(
    "get_weather",
    "Wetter für eine Stadt",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PROMPT = GenerationRequest(
    messages=(Message("system", "Antworte knapp."), Message("user", "Wetter in Köln?"))
)
NATIVE = GenerationRequest(messages=PROMPT.messages, tools=(WEATHER,))
MODEL = "claude-haiku-4-5"  # a budget_tokens model


def provider(base_url: str, **kwargs: Any) -> AnthropicProvider:
    env = {"TEST_ANTHROPIC_KEY": KEY}
    return AnthropicProvider(
        MODEL, base_url=base_url, api_key_env="TEST_ANTHROPIC_KEY", env=env, **kwargs
    )


def failure(reply: Reply, **kwargs: Any) -> ProviderError:
    with srv.serve(reply) as server, pytest.raises(ProviderError) as info:
        provider(server.base_url, **kwargs).generate(PROMPT)
    assert KEY not in str(info.value)
    assert len(server.received) == 1  # one request, never an SDK retry
    return info.value


# --- pure request building ------------------------------------------------------------


def test_prompt_body_puts_system_on_top_and_sends_no_tools() -> None:
    assert build_anthropic_body(PROMPT, "m") == {
        "model": "m",
        "max_tokens": 160,
        "system": "Antworte knapp.",
        "messages": [{"role": "user", "content": "Wetter in Köln?"}],
    }


def test_native_body_sends_tools_with_input_schema() -> None:
    (tool,) = build_anthropic_body(NATIVE, "m")["tools"]
    assert tool == {
        "name": "get_weather",
        "description": "Wetter für eine Stadt",
        "input_schema": dict(WEATHER.parameters),
    }


def test_tool_names_outside_anthropics_rules_are_rejected_by_name() -> None:
    bad = GenerationRequest(messages=PROMPT.messages, tools=(ToolSpec("cesium.fly", "", {}),))
    with pytest.raises(ValueError, match=r"'cesium\.fly'"):
        build_anthropic_body(bad, "m")


@pytest.mark.parametrize(
    ("reasoning", "thinking", "max_tokens"),
    [
        ("off", {"type": "disabled"}, 160),
        ("low", {"type": "enabled", "budget_tokens": 1024}, 1184),
        ("2048", {"type": "enabled", "budget_tokens": 2048}, 2208),
        ("100", {"type": "enabled", "budget_tokens": 1024}, 1184),
    ],
)
def test_reasoning_maps_to_thinking(reasoning: str, thinking: Any, max_tokens: int) -> None:
    request = GenerationRequest(messages=PROMPT.messages, reasoning=reasoning)
    body = build_anthropic_body(request, MODEL)
    assert body["thinking"] == thinking
    assert body["max_tokens"] == max_tokens
    assert "temperature" not in body


def test_history_with_tool_use_and_results_renders_as_blocks() -> None:
    history = (
        Message("user", "Wetter in Köln und Bonn?"),
        Message(
            "assistant",
            "Ich schaue nach.",
            tool_calls=(
                NativeToolCall("get_weather", '{"city": "koeln"}', "toolu_a"),
                NativeToolCall("get_weather", '{"city": "bonn"}', "toolu_b"),
            ),
        ),
        Message("tool", "3 °C", tool_call_id="toolu_a"),
        Message("tool", "4 °C", tool_call_id="toolu_b"),
    )
    system, messages = render_anthropic_messages(history)
    assert system is None
    assert messages[1]["content"] == [
        {"type": "text", "text": "Ich schaue nach."},
        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "koeln"}},
        {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {"city": "bonn"}},
    ]
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": "3 °C"},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "4 °C"},
        ],
    }
    assert len(messages) == 3


# --- pure response parsing ------------------------------------------------------------


def test_parse_tool_use_serialises_input_keeping_umlauts() -> None:
    body = srv.tool_use(("get_weather", {"city": "Köln"}), preamble="Gern.").body
    response = parse_anthropic_body(body)
    assert response.tool_calls == (NativeToolCall("get_weather", '{"city": "Köln"}', "toolu_0"),)
    assert response.text == "Gern." and response.finish_reason == "tool_use"


def test_parse_text_with_thinking_and_cache_usage() -> None:
    body = srv.message(
        [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "text", "text": "ok"}],
        cache_read_input_tokens=15,
    )
    response = parse_anthropic_body(body)
    assert (response.text, response.reasoning) == ("ok", "hm")
    assert response.usage.input_tokens == 20 and response.usage.cached_input_tokens == 15


@pytest.mark.parametrize(
    ("body", "error_class"),
    [
        (srv.empty_content().body, ErrorClass.EMPTY_CHOICES),
        (srv.wrong_shape().body, ErrorClass.INVALID_BODY),
        ({"content": ["x"]}, ErrorClass.INVALID_BODY),
        (srv.thinking_only().body, ErrorClass.REASONING_TRUNCATED),
    ],
)
def test_parse_failures_are_classified(body: Any, error_class: ErrorClass) -> None:
    with pytest.raises(ProviderError) as info:
        parse_anthropic_body(body)
    assert info.value.error_class is error_class


# --- through the SDK against the loopback server ----------------------------------------


def test_prompt_mode_round_trip_sends_the_key_in_one_auth_header() -> None:
    with srv.serve(srv.text("get_weather(city=koeln)")) as server:
        response = provider(server.base_url).generate(PROMPT)
    assert response.text == "get_weather(city=koeln)"
    (received,) = server.received
    # SDK 2.x sends the key as a bearer token (older ones used x-api-key); either way, once.
    carrying = [name for name, value in received.headers.items() if KEY in value]
    assert carrying in (["authorization"], ["x-api-key"])
    assert received.header("anthropic-version") is not None
    assert received.body == build_anthropic_body(PROMPT, MODEL)
