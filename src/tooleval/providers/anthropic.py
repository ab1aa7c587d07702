"""The Anthropic backend: the Messages API (``POST /v1/messages``) through the ``anthropic`` SDK.

Request building and response parsing are pure functions over plain dicts. An assistant turn's
blocks (thinking and redacted_thinking with their signatures) go back to Claude as it sent them.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import anthropic

from tooleval.providers import stops
from tooleval.providers._shared import (
    HostedOptions,
    dump_args,
    hosted_target,
    invalid_body,
    load_args,
    load_body,
    no_answer,
    response_text,
    sdk_failure,
    usage_of,
)
from tooleval.providers._transport import guarded_client
from tooleval.providers.capabilities import (
    Family,
    ReasoningChoice,
    choose_reasoning,
    family_for,
    headroom,
    reasoning_note,
    sampling,
)
from tooleval.providers.history import own, readable
from tooleval.providers.presets import PRESETS
from tooleval.providers.stops import stop_class
from tooleval.records import (
    GenerationRequest,
    GenerationResponse,
    Message,
    NativeToolCall,
    ToolSpec,
    Usage,
)

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def anthropic_tool(tool: ToolSpec) -> dict[str, Any]:
    """One tool in the Messages API format; the name must match ``^[a-zA-Z0-9_-]{1,64}$``."""
    if not TOOL_NAME.match(tool.name):
        raise ValueError(f"tool {tool.name!r}: Anthropic tool names must match {TOOL_NAME.pattern}")
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": dict(tool.parameters),
    }


THINKING_BLOCKS = ("thinking", "redacted_thinking")


def _assistant_blocks(message: Message, index: int) -> list[dict[str, Any]]:
    """An assistant turn's content blocks: the blocks Claude sent, verbatim, while the turn's
    calls are the ones they hold (thinking and redacted_thinking blocks "must be passed back
    unmodified and in their original order" with the tool results, anthropic-sdk-python
    types/thinking_block_param.py); else thinking blocks first, then text and tool_use."""
    stored = own(message.provider_data, "anthropic").get("content")
    blocks = [dict(b) for b in stored] if isinstance(stored, list) else []
    uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
    if blocks and uses == [call.call_id for call in message.tool_calls]:
        return blocks
    rebuilt = [b for b in blocks if b.get("type") in THINKING_BLOCKS]
    if message.content:
        rebuilt.append({"type": "text", "text": message.content})
    for position, call in enumerate(message.tool_calls):
        rebuilt.append(
            {
                "type": "tool_use",
                "id": call.call_id or f"toolu_{index}_{position}",
                "name": call.name,
                "input": load_args(call.arguments),
            }
        )
    return rebuilt


def render_anthropic_messages(
    messages: Sequence[Message],
) -> tuple[str | None, list[dict[str, Any]]]:
    """(system text, messages) for the Messages API. The results of one turn share one user
    turn (tool_result blocks first, then text); an assistant turn with nothing to replay is
    left out."""
    system = [m.content for m in messages if m.role == "system" and m.content]
    rendered: list[dict[str, Any]] = []
    for index, message in enumerate(readable(messages)):
        if message.role == "system":
            continue
        if message.role == "assistant":
            blocks = _assistant_blocks(message, index)
            if blocks:
                rendered.append({"role": "assistant", "content": blocks})
            continue
        block: dict[str, Any] = {"type": "text", "text": message.content or ""}
        if message.role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content or "",
            }
        previous = rendered[-1] if rendered else None
        if previous is not None and previous["role"] == "user":
            _append(previous, block)
        elif message.role == "tool":
            rendered.append({"role": "user", "content": [block]})
        else:
            rendered.append({"role": "user", "content": message.content or ""})
    return ("\n\n".join(system) if system else None), rendered


def _append(turn: dict[str, Any], block: dict[str, Any]) -> None:
    """Add a block to a user turn (a text shorthand becomes its one text block first)."""
    if isinstance(turn["content"], str):
        turn["content"] = [{"type": "text", "text": turn["content"]}]
    turn["content"].append(block)


def thinking_fields(family: Family, choice: ReasoningChoice) -> dict[str, Any]:
    """``thinking`` (and ``output_config.effort``) for the family's control: adaptive with an
    effort on Claude 4.6 and later, enabled with budget_tokens on earlier models."""
    if choice.mode == "default":
        return {}
    if choice.mode == "off":
        return {"thinking": {"type": "disabled"}}
    if family.control == "adaptive":
        return {"thinking": {"type": "adaptive"}, "output_config": {"effort": choice.level}}
    return {"thinking": {"type": "enabled", "budget_tokens": choice.budget}}


def settings_for(request: GenerationRequest, model: str) -> tuple[Family, dict[str, Any]]:
    """The model's family and the body fields besides model, system, messages and tools.
    Thinking counts against ``max_tokens``, so its budget (or an effort's nominal budget) is
    added to the answer budget. No temperature or top_p: the Messages API as the SDK speaks
    it has neither (a given value is refused)."""
    family = family_for("anthropic", None, model)
    choice = choose_reasoning(family, request.reasoning)
    sampling(family, request.temperature, request.top_p, choice)  # refuses given values
    fields: dict[str, Any] = {"max_tokens": request.max_tokens + headroom(choice)}
    if request.stop:
        fields["stop_sequences"] = list(request.stop)
    fields.update(thinking_fields(family, choice))
    return family, fields


def build_anthropic_body(request: GenerationRequest, model: str) -> dict[str, Any]:
    """The JSON body of one Messages API request."""
    system, messages = render_anthropic_messages(request.messages)
    body: dict[str, Any] = {"model": model, "messages": messages}
    if system is not None:
        body["system"] = system
    if request.tools:
        body["tools"] = [anthropic_tool(tool) for tool in request.tools]
    body.update(settings_for(request, model)[1])
    return body


USAGE_FIELDS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cached_input_tokens": "cache_read_input_tokens",
}


def parse_anthropic_usage(usage: Any) -> Usage:
    return usage_of(usage, USAGE_FIELDS)


def _read_blocks(content: list[Any]) -> tuple[list[str], list[str], list[NativeToolCall]]:
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[NativeToolCall] = []
    for index, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thoughts.append(block["thinking"])
        elif kind == "tool_use":
            if not isinstance(block.get("name"), str):
                raise invalid_body(f"content[{index}] is a tool_use block without a name")
            calls.append(
                NativeToolCall(block["name"], dump_args(block.get("input")), block.get("id"))
            )
        elif kind is None:
            raise invalid_body(f"content[{index}] is not a typed block")
    return texts, thoughts, calls


def _opaque(content: list[Any]) -> dict[str, Any]:
    """The content kept for replay: all blocks, when a thinking block is among them."""
    thinking = any(isinstance(b, dict) and b.get("type") in THINKING_BLOCKS for b in content)
    return {"anthropic": {"content": content}} if thinking else {}


def parse_anthropic_body(body: Mapping[str, Any]) -> GenerationResponse:
    """A Messages API answer as a GenerationResponse, or ProviderError when it has none.
    ``stop_reason: refusal`` is an answer of class ``refused``; ``max_tokens`` with nothing
    before it is ``truncated``."""
    content = body.get("content")
    if not isinstance(content, list):
        raise invalid_body("'content' is missing or not a list")
    texts, thoughts, calls = _read_blocks(content)
    text = "".join(texts)
    stop = body.get("stop_reason")
    kind = stop_class(stop, stops.ANTHROPIC)
    usage = parse_anthropic_usage(body.get("usage"))
    reasoning = "\n".join(thoughts) if thoughts else None
    redacted = any(isinstance(b, dict) and b.get("type") == "redacted_thinking" for b in content)
    if not calls and not text and kind != "refused":
        fields = f"stop_reason={stop}, output_tokens={usage.output_tokens}"
        raise no_answer(reasoning is not None or redacted, kind == "truncated", fields)
    return GenerationResponse(
        text=text or None,
        tool_calls=tuple(calls),
        usage=usage,
        finish_reason=stop if isinstance(stop, str) else None,
        reasoning=reasoning,
        stop_class=kind,
        provider_data=_opaque(content),
    )


class AnthropicProvider:
    """One Messages API request per ``generate`` through the ``anthropic`` SDK, no retries.

    The key comes from ANTHROPIC_API_KEY, and only when talking to api.anthropic.com; any other
    ``base_url`` needs ``api_key_env`` naming the variable to send.
    """

    name = "anthropic"

    def __init__(self, model: str, **options: Unpack[HostedOptions]) -> None:
        self.model = model
        self.base_url, key, timeout_s = hosted_target(PRESETS["anthropic"], options)
        self._secrets = (key,)
        transport = guarded_client(self.base_url, timeout_s, library="httpx2")
        self._client = anthropic.Anthropic(
            api_key=key,
            base_url=self.base_url,
            timeout=timeout_s,
            max_retries=0,
            http_client=transport,
        )
        self.close = weakref.finalize(self, transport.close)  # pooled connections closed

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        body = build_anthropic_body(request, self.model)
        return parse_anthropic_body(load_body(self._send(body)))

    def request_settings(self, request: GenerationRequest) -> dict[str, Any]:
        """What a request sends besides the conversation (the results' ``request_settings``)."""
        family, fields = settings_for(request, self.model)
        return {"family": family.name, **fields, **reasoning_note(family, request)}

    def _send(self, body: Mapping[str, Any]) -> str:
        try:
            raw = self._client.messages.with_raw_response.create(**body)
            answer = raw.http_response
            return response_text(answer.status_code, answer.content, answer.headers, self._secrets)
        except (anthropic.APIError, UnicodeDecodeError) as exc:
            failure = sdk_failure(anthropic, exc, self.base_url, self._secrets)
        raise failure  # outside the except block: no SDK exception chained to it
