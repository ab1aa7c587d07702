"""The OpenAI-compatible backend: pure build/parse functions, then the provider against a loopback
server speaking /v1/chat/completions in prompt and native mode, and every failure class."""

from __future__ import annotations

import json
from typing import Any

import pytest

from servers import openai_server as srv
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.openai_compat import (
    OpenAICompatProvider,
    build_openai_body,
    parse_openai_body,
    render_openai_messages,
)
from tooleval.providers.presets import PRESETS
from tooleval.records import GenerationRequest, Message, NativeToolCall, ToolSpec

KEY = "sk-SENTINEL-openai-0123456789"
WEATHER = ToolSpec(
    "get_weather",
    "Wetter für eine Stadt",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PROMPT = GenerationRequest(messages=(Message("user", "Wie ist das Wetter in München?"),))
NATIVE = GenerationRequest(messages=PROMPT.messages, tools=(WEATHER,), seed=7)


def provider(base_url: str, **kwargs: Any) -> OpenAICompatProvider:
    env = {"TEST_OPENAI_KEY": KEY}
    return OpenAICompatProvider(
        "test-model", base_url=base_url, api_key_env="TEST_OPENAI_KEY", env=env, **kwargs
    )


def failure(reply: Any, request: GenerationRequest = PROMPT, **kwargs: Any) -> ProviderError:
    with srv.serve(reply) as server, pytest.raises(ProviderError) as info:
        provider(server.base_url, **kwargs).generate(request)
    assert KEY not in str(info.value)
    assert len(server.received) == 1  # one request, never a retry
    return info.value


# --- pure request building ------------------------------------------------------------


def test_prompt_body_has_no_tools_and_plain_messages() -> None:
    body = build_openai_body(PROMPT, "m")
    assert body == {
        "model": "m",
        "messages": [{"role": "user", "content": "Wie ist das Wetter in München?"}],
        "max_tokens": 160,
        "temperature": 0.0,
    }


def test_native_body_sends_tools_and_seed() -> None:
    body = build_openai_body(NATIVE, "m")
    assert body["tools"] == [WEATHER.to_openai()]
    assert body["seed"] == 7


def test_preset_without_seed_support_drops_seed() -> None:
    assert "seed" not in build_openai_body(NATIVE, "m", PRESETS["deepseek"])


def test_deepseek_thinking_is_off_by_default_and_on_with_effort() -> None:
    assert build_openai_body(PROMPT, "m", PRESETS["deepseek"])["thinking"] == {"type": "disabled"}
    on = GenerationRequest(messages=PROMPT.messages, reasoning="high")
    body = build_openai_body(on, "m", PRESETS["deepseek"])
    assert body["thinking"] == {"type": "enabled"}
    assert body["reasoning_effort"] == "high"


def test_openai_preset_uses_max_completion_tokens_and_drops_temperature_when_reasoning() -> None:
    request = GenerationRequest(messages=PROMPT.messages, reasoning="2048")
    body = build_openai_body(request, "gpt-5", PRESETS["openai"])
    assert body["max_completion_tokens"] == 160
    assert "max_tokens" not in body and "temperature" not in body
    assert body["reasoning_effort"] == "medium"


def test_reasoning_off_uses_the_presets_field() -> None:
    request = GenerationRequest(messages=PROMPT.messages, reasoning="off")
    body = build_openai_body(request, "m", PRESETS["vllm"])
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert "reasoning_effort" not in body


def test_invalid_reasoning_value_is_rejected_by_name() -> None:
    request = GenerationRequest(messages=PROMPT.messages, reasoning="lots")
    with pytest.raises(ValueError, match="reasoning: 'lots'"):
        build_openai_body(request, "m")


def test_history_with_tool_calls_and_results_renders_in_openai_format() -> None:
    history = (
        Message("system", "Du bist ein Agent."),
        Message("user", "Wetter?"),
        Message(
            "assistant", None, tool_calls=(NativeToolCall("get_weather", '{"city":"x"}', "c1"),)
        ),
        Message("tool", '{"temp": 3}', tool_call_id="c1", name="get_weather"),
    )
    assert render_openai_messages(history) == [
        {"role": "system", "content": "Du bist ein Agent."},
        {"role": "user", "content": "Wetter?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"x"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 3}'},
    ]


def test_a_tool_call_turn_without_text_is_null_except_where_the_preset_needs_a_string() -> None:
    """llama-cpp-python's server validates assistant content as a string: null is HTTP 500."""
    turn = Message("assistant", None, tool_calls=(NativeToolCall("get_weather", "{}", "c1"),))
    request = GenerationRequest(messages=(Message("user", "Wetter?"), turn), max_tokens=8)
    by_preset = {
        name: build_openai_body(request, "m", PRESETS[name])["messages"][1]["content"]
        for name in ("openai", "vllm", "llamacpp")
    }
    assert by_preset == {"openai": None, "vllm": None, "llamacpp": ""}
    assert build_openai_body(request, "m")["messages"][1]["content"] is None


# --- pure response parsing ------------------------------------------------------------


def test_parse_text_answer_with_usage_details() -> None:
    body = srv.completion(
        {"role": "assistant", "content": "ok", "reasoning_content": "hmm"},
        prompt_tokens_details={"cached_tokens": 4},
        completion_tokens_details={"reasoning_tokens": 2},
    )
    response = parse_openai_body(body)
    assert (response.text, response.reasoning, response.finish_reason) == ("ok", "hmm", "stop")
    assert response.usage.input_tokens == 12 and response.usage.output_tokens == 5
    assert response.usage.cached_input_tokens == 4 and response.usage.reasoning_tokens == 2


def test_parse_keeps_invalid_tool_arguments_as_raw_text() -> None:
    response = parse_openai_body(srv.bad_tool_arguments().body)
    assert response.tool_calls == (NativeToolCall("get_weather", '{"city": "Berlin"', "call_0"),)
    assert response.text is None


@pytest.mark.parametrize(
    ("body", "error_class"),
    [
        ({"choices": []}, ErrorClass.EMPTY_CHOICES),
        ({"choices": "nope"}, ErrorClass.INVALID_BODY),
        ({"choices": [{"message": "x"}]}, ErrorClass.INVALID_BODY),
        (
            {"choices": [{"message": {"content": None}, "finish_reason": "stop"}]},
            ErrorClass.EMPTY_CHOICES,
        ),
        (srv.reasoning_only().body, ErrorClass.REASONING_TRUNCATED),
        (
            srv.completion(
                {"role": "assistant", "content": ""},
                "length",
                completion_tokens_details={"reasoning_tokens": 160},
            ),
            ErrorClass.REASONING_TRUNCATED,
        ),
        ({"error": {"message": "upstream down", "code": 503}}, ErrorClass.SERVER_ERROR),
    ],
)
def test_parse_failures_are_classified(body: dict[str, Any], error_class: ErrorClass) -> None:
    with pytest.raises(ProviderError) as info:
        parse_openai_body(body)
    assert info.value.error_class is error_class


# --- against the loopback server ----------------------------------------


def test_prompt_mode_round_trip_sends_key_only_as_bearer() -> None:
    with srv.serve(srv.text("get_weather(city=muenchen)")) as server:
        response = provider(server.base_url).generate(PROMPT)
    assert response.text == "get_weather(city=muenchen)"
    (received,) = server.received
    assert received.header("authorization") == f"Bearer {KEY}"
    assert received.body == build_openai_body(PROMPT, "test-model")


def test_native_mode_round_trip_returns_tool_calls() -> None:
    reply = srv.tool_calls(("get_weather", {"city": "München"}))
    with srv.serve(reply) as server:
        response = provider(server.base_url).generate(NATIVE)
    assert response.tool_calls[0].name == "get_weather"
    # The raw argument text is passed through untouched, escapes and all.
    assert response.tool_calls[0].arguments == json.dumps({"city": "München"})
    assert response.tool_calls[0].call_id == "call_0"
    assert server.received[0].body["tools"] == [WEATHER.to_openai()]


def test_extra_body_fields_reach_the_server() -> None:
    request = GenerationRequest(messages=PROMPT.messages, reasoning="off")
    with srv.serve(srv.text("ok")) as server:
        OpenAICompatProvider("m", base_url=server.base_url, preset="vllm", env={}).generate(request)
    (received,) = server.received
    assert received.body["chat_template_kwargs"] == {"enable_thinking": False}
    assert received.header("authorization") is None


def test_rate_limit_with_retry_after_seconds() -> None:
    error = failure(srv.rate_limited("7"))
    assert (error.error_class, error.retry_after, error.status) == (
        ErrorClass.RATE_LIMITED,
        7.0,
        429,
    )
    assert error.retryable


def test_rate_limit_with_http_date_and_without_header() -> None:
    dated = failure(srv.rate_limited("Wed, 21 Oct 2015 07:28:00 GMT"))
    assert dated.error_class is ErrorClass.RATE_LIMITED and dated.retry_after == 0.0
    bare = failure(srv.rate_limited())
    assert bare.error_class is ErrorClass.RATE_LIMITED and bare.retry_after is None


def test_missing_preset_key_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="HF_TOKEN"):
        OpenAICompatProvider("m", preset="hf", env={})
