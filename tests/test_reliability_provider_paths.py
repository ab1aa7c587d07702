"""The hostile matrix on each provider's own protocol paths, for every wire format the
providers speak natively (OpenAI-compatible presets, Gemini, Anthropic): the opaque state of a
turn (Claude's thinking blocks and signatures, Gemini's thought parts, DeepSeek's
``reasoning_content``, OpenRouter's ``reasoning_details``), stop reasons and native calls,
when a server puts a key into them, sends them with the wrong types, or sends a stop reason
no taxonomy knows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import test_providers_conversations as conversations
from servers import Reply
from test_providers_conversations import CITY, INFRANODE, TWO_STEP, WIRES, Wire, converse

# Random in every part, so its first and last characters are in no word of any output.
KEY = "sk-Qz8vT1mW4kXp9Rb2Lc7Hn3Gd6Fj0Ys5"
THINKING = ("openai-gpt-5", "deepseek", "openrouter", "gemini-3", "gemini-2.5", "claude-adaptive",
            "claude-budget")  # fmt: skip
NATIVE = [w for w in WIRES if w.name in THINKING]


@pytest.fixture(autouse=True)
def hostile_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversations, "ENV", {"TEST_KEY": KEY})


def fragments(value: str) -> list[str]:
    """Every prefix and suffix of 8 characters or more: what identifies a key."""
    return [value[:n] for n in range(8, len(value) + 1)] + [
        value[-n:] for n in range(8, len(value))
    ]


def leaks(text: str) -> bool:
    return any(part in text for part in fragments(KEY))


def rewritten(reply: Reply, change: dict[str, str]) -> Reply:
    """``reply`` with each stand-in word of its JSON body replaced."""
    text = json.dumps(reply.body, ensure_ascii=False)
    for old, new in change.items():
        text = text.replace(old, new)
    return Reply(reply.status, json.loads(text), reply.headers)


def stop_reason_of(wire: Wire, reply: Reply, reason: str) -> Reply:
    """``reply`` with its stop reason (finish_reason, finishReason, stop_reason) set."""
    body = json.loads(json.dumps(reply.body))
    if wire.backend == "gemini":
        body["candidates"][0]["finishReason"] = reason
    elif wire.backend == "anthropic":
        body["stop_reason"] = reason
    else:
        body["choices"][0]["finish_reason"] = reason
    return Reply(reply.status, body, reply.headers)


def written(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("wire", NATIVE, ids=[w.name for w in NATIVE])
def test_a_key_in_a_turns_state_goes_back_only_to_its_server_and_is_never_written(
    wire: Wire, tmp_path: Path
) -> None:
    echo = f"Welches Werkzeug? (Authorization: Bearer {KEY})"
    first = rewritten(wire.call(1, "stations", {"slug": CITY}, True),
                      {"Welches Werkzeug?": echo, "enc-": f"enc-{KEY}-",
                       "sig-": f"sig-{KEY}-"})  # fmt: skip
    last = stop_reason_of(wire, wire.text(f"Fertig. {KEY}"), f"stop {KEY}")
    record, server = converse(wire, "high", INFRANODE, TWO_STEP.id, [first, last], tmp_path)
    assert server.rejected == [] and record.requests == 2  # the state went back as it came
    files = written(tmp_path)
    assert "***" in files and not leaks(files)


WRONG_STATE: dict[str, dict[str, Any]] = {
    "thinking a number": {"anthropic": {"thinking": 7}},
    "signature an object": {"anthropic": {"signature": {"a": [1]}}},
    "thought a list": {"gemini": {"text": ["x"]}},
    "reasoning_content an object": {"deepseek": {"reasoning_content": {"deep": {"er": None}}}},
    "reasoning_details a string": {"openrouter": {"reasoning_details": "enc"}},
    "reasoning_details nested 900 deep": {
        "openrouter": {"reasoning_details": json.loads("[" * 900 + "]" * 900)}
    },
}


def with_state(wire: Wire, state: dict[str, Any]) -> Reply:
    """A tool call whose opaque state has ``state``'s fields replaced."""
    body = json.loads(json.dumps(wire.call(1, "stations", {"slug": CITY}, True).body))
    if wire.backend == "anthropic":
        block = next(b for b in body["content"] if b["type"] == "thinking")
        block.update(state)
    elif wire.backend == "gemini":
        part = next(p for p in body["candidates"][0]["content"]["parts"] if p.get("thought"))
        part.update(state)
    else:
        body["choices"][0]["message"].update(state)
    return Reply(200, body)


CASES = [
    (name, wire)
    for name, by_flavour in WRONG_STATE.items()
    for wire in NATIVE
    if wire.flavour in by_flavour or wire.backend in by_flavour
]


@pytest.mark.parametrize(("name", "wire"), CASES, ids=[f"{w.name}: {n}" for n, w in CASES])
def test_state_of_the_wrong_type_is_classified_never_a_crash(
    name: str, wire: Wire, tmp_path: Path
) -> None:
    state = WRONG_STATE[name].get(wire.flavour) or WRONG_STATE[name][wire.backend]
    replies = [with_state(wire, state), wire.text("Fertig.")]
    record, _ = converse(wire, "high", INFRANODE, TWO_STEP.id, replies, tmp_path)
    assert record.ending in ("answered", "provider_error")
    if record.ending == "provider_error":
        assert record.error_class == "invalid_body" and record.error_message
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["complete"] is (record.ending == "answered")


ODD_STOPS = {
    "unknown word": "FROBNICATED",
    "empty": "",
    "control characters": "stop\x1b[2J\x00",
    "1 MB long": "s" * 2**20,
}


@pytest.mark.parametrize("reason", list(ODD_STOPS))
@pytest.mark.parametrize("wire", NATIVE, ids=[w.name for w in NATIVE])
def test_a_stop_reason_no_taxonomy_knows_ends_the_turn_cleanly(
    wire: Wire, reason: str, tmp_path: Path
) -> None:
    replies = [stop_reason_of(wire, wire.text("Fertig."), ODD_STOPS[reason])]
    record, server = converse(wire, "off", INFRANODE, TWO_STEP.id, replies, tmp_path)
    assert server.rejected == [] and len(server.received) == 1
    assert record.ending == "answered"
    stored = (tmp_path / "r.json").read_text()
    assert len(stored) < 2**16 and "\x1b" not in stored and "\\u001b" not in stored
