"""The Gemini backend: ``generateContent`` through the official ``google-genai`` SDK.

``build_gemini_body`` produces the REST body (camelCase, as on the wire) and
``parse_gemini_body`` reads the REST answer; the provider hands the body to the SDK and asks
it for the raw response text, so both stay pure and testable as dicts.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Unpack

from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from tooleval.providers._shared import (
    TRANSPORT_ERRORS,
    HostedOptions,
    dump_args,
    error_for_status,
    hosted_target,
    invalid_body,
    load_args,
    load_body,
    no_answer,
    transport_failure,
    usage_of,
)
from tooleval.providers._transport import guarded_client
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.presets import PRESETS
from tooleval.providers.reasoning import parse_reasoning
from tooleval.records import GenerationRequest, GenerationResponse, Message, NativeToolCall, Usage

_RETRY_DELAY = re.compile(r'"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"')


def _tool_response(content: str | None) -> dict[str, Any]:
    """A tool result as the object Gemini's functionResponse.response needs."""
    try:
        value = json.loads(content) if content else None
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"result": content or ""}


def _call_names(messages: Sequence[Message]) -> dict[str, str]:
    """call id -> tool name over all assistant tool calls, to name tool results."""
    return {
        call.call_id: call.name
        for message in messages
        for call in message.tool_calls
        if call.call_id is not None
    }


