"""What the Messages API rejects, as far as Anthropic's documentation and SDK say it.

``AnthropicRules`` validates a request body against its model and remembers the thinking
blocks it issued with each tool use, so a history that lost or changed them is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Received, Reply

TROUBLESHOOTING = "platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting"
# TROUBLESHOOTING: these models reject thinking.type "enabled" (adaptive only) ...
ADAPTIVE_ONLY = (
    r"claude-(opus-4-[7-9]|(opus|sonnet|haiku|mythos|fable)-[5-9])(-.*)?|claude-fable-.*"
)
# ... and on Claude 4.5 and earlier, enabled with budget_tokens is the only thinking mode.
BUDGET_ONLY = r"claude-((opus|sonnet|haiku)-4(-[0-5])?|3-[57]-sonnet|3-5-haiku)(-\d{8})?"
# anthropic-sdk-python types/output_config_param.py: the effort values.
EFFORTS = frozenset({"low", "medium", "high", "xhigh", "max"})
THINKING_BLOCKS = ("thinking", "redacted_thinking")


def error(message: str, status: int = 400) -> Reply:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return Reply(status=status, body=body)


def check_thinking(body: Mapping[str, Any]) -> Reply | None:
    """TROUBLESHOOTING's per-model table; ThinkingConfigEnabledParam: budget_tokens "must be
    >= 1024 and less than max_tokens"; OutputConfigParam: effort values."""
    model = str(body.get("model", ""))
    thinking = body.get("thinking") or {}
    kind = thinking.get("type")
    if kind == "enabled" and re.fullmatch(ADAPTIVE_ONLY, model):
        return error(
            '"thinking.type.enabled" is not supported for this model. Use '
            '"thinking.type.adaptive" and "output_config.effort" to control thinking '
            "behavior."
        )
    if kind == "adaptive" and re.fullmatch(BUDGET_ONLY, model):
        return error('"thinking.type.adaptive" is not supported for this model.')
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return error("thinking.budget_tokens: Input should be greater than or equal to 1024")
        if budget >= int(body.get("max_tokens") or 0):
            return error("`max_tokens` must be greater than `thinking.budget_tokens`.")
    effort = (body.get("output_config") or {}).get("effort")
    if effort is not None and effort not in EFFORTS:
        return error(f"output_config.effort: Input should be one of {sorted(EFFORTS)}")
    return None


def check_tool_pairs(messages: Sequence[Any]) -> Reply | None:
    """Each tool_use is answered by a tool_result in the next user turn, tool_result blocks
    come first there and answer a tool_use of the turn before ("tool_use ids were found
    without tool_result blocks immediately after"; "unexpected tool_use_id found in
    tool_result blocks"); tool_use.input is an object."""
    pending: list[str] = []
    for index, message in enumerate(messages):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        kinds = [b.get("type") for b in blocks]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if pending and (message.get("role") != "user" or sorted(results) != sorted(pending)):
            return error(
                f"messages.{index}: tool_use ids were found without tool_result blocks "
                f"immediately after: {', '.join(pending)}"
            )
        if results and not pending:
            return error(f"messages.{index}: unexpected tool_use_id found in tool_result blocks")
        if results and kinds[: len(results)] != ["tool_result"] * len(results):
            return error(f"messages.{index}: tool_result blocks must come first in the content")
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        if any(not isinstance(b.get("input"), dict) for b in uses):
            return error(f"messages.{index}: tool_use.input: Input should be a valid dictionary")
        pending = [b.get("id") for b in uses] if message.get("role") == "assistant" else []
    return None


class AnthropicRules:
    """Request validation plus the thinking blocks this "model" issued with each tool use.
    With thinking on, the last assistant turn (the tool use being answered) must start with
    them ("a final assistant message must start with a thinking block"; earlier turns may
    leave them out, the API strips them), and any that come back must be unmodified and in
    order (anthropic-sdk-python types/thinking_block_param.py: "Thinking blocks must be passed
    back unmodified and in their original order; a modified block results in a 400")."""

    def __init__(self) -> None:
        self.issued: dict[str, list[Mapping[str, Any]]] = {}

    def sent(self, reply: Reply) -> None:
        content = reply.body.get("content") if isinstance(reply.body, dict) else None
        blocks = [b for b in content or [] if isinstance(b, dict)]
        thinking = [b for b in blocks if b.get("type") in THINKING_BLOCKS]
        for block in blocks:
            if block.get("type") == "tool_use" and thinking:
                self.issued[block.get("id")] = thinking

    def check(self, received: Received) -> Reply | None:
        body = received.body if isinstance(received.body, dict) else {}
        messages = body.get("messages") or []
        found = check_thinking(body) or check_tool_pairs(messages)
        if found is None and (body.get("thinking") or {}).get("type") in ("enabled", "adaptive"):
            found = self._thinking_returned(messages)
        return found

    def _thinking_returned(self, messages: Sequence[Any]) -> Reply | None:
        assistants = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
        for index in assistants:
            content = messages[index].get("content")
            if not isinstance(content, list) or not content:
                continue
            uses = [b.get("id") for b in content if b.get("type") == "tool_use"]
            issued = next((self.issued[i] for i in uses if i in self.issued), None)
            if issued is None:
                continue
            head = [b for b in content if b.get("type") in THINKING_BLOCKS]
            if not head and index == assistants[-1]:  # earlier turns may leave them out
                return error(
                    f"messages.{index}.content.0.type: Expected `thinking` or "
                    f"`redacted_thinking`, but found `{content[0].get('type')}`. When "
                    "`thinking` is enabled, a final `assistant` message must start "
                    "with a thinking block."
                )
            if head and (head != list(issued) or content[0].get("type") not in THINKING_BLOCKS):
                return error(f"messages.{index}: Invalid `signature` in `thinking` block")
        return None
