"""Provider state round-trips: each parser keeps what its API needs to continue a conversation
(``provider_data``), the multi-turn driver copies it into the history without looking inside,
and the same provider's body builder sends it back verbatim. Calls whose arguments are no
JSON object go back as text, with their tool error as a user message."""

from __future__ import annotations

from typing import Any

from conftest import make_fake
from servers import anthropic_server, gemini_server, openai_server
from tooleval.providers.anthropic import parse_anthropic_body, render_anthropic_messages
from tooleval.providers.gemini import parse_gemini_body, render_gemini_contents
from tooleval.providers.history import readable
from tooleval.providers.openai_compat import parse_openai_body, render_openai_messages
from tooleval.records import (
    GenerationResponse,
    Message,
    NativeToolCall,
    message_from_json,
)
from tooleval.runner import run_conversations
from tooleval.runner.conversation import assistant_turn
from tooleval.runner.records import RunConfig
from tooleval.suites import load_suite

QUESTION = Message("user", "Wetter in Köln?")


def answered(response: GenerationResponse, *results: str) -> tuple[Message, ...]:
    """The history after ``response``: question, the model's turn, one result per call."""
    turn = assistant_turn(response, response.tool_calls)
    tools = [
        Message("tool", text, tool_call_id=call.call_id, name=call.name)
        for call, text in zip(response.tool_calls, results, strict=True)
    ]
    return (QUESTION, turn, *tools)


def test_gemini_parts_signatures_and_call_ids_go_back_as_they_came() -> None:
    reply = gemini_server.function_calls(
        ("get_weather", {"city": "Köln"}),
        ("get_weather", {"city": "Bonn"}),
        signed=True,
        ids=True,
        thought="Zwei Städte.",
    )
    parts = reply.body["candidates"][0]["content"]["parts"]
    response = parse_gemini_body(reply.body)
    first, second = response.tool_calls
    assert first.provider_data == {
        "gemini": {"id": "fc_get_weather_0", "thoughtSignature": parts[1]["thoughtSignature"]}
    }
    assert second.provider_data == {"gemini": {"id": "fc_get_weather_1"}}
    contents = render_gemini_contents(answered(response, '{"t": 3}', '{"t": 4}'))
    assert contents[1] == {"role": "model", "parts": parts}  # verbatim, thought part included
    ids = [p["functionResponse"]["id"] for p in contents[2]["parts"]]
    assert ids == ["fc_get_weather_0", "fc_get_weather_1"]


def test_gemini_rebuilds_a_turn_from_the_calls_when_the_parts_do_not_fit() -> None:
    call = NativeToolCall(
        "get_weather", '{"city": "Köln"}', "call_1_0", {"gemini": {"thoughtSignature": "c2ln"}}
    )
    history = (QUESTION, Message("assistant", None, (call,)), Message("tool", "{}", "", "call_1_0"))
    part = render_gemini_contents(history)[1]["parts"][0]
    assert part == {
        "functionCall": {"name": "get_weather", "args": {"city": "Köln"}},
        "thoughtSignature": "c2ln",
    }  # the driver's own id is never sent as Gemini's


def test_anthropic_thinking_and_redacted_blocks_go_back_unchanged_in_order() -> None:
    reply = anthropic_server.tool_use(
        ("get_weather", {"city": "Köln"}), thinking="Köln also.", redacted=True, preamble="Gern."
    )
    response = parse_anthropic_body(reply.body)
    assert response.reasoning == "Köln also."
    _, messages = render_anthropic_messages(answered(response, "3 Grad"))
    assert messages[1] == {"role": "assistant", "content": reply.body["content"]}
    assert messages[2]["content"][0]["type"] == "tool_result"


def test_anthropic_keeps_the_thinking_blocks_first_when_a_call_is_replayed_as_text() -> None:
    reply = anthropic_server.tool_use(("get_weather", "Köln"), thinking="hm")
    response = parse_anthropic_body(reply.body)
    _, messages = render_anthropic_messages(answered(response, '{"error": "no object"}'))
    blocks = messages[1]["content"]
    assert [b["type"] for b in blocks] == ["thinking", "text"]
    assert blocks[0] == reply.body["content"][0]
    assert messages[2] == {"role": "user", "content": messages[2]["content"]}
    assert messages[2]["content"].startswith("[result of tool call get_weather")


def test_openai_reasoning_fields_go_back_on_tool_call_turns_only() -> None:
    details = [{"type": "reasoning.summary", "summary": "..."}]
    calls = openai_server.tool_calls(
        ("get_weather", {"city": "Köln"}), reasoning_content="", reasoning_details=details
    )
    response = parse_openai_body(calls.body)
    assert response.provider_data == {
        "openai": {"reasoning_content": "", "reasoning_details": details}
    }
    rendered = render_openai_messages(answered(response, "3 Grad"))
    assert rendered[1]["reasoning_content"] == "" and rendered[1]["reasoning_details"] == details
    final = parse_openai_body(
        openai_server.completion(
            {"role": "assistant", "content": "3 Grad", "reasoning_content": "x"}
        )
    )
    assert "reasoning_content" not in render_openai_messages((QUESTION, assistant_turn(final)))[1]


def test_unreadable_calls_go_back_as_text_and_their_errors_as_a_user_message() -> None:
    good = NativeToolCall("get_weather", '{"city": "Bonn"}', "c1")
    bad = NativeToolCall("get_weather", '{"city": "Kö', "c2")
    history = (
        QUESTION,
        Message("assistant", "Ich schaue nach.", (good, bad)),
        Message("tool", "4 Grad", tool_call_id="c1"),
        Message("tool", '{"error": "unreadable"}', tool_call_id="c2"),
        Message("user", "Weiter?"),
    )
    rendered = render_openai_messages(history)
    assert [m["role"] for m in rendered] == ["user", "assistant", "tool", "user", "user"]
    assert [c["id"] for c in rendered[1]["tool_calls"]] == ["c1"]
    assert rendered[1]["content"] == (
        "Ich schaue nach.\n[tool call get_weather with arguments that are not a JSON object: "
        '{"city": "Kö]'
    )
    assert rendered[3]["content"] == (
        '[result of tool call get_weather (c2)]\n{"error": "unreadable"}'
    )
    assert readable(history[:1]) == history[:1]  # nothing to repair: unchanged


def test_the_driver_copies_provider_state_without_reading_it() -> None:
    opaque = {"somewire": {"anything": [1, {"x": None}]}}
    fake = make_fake(
        {
            "tool_calls": [
                {
                    "name": "stations",
                    "arguments": {"slug": "duesseldorf"},
                    "provider_data": {"somewire": {"per": "call"}},
                }
            ],
            "provider_data": opaque,
        },
        {"text": "Fertig."},
    )
    config = RunConfig(backend="fake", mode="native", concurrency=1, task_ids=("two_step-001",))
    records: list[Any] = []
    run_conversations(config, fake, suite=load_suite("infranode"), on_record=records.append)
    turn = fake.requests[1].messages[2]
    assert turn.role == "assistant" and turn.provider_data == opaque
    assert turn.tool_calls[0].provider_data == {"somewire": {"per": "call"}}
    saved = records[0].transcript[2].to_json()
    assert message_from_json(saved) == turn  # kept in the results file, read back the same
