"""What chat-completions servers reject, as far as their documentation and source say it.

``OpenAIRules(flavour)`` validates a request body the way that server does; the rules below
each cite where they come from. Flavours: ``openai`` (the OpenAI API: rules by model family),
``vllm`` and ``ollama`` (servers that rebuild a prompt from the history), ``deepseek``,
``openrouter`` and ``llamacpp-nojinja`` (llama-server started without ``--jinja``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Received, Reply

FLAVOURS = ("openai", "vllm", "ollama", "deepseek", "openrouter", "llamacpp-nojinja")

# OpenAI model families (platform.openai.com/docs/guides/reasoning; openai-python
# types/shared/reasoning_effort.py): which reasoning_effort values each accepts.
EFFORTS: Sequence[tuple[str, frozenset[str]]] = (
    (r"gpt-(3\.5|4|4o|4\.\d+)(-.*)?|gpt-5(\.\d+)?-chat(-.*)?", frozenset()),  # no reasoning
    (r"gpt-5\.\d+(-.*)?", frozenset({"none", "low", "medium", "high", "xhigh"})),
    (r"gpt-5-pro(-.*)?", frozenset({"high"})),
    (r"gpt-5(-.*)?", frozenset({"minimal", "low", "medium", "high"})),
    (r"o\d(-.*)?", frozenset({"low", "medium", "high"})),
)


def error(message: str, code: str = "invalid_request_error", status: int = 400) -> Reply:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return Reply(status=status, body=body)


def efforts_of(model: str) -> frozenset[str] | None:
    """The model's accepted efforts (empty: not a reasoning model); None: not an OpenAI name."""
    name = model.rsplit("/", 1)[-1]
    for pattern, efforts in EFFORTS:
        if re.fullmatch(pattern, name):
            return efforts
    return None


def check_openai_model(body: Mapping[str, Any]) -> Reply | None:
    """The OpenAI API's per-model rules."""
    efforts = efforts_of(str(body.get("model", "")))
    if efforts is None:
        return None
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in efforts:
        # A non-reasoning model, or a value the model does not take: 400 unsupported_value.
        return error(
            f"Unsupported value: 'reasoning_effort' does not support {effort!r} with this model.",
            "unsupported_value",
        )
    if not efforts:
        return None
    if "max_tokens" in body:
        # completion_create_params.py: max_tokens "is not compatible with o-series models".
        return error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "unsupported_parameter",
        )
    # gpt-5.1+: temperature and top_p only with effort none (their default); never on others
    sampling_ok = effort == "none" or (effort is None and "none" in efforts)
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if value is not None and value != 1 and not sampling_ok:
            # The API's answer to o1/o3/gpt-5 with temperature 0 (openai-python issue #2104).
            return error(
                f"Unsupported value: '{name}' does not support {value} with this "
                "model. Only the default (1) value is supported.",
                "unsupported_value",
            )
    return None


def check_tool_pairs(messages: Sequence[Any]) -> Reply | None:
    """Every tool message answers a call of the assistant turn before it, and every call is
    answered (the API's 400s: "messages with role 'tool' must be a response to a preceeding
    message with 'tool_calls'" and "An assistant message with 'tool_calls' must be followed by
    tool messages responding to each 'tool_call_id'")."""
    open_ids: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") not in open_ids:
                return error(
                    "Invalid parameter: messages with role 'tool' must be a response "
                    "to a preceeding message with 'tool_calls'."
                )
            open_ids.discard(message.get("tool_call_id"))
            continue
        if open_ids:
            return error(
                "An assistant message with 'tool_calls' must be followed by tool "
                f"messages responding to each 'tool_call_id'. Missing: {sorted(open_ids)}"
            )
        if role == "assistant":
            open_ids = {call.get("id") for call in message.get("tool_calls") or []}
    return None


