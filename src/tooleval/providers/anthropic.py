"""The Anthropic backend: the Messages API (``POST /v1/messages``) through the ``anthropic`` SDK.

Request building and response parsing are pure functions over plain dicts.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import anthropic

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
from tooleval.providers.presets import PRESETS
from tooleval.providers.reasoning import parse_reasoning
from tooleval.records import (
    GenerationRequest,
    GenerationResponse,
    Message,
    NativeToolCall,
    ToolSpec,
    Usage,
)

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MIN_THINKING_BUDGET = 1024


def anthropic_tool(tool: ToolSpec) -> dict[str, Any]:
    """One tool in the Messages API format; the name must match ``^[a-zA-Z0-9_-]{1,64}$``."""
    if not TOOL_NAME.match(tool.name):
        raise ValueError(f"tool {tool.name!r}: Anthropic tool names must match {TOOL_NAME.pattern}")
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": dict(tool.parameters),
    }


def _assistant_blocks(message: Message, index: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for position, call in enumerate(message.tool_calls):
        blocks.append(
            {
                "type": "tool_use",
                "id": call.call_id or f"toolu_{index}_{position}",
                "name": call.name,
                "input": load_args(call.arguments),
            }
        )
    return blocks


def render_anthropic_messages(
    messages: Sequence[Message],
) -> tuple[str | None, list[dict[str, Any]]]:
    """(system text, messages) for the Messages API. Consecutive tool results share one turn."""
    system = [m.content for m in messages if m.role == "system" and m.content]
    rendered: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if message.role == "system":
            continue
        if message.role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content or "",
            }
            previous = rendered[-1] if rendered else None
            if previous and previous["role"] == "user" and _is_tool_results(previous):
                previous["content"].append(block)
            else:
                rendered.append({"role": "user", "content": [block]})
        elif message.role == "assistant":
            rendered.append({"role": "assistant", "content": _assistant_blocks(message, index)})
        else:
            rendered.append({"role": "user", "content": message.content or ""})
    return ("\n\n".join(system) if system else None), rendered


def _is_tool_results(message: Mapping[str, Any]) -> bool:
    content = message["content"]
    return isinstance(content, list) and all(b.get("type") == "tool_result" for b in content)


def build_anthropic_body(request: GenerationRequest, model: str) -> dict[str, Any]:
    """The JSON body of one Messages API request.

    With thinking on, ``max_tokens`` becomes budget + the request's answer budget. No
    temperature is sent: the API version the SDK speaks rejects sampling parameters.
    """
    system, messages = render_anthropic_messages(request.messages)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": messages,
    }
    if system is not None:
        body["system"] = system
    if request.tools:
        body["tools"] = [anthropic_tool(tool) for tool in request.tools]
    if request.stop:
        body["stop_sequences"] = list(request.stop)
    setting = parse_reasoning(request.reasoning)
    budget = setting.as_budget()
    if setting.mode == "off":
        body["thinking"] = {"type": "disabled"}
    elif budget is not None:
        budget = max(budget, MIN_THINKING_BUDGET)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = budget + request.max_tokens
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


def parse_anthropic_body(body: Mapping[str, Any]) -> GenerationResponse:
    """A Messages API answer as a GenerationResponse, or ProviderError when it has none."""
    content = body.get("content")
    if not isinstance(content, list):
        raise invalid_body("'content' is missing or not a list")
    texts, thoughts, calls = _read_blocks(content)
    text = "".join(texts)
    stop = body.get("stop_reason")
    usage = parse_anthropic_usage(body.get("usage"))
    reasoning = "\n".join(thoughts) if thoughts else None
    if not calls and not text:
        fields = f"stop_reason={stop}, output_tokens={usage.output_tokens}"
        raise no_answer(reasoning is not None, stop == "max_tokens", fields)
    return GenerationResponse(
        text=text or None,
        tool_calls=tuple(calls),
        usage=usage,
        finish_reason=stop if isinstance(stop, str) else None,
        reasoning=reasoning,
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

    def _send(self, body: Mapping[str, Any]) -> str:
        try:
            raw = self._client.messages.with_raw_response.create(**body)
            answer = raw.http_response
            return response_text(answer.status_code, answer.content, answer.headers, self._secrets)
        except (anthropic.APIError, UnicodeDecodeError) as exc:
            failure = sdk_failure(anthropic, exc, self.base_url, self._secrets)
        raise failure  # outside the except block: no SDK exception chained to it
