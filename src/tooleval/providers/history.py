"""How the history of a conversation goes back to a provider (private to the provider modules).

Two rules every body builder follows:

- **Provider state round-trips.** A parser puts what its API needs to continue a conversation
  (thought signatures, thinking blocks, reasoning fields) into ``provider_data`` under its own
  key; ``own`` reads it back for the same wire format, so the multi-turn driver and the suites
  copy it along without looking inside.
- **Unreadable calls are replayed as text.** A call whose arguments are not a JSON object
  (cut-off or broken JSON) is not sent back as a tool call: servers that rebuild the prompt
  from the history parse those arguments and reject the request (vLLM's
  ``chat_utils._postprocess_messages`` runs ``json.loads`` on them; Ollama's
  ``openai.FromCompletionToolCall`` answers "invalid tool call arguments"; Anthropic's
  ``tool_use.input`` and Gemini's ``functionCall.args`` must be objects). ``readable`` gives
  the history with each such call written into its turn's text as the model wrote it, and the
  tool error it got sent back as a user message naming the call, so the repair round still
  happens and every server accepts it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tooleval.records import Message, NativeToolCall, ProviderData


def own(provider_data: ProviderData, key: str) -> dict[str, Any]:
    """This wire format's part of an opaque ``provider_data`` ({} when absent)."""
    value = provider_data.get(key) if provider_data else None
    return dict(value) if isinstance(value, Mapping) else {}


def tag(key: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """``provider_data`` holding ``data`` under ``key`` ({} when there is nothing to keep)."""
    kept = {name: value for name, value in data.items() if value is not None}
    return {key: kept} if kept else {}


def arguments_object(call: NativeToolCall) -> dict[str, Any] | None:
    """The call's arguments as a JSON object; None when they are not one (empty text is {})."""
    if not call.arguments.strip():
        return {}
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def unreadable(call: NativeToolCall) -> bool:
    return arguments_object(call) is None


def call_as_text(call: NativeToolCall) -> str:
    """An unreadable call as the text of its turn: its name and its raw argument text."""
    return f"[tool call {call.name} with arguments that are not a JSON object: {call.arguments}]"


def result_as_text(call: NativeToolCall, content: str | None) -> str:
    return f"[result of tool call {call.name} ({call.call_id or 'no id'})]\n{content or ''}"


def readable(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The history with every unreadable call moved into its turn's text and its result sent
    as a user message after the turn's other results; histories without one come back as
    they are."""
    if not any(unreadable(c) for m in messages if m.role == "assistant" for c in m.tool_calls):
        return tuple(messages)
    out: list[Message] = []
    broken: dict[str | None, NativeToolCall] = {}  # the current turn's unreadable calls by id
    held: list[Message] = []  # their results, sent after the turn's tool messages
    for message in messages:
        if message.role != "tool":
            out += held
            held = []
        if message.role == "assistant":
            broken = {call.call_id: call for call in message.tool_calls if unreadable(call)}
            out.append(_without_unreadable(message) if broken else message)
        elif message.role == "tool" and message.tool_call_id in broken:
            call = broken[message.tool_call_id]
            held.append(Message("user", result_as_text(call, message.content)))
        else:
            out.append(message)
    return tuple(out + held)


def _without_unreadable(message: Message) -> Message:
    kept = tuple(call for call in message.tool_calls if not unreadable(call))
    if len(kept) == len(message.tool_calls):
        return message
    texts = [message.content] if message.content else []
    texts += [call_as_text(call) for call in message.tool_calls if unreadable(call)]
    return replace(message, content="\n".join(texts), tool_calls=kept)
