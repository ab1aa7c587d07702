"""The strict loopback servers refuse what the real APIs refuse: one test per rule, with raw
request bodies (no provider in between), each beside a body the same rule accepts. A rule
that stopped biting would let a provider test pass where the real API answers 400."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from servers import Reply, ScriptedServer, anthropic_server, gemini_server, openai_server

USER = {"role": "user", "content": "Wetter?"}


def post(server: ScriptedServer, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.base_url + path, json=body, timeout=5)


@pytest.fixture
def start() -> Iterator[Any]:
    servers: list[ScriptedServer] = []

    def make(module: Any, *replies: Reply, **options: Any) -> ScriptedServer:
        server: ScriptedServer = module.serve(*(replies or (module.text("ok"),)), **options)
        servers.append(server.__enter__())
        return server

    yield make
    for server in servers:
        server.__exit__(None, None, None)


def chat(model: str, **fields: Any) -> dict[str, Any]:
    return {"model": model, "messages": [USER], **fields}


def call_turn(call_id: str, arguments: str = '{"city": "koeln"}', **extra: Any) -> dict[str, Any]:
    function = {"name": "get_weather", "arguments": arguments}
    return {
        "role": "assistant",
        "content": None,
        **extra,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "3 Grad"}


# --- OpenAI ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (chat("gpt-5", temperature=0.0), 400, "Only the default (1) value"),
        (chat("gpt-5", temperature=1), 200, ""),
        (chat("o3-mini", max_tokens=160), 400, "Use 'max_completion_tokens'"),
        (chat("o3-mini", max_completion_tokens=160), 200, ""),
        (chat("gpt-5", reasoning_effort="none"), 400, "does not support 'none'"),
        (chat("gpt-5.1", reasoning_effort="minimal"), 400, "does not support 'minimal'"),
        (chat("gpt-5.1", reasoning_effort="none", temperature=0.0), 200, ""),
        (chat("gpt-5.1", reasoning_effort="low", temperature=0.0), 400, "temperature"),
        (chat("gpt-4.1", reasoning_effort="low"), 400, "reasoning_effort"),
        (chat("gpt-4.1", temperature=0.0, max_tokens=10), 200, ""),
    ],
)
def test_openai_rejects_what_each_model_family_rejects(
    start: Any, body: dict[str, Any], status: int, words: str
) -> None:
    answer = post(start(openai_server), "/chat/completions", body)
    assert answer.status_code == status and words in answer.text


@pytest.mark.parametrize(
    ("messages", "status"),
    [
        ([USER, result("c1")], 400),  # a tool message without a call before it
        ([USER, call_turn("c1"), USER], 400),  # a call never answered
        ([USER, call_turn("c1"), result("c1"), USER], 200),
    ],
)
def test_openai_pairs_tool_messages_with_calls(
    start: Any, messages: list[Any], status: int
) -> None:
    body = {"model": "test-model", "messages": messages}
    assert post(start(openai_server), "/chat/completions", body).status_code == status


@pytest.mark.parametrize(
    ("flavour", "arguments", "status"),
    [
        ("vllm", '{"city": "K', 400),
        ("vllm", '"koeln"', 200),  # vLLM only needs JSON
        ("ollama", '"koeln"', 400),  # Ollama needs an object
        ("ollama", '{"city": "koeln"}', 200),
        ("openai", '{"city": "K', 200),  # the OpenAI API keeps arguments as text
    ],
)
def test_prompt_rebuilding_servers_reject_unreadable_history_arguments(
    start: Any, flavour: str, arguments: str, status: int
) -> None:
    body = {"model": "m", "messages": [USER, call_turn("c1", arguments), result("c1")]}
    server = start(openai_server, flavour=flavour)
    assert post(server, "/chat/completions", body).status_code == status


def test_ollama_takes_only_its_reasoning_values(start: Any) -> None:
    server = start(openai_server, flavour="ollama")
    assert (
        post(server, "/chat/completions", chat("m", reasoning_effort="minimal")).status_code == 400
    )
    assert post(server, "/chat/completions", chat("m", reasoning_effort="none")).status_code == 200


def test_deepseek_wants_reasoning_content_back_on_tool_turns_in_thinking_mode(start: Any) -> None:
    server = start(openai_server, flavour="deepseek")
    bare = [USER, call_turn("c1"), result("c1")]
    kept = [USER, call_turn("c1", reasoning_content=""), result("c1")]
    answer = post(server, "/chat/completions", {"model": "m", "messages": bare})
    assert answer.status_code == 400 and "message index 1" in answer.text
    assert post(server, "/chat/completions", {"model": "m", "messages": kept}).status_code == 200
    off = {"model": "m", "messages": bare, "thinking": {"type": "disabled"}}
    assert post(server, "/chat/completions", off).status_code == 200


def test_openrouter_wants_its_reasoning_details_back(start: Any) -> None:
    details = [{"type": "reasoning.encrypted", "data": "x"}]
    issued = openai_server.tool_calls(("get_weather", {"city": "koeln"}), reasoning_details=details)
    server = start(openai_server, issued, openai_server.text("ok"), flavour="openrouter")
    post(server, "/chat/completions", chat("m"))
    lost = [USER, call_turn("call_0"), result("call_0")]
    kept = [USER, call_turn("call_0", reasoning_details=details), result("call_0")]
    assert post(server, "/chat/completions", {"model": "m", "messages": lost}).status_code == 400
    assert post(server, "/chat/completions", {"model": "m", "messages": kept}).status_code == 200


def test_llama_server_without_jinja_answers_tools_with_a_500(start: Any) -> None:
    server = start(openai_server, flavour="llamacpp-nojinja")
    answer = post(server, "/chat/completions", chat("m", tools=[{"type": "function"}]))
    assert answer.status_code == 500 and "--jinja" in answer.text


# --- Gemini ----------------------------------------------------------------------------------


def generate(server: ScriptedServer, model: str, body: dict[str, Any]) -> httpx.Response:
    return post(server, f"/v1beta/models/{model}:generateContent", body)


TEXT = {"role": "user", "parts": [{"text": "Wetter?"}]}


@pytest.mark.parametrize(
    ("model", "thinking", "status"),
    [
        ("gemini-3-pro-preview", {"thinkingLevel": "low"}, 200),
        ("gemini-3-pro-preview", {"thinking_level": "MINIMAL"}, 400),  # Pro: low, high only
        ("gemini-3-flash-preview", {"thinkingLevel": "minimal"}, 200),
        ("gemini-3-pro-preview", {"thinkingBudget": 0}, 400),  # Pro cannot switch off
        ("gemini-3-flash-preview", {"thinkingLevel": "low", "thinkingBudget": 512}, 400),
        ("gemini-2.5-flash", {"thinkingLevel": "low"}, 400),  # 2.5: budgets only
        ("gemini-2.5-flash", {"thinkingBudget": 0}, 200),
        ("gemini-2.5-pro", {"thinkingBudget": 0}, 400),  # 2.5 Pro only thinks
        ("gemini-2.5-pro", {"thinkingBudget": 64}, 400),  # below its 128
        ("gemini-2.0-flash", {"thinkingBudget": 0}, 400),  # no thinking at all
    ],
)
def test_gemini_thinking_config_per_model(
    start: Any, model: str, thinking: dict[str, Any], status: int
) -> None:
    body = {"contents": [TEXT], "generationConfig": {"thinkingConfig": thinking}}
    assert generate(start(gemini_server), model, body).status_code == status


def model_turn(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def response_turn(*names: str, ids: tuple[str, ...] = ()) -> dict[str, Any]:
    parts = []
    for index, name in enumerate(names):
        response: dict[str, Any] = {"name": name, "response": {"ok": True}}
        if ids:
            response["id"] = ids[index]
        parts.append({"functionResponse": response})
    return {"role": "user", "parts": parts}


CALL = {"functionCall": {"name": "get_weather", "args": {"city": "koeln"}}}


@pytest.mark.parametrize(
    ("contents", "status"),
    [
        ([TEXT, model_turn(CALL), response_turn("get_weather")], 200),
        ([TEXT, model_turn(CALL, CALL), response_turn("get_weather")], 400),  # 2 calls, 1 answer
        ([TEXT, model_turn(CALL), response_turn("weather")], 400),  # another function
        ([TEXT, response_turn("get_weather")], 400),  # an answer to no call
        ([TEXT, model_turn()], 400),  # no parts
        (
            [
                TEXT,
                model_turn({"functionCall": {**CALL["functionCall"], "id": "f1"}}),
                response_turn("get_weather", ids=("f2",)),
            ],
            400,
        ),  # the call has an id the answer does not carry
    ],
)
def test_gemini_answers_calls_one_to_one(start: Any, contents: list[Any], status: int) -> None:
    body = {"contents": contents}
    assert generate(start(gemini_server), "gemini-2.5-flash", body).status_code == status


def test_gemini_wants_the_signatures_it_issued_back_unchanged(start: Any) -> None:
    issued = gemini_server.function_calls(("get_weather", {"city": "koeln"}), signed=True)
    server = start(gemini_server, issued, gemini_server.text("ok"))
    generate(server, "gemini-3-pro-preview", {"contents": [TEXT]})
    signature = issued.body["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    for part, status, words in (
        (CALL, 400, "missing a thought_signature"),
        ({**CALL, "thoughtSignature": "AAAA"}, 400, "Corrupted"),
        ({**CALL, "thought_signature": signature}, 200, ""),  # snake_case as the SDK writes it
    ):
        body = {"contents": [TEXT, model_turn(part), response_turn("get_weather")]}
        answer = generate(server, "gemini-3-pro-preview", body)
        assert answer.status_code == status and words in answer.text


# --- Anthropic -------------------------------------------------------------------------------


def messages(model: str, history: list[Any], **fields: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 2048, "messages": history, **fields}


@pytest.mark.parametrize(
    ("model", "fields", "status"),
    [
        ("claude-opus-4-7", {"thinking": {"type": "enabled", "budget_tokens": 1024}}, 400),
        ("claude-opus-4-7", {"thinking": {"type": "adaptive"}}, 200),
        ("claude-sonnet-4-6", {"thinking": {"type": "enabled", "budget_tokens": 1024}}, 200),
        ("claude-haiku-4-5", {"thinking": {"type": "adaptive"}}, 400),
        ("claude-haiku-4-5", {"thinking": {"type": "enabled", "budget_tokens": 512}}, 400),
        ("claude-haiku-4-5", {"thinking": {"type": "enabled", "budget_tokens": 4096}}, 400),
        ("claude-opus-4-7", {"output_config": {"effort": "minimal"}}, 400),
    ],
)
def test_anthropic_thinking_config_per_model(
    start: Any, model: str, fields: dict[str, Any], status: int
) -> None:
    body = messages(model, [USER], **fields)
    assert post(start(anthropic_server), "/v1/messages", body).status_code == status


USE = {"type": "tool_use", "id": "toolu_0", "name": "get_weather", "input": {"city": "koeln"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_0", "content": "3 Grad"}


@pytest.mark.parametrize(
    ("history", "status"),
    [
        (
            [USER, {"role": "assistant", "content": [USE]}, {"role": "user", "content": [RESULT]}],
            200,
        ),
        ([USER, {"role": "assistant", "content": [USE]}, USER], 400),  # unanswered tool_use
        ([USER, {"role": "user", "content": [RESULT]}], 400),  # result of nothing
        (
            [
                USER,
                {"role": "assistant", "content": [{**USE, "input": "koeln"}]},
                {"role": "user", "content": [RESULT]},
            ],
            400,
        ),  # tool_use.input is no object
        (
            [
                USER,
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": [{"type": "text", "text": "x"}, RESULT]},
            ],
            400,
        ),  # tool_result not first
    ],
)
def test_anthropic_pairs_tool_use_with_results(start: Any, history: list[Any], status: int) -> None:
    body = messages("claude-opus-4-7", history)
    assert post(start(anthropic_server), "/v1/messages", body).status_code == status


def test_anthropic_wants_the_thinking_blocks_it_issued_back(start: Any) -> None:
    issued = anthropic_server.tool_use(
        ("get_weather", {"city": "koeln"}), thinking="hm", redacted=True
    )
    server = start(anthropic_server, issued, anthropic_server.text("ok"))
    thinking_on = {"thinking": {"type": "adaptive"}}
    post(server, "/v1/messages", messages("claude-opus-4-7", [USER], **thinking_on))
    blocks = issued.body["content"]
    changed = [{**blocks[0], "thinking": "anders"}, blocks[1], USE]
    for content, status in (
        ([USE], 400),
        (changed, 400),
        (blocks, 200),
        ([blocks[1], blocks[0], USE], 400),
    ):
        history = [
            USER,
            {"role": "assistant", "content": content},
            {"role": "user", "content": [RESULT]},
        ]
        body = messages("claude-opus-4-7", history, **thinking_on)
        assert post(server, "/v1/messages", body).status_code == status
    off = messages(
        "claude-opus-4-7",
        [USER, {"role": "assistant", "content": [USE]}, {"role": "user", "content": [RESULT]}],
    )
    assert post(server, "/v1/messages", off).status_code == 200  # thinking off: not required
