"""A loopback ``POST /v1/messages`` server with Anthropic-shaped scripted behaviours; it
rejects what the Messages API rejects (``strict_anthropic``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Reply, ScriptedServer, truncated
from .strict_anthropic import AnthropicRules


def serve(*replies: Reply) -> ScriptedServer:
    """A server for ``replies``; pass ``server.base_url`` as the SDK's base URL (no /v1)."""
    return ScriptedServer(
        replies,
        lambda method, path: method == "POST" and path == "/v1/messages",
        rules=AnthropicRules(),
    )


def message(content: list[dict[str, Any]], stop_reason: str = "end_turn", **usage: Any) -> Any:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 6, **usage},
    }


def text(content: str, **usage: Any) -> Reply:
    return Reply(body=message([{"type": "text", "text": content}], **usage))


def tool_use(
    *calls: tuple[str, Any],
    preamble: str | None = None,
    thinking: str | None = None,
    redacted: bool = False,
    prefix: str = "toolu",
) -> Reply:
    """Tool use blocks (ids ``<prefix>_<n>``), after a thinking block with its signature and a
    redacted_thinking block when asked, as Claude answers with thinking on."""
    blocks: list[dict[str, Any]] = []
    if thinking is not None:
        blocks.append({"type": "thinking", "thinking": thinking, "signature": f"sig-{prefix}"})
    if redacted:
        blocks.append({"type": "redacted_thinking", "data": f"enc-{prefix}"})
    if preamble:
        blocks.append({"type": "text", "text": preamble})
    blocks += [
        {"type": "tool_use", "id": f"{prefix}_{index}", "name": name, "input": args}
        for index, (name, args) in enumerate(calls)
    ]
    return Reply(body=message(blocks, "tool_use"))


def refusal() -> Reply:
    """``stop_reason: refusal`` without content (the model declined)."""
    return Reply(body=message([], "refusal"))


def thinking_only(thought: str = "Which tool fits best?") -> Reply:
    block = {"type": "thinking", "thinking": thought, "signature": "sig-test"}
    return Reply(body=message([block], "max_tokens"))


def error(status: int, kind: str, text: str, headers: Mapping[str, str] | None = None) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": text}}
    return Reply(status=status, body=body, headers=dict(headers or {}))


def rate_limited(retry_after: str | None = None) -> Reply:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return error(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        headers,
    )


def quota_exhausted() -> Reply:
    text_ = "Your credit balance is too low to access the Anthropic API."
    return error(400, "invalid_request_error", text_)


def server_error(status: int = 500) -> Reply:
    kind = "overloaded_error" if status == 529 else "api_error"
    return error(status, kind, "Internal server error")


def slow(seconds: float = 5.0) -> Reply:
    return Reply(body=text("late").body, delay_s=seconds)


def malformed() -> Reply:
    return Reply(body="<html>bad gateway</html>")


def truncated_body() -> Reply:
    return Reply(body=truncated(text("cut off here").body))


def empty_content() -> Reply:
    return Reply(body=message([]))


def wrong_shape() -> Reply:
    return Reply(body={"type": "message", "content": {"text": "not a list"}})


def bad_tool_arguments() -> Reply:
    """Anthropic sends ``input`` as an object; a non-object input is the nearest bad case."""
    return tool_use(("get_weather", "Berlin"))