def _model_parts(message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    parts += [
        {"functionCall": {"name": call.name, "args": load_args(call.arguments)}}
        for call in message.tool_calls
    ]
    return parts


def render_gemini_contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """``contents`` for generateContent; consecutive tool results share one user turn."""
    names = _call_names(messages)
    contents: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "assistant":
            contents.append({"role": "model", "parts": _model_parts(message)})
            continue
        if message.role == "tool":
            name = message.name or names.get(message.tool_call_id or "", "")
            part = {"functionResponse": {"name": name, "response": _tool_response(message.content)}}
            last = contents[-1] if contents else None
            if last and last["role"] == "user" and "functionResponse" in last["parts"][0]:
                last["parts"].append(part)
                continue
            contents.append({"role": "user", "parts": [part]})
            continue
        contents.append({"role": "user", "parts": [{"text": message.content or ""}]})
    return contents


def _generation_config(request: GenerationRequest) -> dict[str, Any]:
    config: dict[str, Any] = {
        "maxOutputTokens": request.max_tokens,
        "temperature": request.temperature,
    }
    if request.seed is not None:
        config["seed"] = request.seed
    if request.stop:
        config["stopSequences"] = list(request.stop)
    setting = parse_reasoning(request.reasoning)
    budget = setting.as_budget()
    if setting.mode == "off":
        config["thinkingConfig"] = {"thinkingBudget": 0}
    elif budget is not None:
        config["thinkingConfig"] = {"thinkingBudget": budget, "includeThoughts": True}
        config["maxOutputTokens"] = budget + request.max_tokens
    return config


def build_gemini_body(request: GenerationRequest) -> dict[str, Any]:
    """The REST body of one generateContent request (the model goes in the URL).

    Tools use ``parametersJsonSchema`` (full JSON Schema) rather than the OpenAPI-subset
    ``parameters`` field. A thinking budget is added on top of the answer budget.
    """
    body: dict[str, Any] = {"contents": render_gemini_contents(request.messages)}
    system = [m.content for m in request.messages if m.role == "system" and m.content]
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    if request.tools:
        declarations = [
            {
                "name": t.name,
                "description": t.description,
                "parametersJsonSchema": dict(t.parameters),
            }
            for t in request.tools
        ]
        body["tools"] = [{"functionDeclarations": declarations}]
    body["generationConfig"] = _generation_config(request)
    return body


USAGE_FIELDS = {
    "input_tokens": "promptTokenCount",
    "output_tokens": "candidatesTokenCount",
    "cached_input_tokens": "cachedContentTokenCount",
    "reasoning_tokens": "thoughtsTokenCount",
}


def parse_gemini_usage(usage: Any) -> Usage:
    """Usage from usageMetadata; output counts answer plus thought tokens (both are billed)."""
    found = usage_of(usage, USAGE_FIELDS)
    answer, thoughts = found.output_tokens, found.reasoning_tokens
    output = None if answer is None and thoughts is None else (answer or 0) + (thoughts or 0)
    return replace(found, output_tokens=output)


def _read_parts(parts: list[Any]) -> tuple[str, str, tuple[NativeToolCall, ...]]:
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[NativeToolCall] = []
    for index, part in enumerate(parts):
        if not isinstance(part, dict):
            raise invalid_body(f"candidates[0].content.parts[{index}] is not an object")
        call = part.get("functionCall")
        if isinstance(call, dict):
            if not isinstance(call.get("name"), str):
                raise invalid_body(f"candidates[0].content.parts[{index}] has no function name")
            calls.append(NativeToolCall(call["name"], dump_args(call.get("args")), call.get("id")))
        elif isinstance(part.get("text"), str):
            (thoughts if part.get("thought") else texts).append(part["text"])
    return "".join(texts), "".join(thoughts), tuple(calls)


def _first_candidate(body: Mapping[str, Any]) -> dict[str, Any]:
    candidates = body.get("candidates")
    if candidates is None:
        feedback = body.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
        raise ProviderError(ErrorClass.EMPTY_CHOICES, f"no candidates (blockReason={reason})")
    if not isinstance(candidates, list):
        raise invalid_body("'candidates' is not a list")
    if not candidates:
        raise ProviderError(ErrorClass.EMPTY_CHOICES, "the answer has no candidates")
    if not isinstance(candidates[0], dict):
        raise invalid_body("candidates[0] is not an object")
    return candidates[0]


def parse_gemini_body(body: Mapping[str, Any]) -> GenerationResponse:
    """A generateContent answer as a GenerationResponse, or ProviderError when it has none."""
    candidate = _first_candidate(body)
    content = candidate.get("content") or {}
    parts = content.get("parts") if isinstance(content, dict) else None
    if parts is not None and not isinstance(parts, list):
        raise invalid_body("candidates[0].content.parts is not a list")
    text, thoughts, calls = _read_parts(parts or [])
    finish = candidate.get("finishReason")
    usage = parse_gemini_usage(body.get("usageMetadata"))
    if not calls and not text:
        fields = f"finishReason={finish}, thoughtsTokenCount={usage.reasoning_tokens}"
        raise no_answer(bool(thoughts or usage.reasoning_tokens), finish == "MAX_TOKENS", fields)
    return GenerationResponse(
        text=text or None,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish if isinstance(finish, str) else None,
        reasoning=thoughts or None,
    )


def sdk_arguments(body: Mapping[str, Any]) -> tuple[list[genai_types.Content], dict[str, Any]]:
    """(contents, config fields) for ``models.generate_content`` from a REST body."""
    contents = [genai_types.Content.model_validate(item) for item in body["contents"]]
    config: dict[str, Any] = dict(body.get("generationConfig", {}))
    for key in ("systemInstruction", "tools"):
        if key in body:
            config[key] = body[key]
    return contents, config


def retry_delay(body_text: str) -> float | None:
    """The RetryInfo delay (``"retryDelay": "37s"``) Gemini puts in 429 bodies, if any."""
    match = _RETRY_DELAY.search(body_text)
    return float(match.group(1)) if match else None


class GeminiProvider:
    """One generateContent request per ``generate`` through ``google-genai``, no retries.

    The key comes from GEMINI_API_KEY or GOOGLE_API_KEY, and only when talking to Google's
    host; any other ``base_url`` needs ``api_key_env`` naming the variable to send.
    """

    name = "gemini"

    def __init__(self, model: str, **options: Unpack[HostedOptions]) -> None:
        self.model = model
        self.base_url, key, timeout_s = hosted_target(PRESETS["gemini"], options)
        self._secrets = (key,)
        transport = guarded_client(self.base_url, timeout_s)
        http = genai_types.HttpOptions(
            base_url=self.base_url,
            api_version="v1beta",
            timeout=int(timeout_s * 1000),
            httpx_client=transport,
        )
        self._client = genai.Client(api_key=key, http_options=http)
        self.close = weakref.finalize(self, transport.close)  # pooled connections closed

    def __repr__(self) -> str:
        return f"GeminiProvider(model={self.model!r}, base_url={self.base_url!r})"

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        return parse_gemini_body(load_body(self._send(build_gemini_body(request))))

    def _send(self, body: Mapping[str, Any]) -> str:
        contents, fields = sdk_arguments(body)
        config = genai_types.GenerateContentConfig.model_validate(
            {**fields, "shouldReturnHttpResponse": True}
        )
        failure: ProviderError | None = None
        try:
            answer = self._client.models.generate_content(
                model=self.model, contents=contents, config=config
            )
            raw = answer.sdk_http_response.body if answer.sdk_http_response else None
            return raw or ""
        except genai_errors.APIError as exc:
            failure = self._status_error(exc)
        except TRANSPORT_ERRORS as exc:
            failure = transport_failure(exc, self.base_url, self._secrets)
        raise failure

    def _status_error(self, exc: genai_errors.APIError) -> ProviderError:
        text = json.dumps(exc.details, ensure_ascii=False) if exc.details else str(exc.message)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        error = error_for_status(int(exc.code), text, headers.get("retry-after"), self._secrets)
        if error.error_class is ErrorClass.RATE_LIMITED and error.retry_after is None:
            error.retry_after = retry_delay(text)
        return error