def check_history_arguments(messages: Sequence[Any], flavour: str) -> Reply | None:
    """vLLM's chat_utils._postprocess_messages runs json.loads on every history call's
    arguments (a JSONDecodeError answers the request); Ollama's openai.FromCompletionToolCall
    answers "invalid tool call arguments" when they are not a JSON object."""
    for message in messages:
        for call in message.get("tool_calls") or []:
            text = call.get("function", {}).get("arguments") or "{}"
            try:
                value = json.loads(text)
            except ValueError as exc:
                return error(f"Expecting value: {exc}", "BadRequestError")
            if flavour == "ollama" and not isinstance(value, dict):
                return error("invalid tool call arguments")
    return None


def check_ollama(body: Mapping[str, Any]) -> Reply | None:
    """ollama openai/openai.go: reasoning_effort must be high, medium, low or none."""
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in ("high", "medium", "low", "none"):
        return error(
            f'invalid reasoning value: \'{effort}\' (must be "high", "medium", "low", or "none")'
        )
    return None


def check_deepseek(body: Mapping[str, Any]) -> Reply | None:
    """api-docs.deepseek.com/guides/thinking_mode: thinking is on unless disabled; then every
    assistant turn with tool calls must carry its reasoning_content back (the API's 400:
    "Missing reasoning_content field in the assistant message at message index N");
    reasoning_effort is low, high or max (aliases minimal, medium, xhigh accepted)."""
    thinking = (body.get("thinking") or {}).get("type", "enabled")
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in ("minimal", "low", "medium", "high", "xhigh", "max"):
        return error(f"Invalid reasoning_effort {effort!r}")
    if thinking == "disabled":
        return None
    for index, message in enumerate(body.get("messages") or []):
        if message.get("tool_calls") and "reasoning_content" not in message:
            return error(
                f"Missing reasoning_content field in the assistant message at message "
                f"index {index}."
            )
    return None


class OpenAIRules:
    """The rules of one flavour, with what it issued (OpenRouter's reasoning_details per call
    id, which must come back unmodified: openrouter.ai/docs/use-cases/reasoning-tokens)."""

    def __init__(self, flavour: str = "openai") -> None:
        if flavour not in FLAVOURS:
            raise ValueError(f"unknown flavour {flavour!r}")
        self.flavour = flavour
        self.details: dict[str, Any] = {}

    def sent(self, reply: Reply) -> None:
        message = _message(reply.body)
        for call in message.get("tool_calls") or []:
            if "reasoning_details" in message:
                self.details[call.get("id")] = message["reasoning_details"]

    def check(self, received: Received) -> Reply | None:
        body = received.body if isinstance(received.body, dict) else {}
        messages = body.get("messages") or []
        if self.flavour == "llamacpp-nojinja" and body.get("tools"):
            # tools/server/utils.hpp: a runtime_error, answered as HTTP 500 server_error.
            return error("tools param requires --jinja flag", "server_error", status=500)
        return (
            check_tool_pairs(messages)
            or self._flavour(body, messages)
            or self._details_returned(messages)
        )

    def _flavour(self, body: Mapping[str, Any], messages: Sequence[Any]) -> Reply | None:
        if self.flavour == "openai":
            return check_openai_model(body)
        if self.flavour in ("vllm", "ollama"):
            found = check_history_arguments(messages, self.flavour)
            return found or (check_ollama(body) if self.flavour == "ollama" else None)
        if self.flavour == "deepseek":
            return check_deepseek(body)
        if self.flavour == "openrouter":
            reasoning = body.get("reasoning") or {}
            if "effort" in reasoning and "max_tokens" in reasoning:
                return error("reasoning: give effort or max_tokens, not both")
        return None

    def _details_returned(self, messages: Sequence[Any]) -> Reply | None:
        for message in messages:
            for call in message.get("tool_calls") or []:
                issued = self.details.get(call.get("id"))
                if issued is not None and message.get("reasoning_details") != issued:
                    return error("reasoning_details of an earlier turn were not passed back")
        return None


def _message(body: Any) -> dict[str, Any]:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return {}
    return message if isinstance(message, dict) else {}
