"""A loopback ``POST /v1beta/models/{model}:generateContent`` server with Gemini-shaped
scripted behaviours; it rejects what generateContent rejects (``strict_gemini``)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any

from .base import Reply, ScriptedServer, truncated
from .strict_gemini import GeminiRules

ROUTE = re.compile(r"^/v1beta/models/[^/:]+:generateContent$")


def serve(*replies: Reply) -> ScriptedServer:
    """A server for ``replies``; give ``server.base_url`` to the SDK's ``http_options``."""
    return ScriptedServer(
        replies,
        lambda method, path: method == "POST" and bool(ROUTE.match(path)),
        rules=GeminiRules(),
    )


def signature(name: str, args: Any) -> str:
    """A stand-in thought signature (opaque base64, unique per call)."""
    return base64.b64encode(json.dumps([name, args]).encode()).decode()


def response(parts: list[dict[str, Any]] | None, finish_reason: str = "STOP", **usage: Any) -> Any:
    candidate: dict[str, Any] = {"finishReason": finish_reason, "index": 0}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 30,
            "candidatesTokenCount": 8,
            "totalTokenCount": 38,
            **usage,
        },
        "modelVersion": "test-model",
    }


def text(content: str, **usage: Any) -> Reply:
    return Reply(body=response([{"text": content}], **usage))


def function_calls(
    *calls: tuple[str, Any], signed: bool = False, ids: bool = False, thought: str | None = None
) -> Reply:
    """Function calls as Gemini sends them. ``signed``: the first call part carries a thought
    signature, as Gemini 3 does for parallel calls (ai.google.dev/gemini-api/docs/
    thought-signatures); ``ids``: each call has an id; ``thought``: a thought summary first."""
    parts: list[dict[str, Any]] = []
    if thought is not None:
        parts.append({"text": thought, "thought": True})
    for index, (name, args) in enumerate(calls):
        call: dict[str, Any] = {"name": name, "args": args}
        if ids:
            call["id"] = f"fc_{name}_{index}"
        part: dict[str, Any] = {"functionCall": call}
        if signed and index == 0:
            part["thoughtSignature"] = signature(name, args)
        parts.append(part)
    return Reply(body=response(parts))


def malformed_call() -> Reply:
    """MALFORMED_FUNCTION_CALL: the model's call could not be parsed; no content."""
    body = response(None, "MALFORMED_FUNCTION_CALL")
    body["candidates"][0]["finishMessage"] = "Malformed function call: get_weather(city='K"
    return Reply(body=body)


def safety() -> Reply:
    """The answer stopped by the safety filter (no content)."""
    return Reply(body=response(None, "SAFETY"))


def cut_text(content: str = '{"name": "get_weather", "arguments": {"city": "K') -> Reply:
    """Text cut off by maxOutputTokens."""
    return Reply(body=response([{"text": content}], "MAX_TOKENS"))


def thoughts_only() -> Reply:
    """Gemini 2.5 spending the whole budget thinking: no parts, thought tokens counted."""
    return Reply(body=response(None, "MAX_TOKENS", thoughtsTokenCount=160))


def error(
    status: int,
    code_name: str,
    message: str,
    details: list[Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    body = {"error": {"code": status, "message": message, "status": code_name}}
    if details:
        body["error"]["details"] = details
    return Reply(status=status, body=body, headers=dict(headers or {}))


def _quota_details(quota_id: str, retry_delay: str | None) -> list[Any]:
    details: list[Any] = [
        {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
                    "quotaId": quota_id,
                }
            ],
        }
    ]
    if retry_delay is not None:
        details.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        )
    return details


def rate_limited(retry_after: str | None = None, retry_delay: str | None = None) -> Reply:
    """A per-minute limit; the delay comes as a header and/or as RetryInfo in the body."""
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    details = _quota_details("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", retry_delay)
    message = "You exceeded your current quota, please check your plan and billing details."
    return error(429, "RESOURCE_EXHAUSTED", message, details, headers)


def quota_exhausted() -> Reply:
    details = _quota_details("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "3600s")
    message = "You exceeded your current quota, please check your plan and billing details."
    return error(429, "RESOURCE_EXHAUSTED", message, details)


def server_error(status: int = 500) -> Reply:
    name = "UNAVAILABLE" if status == 503 else "INTERNAL"
    return error(status, name, "The model is overloaded. Please try again later.")


def slow(seconds: float = 5.0) -> Reply:
    return Reply(body=text("late").body, delay_s=seconds)


def malformed() -> Reply:
    return Reply(body="{'candidates': oops")


def truncated_body() -> Reply:
    return Reply(body=truncated(text("cut off here").body))


def empty_candidates() -> Reply:
    return Reply(body={"candidates": [], "usageMetadata": {"promptTokenCount": 3}})


def blocked_prompt() -> Reply:
    return Reply(body={"promptFeedback": {"blockReason": "SAFETY"}})


def wrong_shape() -> Reply:
    return Reply(body={"candidates": {"content": "x"}})


def bad_tool_arguments() -> Reply:
    """Gemini sends ``args`` as an object; a non-object value is the nearest bad case."""
    return function_calls(("get_weather", ["Berlin"]))
