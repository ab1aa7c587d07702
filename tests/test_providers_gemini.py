"""The Gemini backend: pure build/parse functions, then the google-genai SDK against a loopback
generateContent server in prompt and native mode, and every failure class."""

from __future__ import annotations

import re
from typing import Any

import pytest

from servers import Reply
from servers import gemini_server as srv
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.gemini import (
    GeminiProvider,
    build_gemini_body,
    parse_gemini_body,
    render_gemini_contents,
    retry_delay,
)
from tooleval.records import GenerationRequest, Message, NativeToolCall, ToolSpec

KEY = "sk-SENTINEL-gemini-0123456789"
WEATHER = ToolSpec(
    "get_weather",
    "Wetter für eine Stadt",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PROMPT = GenerationRequest(
    messages=(Message("system", "Antworte knapp."), Message("user", "Wetter in Düsseldorf?"))
)
NATIVE = GenerationRequest(messages=PROMPT.messages, tools=(WEATHER,), seed=3)
HISTORY = (
    Message("user", "Wetter in Köln und Bonn?"),
    Message(
        "assistant",
        None,
        tool_calls=(
            NativeToolCall("get_weather", '{"city": "koeln"}', "c1"),
            NativeToolCall("get_weather", '{"city": "bonn"}', "c2"),
        ),
    ),
    Message("tool", '{"temp": 3}', tool_call_id="c1"),
    Message("tool", "kein JSON", tool_call_id="c2", name="get_weather"),
)
MODEL = "gemini-2.5-flash"


def provider(base_url: str, **kwargs: Any) -> GeminiProvider:
    env = {"TEST_GEMINI_KEY": KEY}
    options = {"base_url": base_url, "api_key_env": "TEST_GEMINI_KEY", "env": env}
    return GeminiProvider(MODEL, **options, **kwargs)


def failure(reply: Reply, **kwargs: Any) -> ProviderError:
    with srv.serve(reply) as server, pytest.raises(ProviderError) as info:
        provider(server.base_url, **kwargs).generate(PROMPT)
    assert KEY not in str(info.value)
    assert len(server.received) == 1  # one request, never an SDK retry
    return info.value


def camel(value: Any) -> Any:
    """Keys in camelCase: the SDK writes some proto field names snake_case on the wire."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m[1].upper(), k): camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


# --- pure request building ------------------------------------------------------------


def test_prompt_body_has_system_instruction_and_no_tools() -> None:
    assert build_gemini_body(PROMPT, MODEL) == {
        "contents": [{"role": "user", "parts": [{"text": "Wetter in Düsseldorf?"}]}],
        "systemInstruction": {"parts": [{"text": "Antworte knapp."}]},
        "generationConfig": {"maxOutputTokens": 160, "temperature": 0.0},
    }


def test_native_body_declares_functions_with_json_schema() -> None:
    body = build_gemini_body(NATIVE, MODEL)
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Wetter für eine Stadt",
                    "parametersJsonSchema": dict(WEATHER.parameters),
                }
            ]
        }
    ]
    assert body["generationConfig"]["seed"] == 3


@pytest.mark.parametrize(
    ("reasoning", "thinking", "max_output"),
    [
        ("off", {"thinkingBudget": 0}, 160),
        ("medium", {"thinkingBudget": 4096, "includeThoughts": True}, 4256),
        ("512", {"thinkingBudget": 512, "includeThoughts": True}, 672),
    ],
)
def test_reasoning_maps_to_thinking_budget(reasoning: str, thinking: Any, max_output: int) -> None:
    request = GenerationRequest(messages=PROMPT.messages, reasoning=reasoning)
    config = build_gemini_body(request, MODEL)["generationConfig"]
    assert config["thinkingConfig"] == thinking
    assert config["maxOutputTokens"] == max_output


def test_history_renders_function_calls_and_merged_responses() -> None:
    assert render_gemini_contents(HISTORY) == [
        {"role": "user", "parts": [{"text": "Wetter in Köln und Bonn?"}]},
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "get_weather", "args": {"city": "koeln"}}},
                {"functionCall": {"name": "get_weather", "args": {"city": "bonn"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"temp": 3}}},
                {"functionResponse": {"name": "get_weather", "response": {"result": "kein JSON"}}},
            ],
        },
    ]


# --- pure response parsing ------------------------------------------------------------


def test_parse_function_call_serialises_args_keeping_umlauts() -> None:
    response = parse_gemini_body(srv.function_calls(("get_weather", {"city": "Köln"})).body)
    assert response.tool_calls == (NativeToolCall("get_weather", '{"city": "Köln"}'),)
    assert response.text is None and response.finish_reason == "STOP"


def test_parse_text_with_thoughts_and_usage() -> None:
    parts = [{"text": "erst denken", "thought": True}, {"text": "antwort"}]
    body = srv.response(parts, thoughtsTokenCount=4, cachedContentTokenCount=10)
    response = parse_gemini_body(body)
    assert (response.text, response.reasoning) == ("antwort", "erst denken")
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (30, 12, 4)
    assert usage.cached_input_tokens == 10


@pytest.mark.parametrize(
    ("body", "error_class"),
    [
        (srv.empty_candidates().body, ErrorClass.EMPTY_CHOICES),
        ({"promptFeedback": {"blockReason": "OTHER"}}, ErrorClass.EMPTY_CHOICES),
        (srv.response([], "STOP"), ErrorClass.EMPTY_CHOICES),
        (srv.wrong_shape().body, ErrorClass.INVALID_BODY),
        (srv.response(None, "MAX_TOKENS") | {"candidates": ["x"]}, ErrorClass.INVALID_BODY),
        (srv.thoughts_only().body, ErrorClass.REASONING_TRUNCATED),
    ],
)
def test_parse_failures_are_classified(body: Any, error_class: ErrorClass) -> None:
    with pytest.raises(ProviderError) as info:
        parse_gemini_body(body)
    assert info.value.error_class is error_class


def test_retry_delay_is_read_from_retry_info() -> None:
    assert retry_delay('{"@type": "RetryInfo", "retryDelay": "37s"}') == 37.0
    assert retry_delay("{}") is None


# --- through the SDK against the loopback server ----------------------------------------


def test_prompt_mode_round_trip_sends_key_only_in_goog_header() -> None:
    with srv.serve(srv.text("get_weather(city=duesseldorf)")) as server:
        response = provider(server.base_url).generate(PROMPT)
    assert response.text == "get_weather(city=duesseldorf)"
    (received,) = server.received
    assert received.path == f"/v1beta/models/{MODEL}:generateContent"
    assert [name for name, value in received.headers.items() if KEY in value] == ["x-goog-api-key"]
    assert camel(received.body) == build_gemini_body(PROMPT, MODEL)


def test_native_mode_round_trip_returns_function_calls() -> None:
    with srv.serve(srv.function_calls(("get_weather", {"city": "Düsseldorf"}))) as server:
        response = provider(server.base_url).generate(NATIVE)
    assert response.tool_calls == (NativeToolCall("get_weather", '{"city": "Düsseldorf"}'),)
    assert camel(server.received[0].body) == build_gemini_body(NATIVE, MODEL)


def test_multi_turn_history_survives_the_sdk() -> None:
    request = GenerationRequest(messages=HISTORY, tools=(WEATHER,))
    with srv.serve(srv.text("3 Grad")) as server:
        provider(server.base_url).generate(request)
    assert camel(server.received[0].body)["contents"] == render_gemini_contents(HISTORY)


def test_rate_limit_delay_from_header_or_retry_info() -> None:
    header = failure(srv.rate_limited(retry_after="5"))
    assert (header.error_class, header.retry_after) == (ErrorClass.RATE_LIMITED, 5.0)
    body = failure(srv.rate_limited(retry_delay="37s"))
    assert (body.error_class, body.retry_after) == (ErrorClass.RATE_LIMITED, 37.0)


def test_google_api_key_is_a_fallback_and_stays_out_of_repr() -> None:
    client = GeminiProvider("m", env={"GOOGLE_API_KEY": KEY})
    assert KEY not in repr(client) and KEY not in str(client)
