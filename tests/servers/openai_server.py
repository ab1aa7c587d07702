"""A loopback ``POST /v1/chat/completions`` server with OpenAI-shaped scripted behaviours; it
rejects what the chosen server rejects (``strict_openai``: the OpenAI API by default).

Given a ``tools`` policy it reports, like a real server, the size of the prompt it built
from each request: every answer's ``usage.prompt_tokens`` is then a count of the request's
messages and, when the server renders them, its tools (4 characters a token); with
``tools=None``, or when the script's own count is not a whole number >= 0 or its body is too
deep to copy, it sends the scripted usage as it is.
``tools`` says when the tools are rendered: ``honoured``
(always), ``dropped`` (never: a server that ignores the ``tools`` array) or
``with_tool_choice`` (only when the request names a ``tool_choice``, as llama-cpp-python's
``chatml-function-calling`` format does).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Literal

from .base import Received, Reply, ScriptedServer, truncated
from .strict_openai import OpenAIRules

ToolPolicy = Literal["honoured", "dropped", "with_tool_choice"] | None


class OpenAIServer(ScriptedServer):
    """A scripted chat-completions server that counts the prompts it is sent."""

    def __init__(
        self, replies: Iterable[Reply], tools: ToolPolicy = "honoured", flavour: str = "openai"
    ) -> None:
        super().__init__(
            replies,
            lambda method, path: method == "POST" and path == "/v1/chat/completions",
            prefix="/v1",
            rules=OpenAIRules(flavour),
        )
        self.tools = tools

    def _answer(self, number: int, record: Received) -> Reply:
        reply = super()._answer(number, record)
        body = reply.body
        if not isinstance(body, dict) or not isinstance(body.get("usage"), dict):
            return reply
        if not isinstance(record.body, dict) or self.tools is None:
            return reply
        scripted = body["usage"].get("prompt_tokens")
        if not isinstance(scripted, int) or scripted < 0:
            return reply  # a count the script made up on purpose stays as it is
        try:
            body = copy.deepcopy(body)
        except RecursionError:  # a hostile body 900 levels deep goes out as scripted
            return reply
        rendered = renders_tools(record.body, self.tools)
        body["usage"]["prompt_tokens"] = prompt_size(record.body, rendered)
        return replace(reply, body=body)

    def __enter__(self) -> OpenAIServer:
        super().__enter__()
        return self


def renders_tools(request: Mapping[str, Any], policy: ToolPolicy) -> bool:
    if not request.get("tools") or policy == "dropped":
        return False
    return policy == "honoured" or "tool_choice" in request


def prompt_size(request: Mapping[str, Any], with_tools: bool) -> int:
    """Tokens of the prompt a server builds from ``request``: 4 characters a token."""
    messages = request.get("messages") or []
    text = "".join(f"<|{m.get('role')}|>{m.get('content') or ''}" for m in messages)
    if with_tools:
        text += json.dumps(request.get("tools"), ensure_ascii=False)
    return max(1, math.ceil(len(text) / 4))


def serve(*replies: Reply, tools: ToolPolicy = "honoured", flavour: str = "openai") -> OpenAIServer:
    """A server for ``replies``; point a client at ``server.base_url`` (it ends in ``/v1``).
    ``flavour`` picks whose rules it enforces (``strict_openai.FLAVOURS``)."""
    return OpenAIServer(replies, tools, flavour)


def completion(message: Mapping[str, Any], finish_reason: str = "stop", **usage: Any) -> Any:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17, **usage},
    }


def text(content: str, **usage: Any) -> Reply:
    return Reply(body=completion({"role": "assistant", "content": content}, **usage))


def tool_calls(
    *calls: tuple[str, Any], finish_reason: str = "tool_calls", prefix: str = "call", **extra: Any
) -> Reply:
    """Native tool calls; arguments given as str are sent verbatim (may be invalid JSON).
    ``extra`` adds message fields (``reasoning_content``, ``reasoning_details``); ids are
    ``<prefix>_<n>``."""
    rendered = [
        {
            "id": f"{prefix}_{index}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for index, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": rendered, **extra}
    return Reply(body=completion(message, finish_reason))


def refusal(text: str = "I can't help with that.") -> Reply:
    """A refusal in the ``refusal`` field, no content (chat completions' message.refusal)."""
    message = {"role": "assistant", "content": None, "refusal": text}
    return Reply(body=completion(message))


def filtered() -> Reply:
    """Content omitted by OpenAI's content filter."""
    return Reply(body=completion({"role": "assistant", "content": None}, "content_filter"))


def cut_call(name: str = "get_weather", arguments: str = '{"city": "K') -> Reply:
    """A tool call cut off by the token budget (finish_reason length)."""
    return tool_calls((name, arguments), finish_reason="length")


def reasoning_only(reasoning: str = "Let me think about the tools...") -> Reply:
    message = {"role": "assistant", "content": None, "reasoning_content": reasoning}
    return Reply(body=completion(message, "length"))


def error(status: int, message: str, code: str, headers: Mapping[str, str] | None = None) -> Reply:
    body = {"error": {"message": message, "type": code, "code": code, "param": None}}
    return Reply(status=status, body=body, headers=dict(headers or {}))


def rate_limited(retry_after: str | None = None) -> Reply:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return error(429, "Rate limit reached for requests per min", "rate_limit_exceeded", headers)


def quota_exhausted() -> Reply:
    return error(429, "You exceeded your current quota.", "insufficient_quota")


def server_error(status: int = 500) -> Reply:
    return error(status, "The server had an error", "server_error")


def slow(seconds: float = 5.0) -> Reply:
    return Reply(body=text("late").body, delay_s=seconds)


def malformed() -> Reply:
    return Reply(body="{not json at all")


def truncated_body() -> Reply:
    return Reply(body=truncated(text("cut off here").body))


def empty_choices() -> Reply:
    body = completion({"role": "assistant", "content": "x"})
    body["choices"] = []
    return Reply(body=body)


def wrong_shape() -> Reply:
    return Reply(body={"choices": "nope"})


def bad_tool_arguments() -> Reply:
    return tool_calls(("get_weather", '{"city": "Berlin"'))
