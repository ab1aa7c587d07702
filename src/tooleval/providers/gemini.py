"""The Gemini backend: ``generateContent`` through the official ``google-genai`` SDK.

``build_gemini_body`` produces the REST body (camelCase, as on the wire) and
``parse_gemini_body`` reads the REST answer; the provider hands the body to the SDK and asks
it for the raw response text, so both stay pure and testable as dicts. A model turn's parts
(thought signatures included) and each call's id go back to Gemini as it sent them.
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

from tooleval.providers import stops
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
from tooleval.providers.capabilities import (
    Family,
    ReasoningChoice,
    choose_reasoning,
    family_for,
    headroom,
    reasoning_note,
    sampling,
)
from tooleval.providers.history import own, readable, tag
from tooleval.providers.presets import PRESETS
from tooleval.providers.stops import stop_class
from tooleval.records import GenerationRequest, GenerationResponse, Message, NativeToolCall, Usage

_RETRY_DELAY = re.compile(r'"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"')


def _tool_response(content: str | None) -> dict[str, Any]:
    """A tool result as the object Gemini's functionResponse.response needs."""
    try:
        value = json.loads(content) if content else None
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"result": content or ""}


def _calls_by_id(messages: Sequence[Message]) -> dict[str, NativeToolCall]:
    """call id -> call over all assistant tool calls, to name and id tool results."""
    return {
        call.call_id: call
        for message in messages
        for call in message.tool_calls
        if call.call_id is not None
    }


def _call_part(call: NativeToolCall) -> dict[str, Any]:
    """A functionCall part rebuilt from a call, with the id Gemini issued for it and the
    thought signature it came with."""
    kept = own(call.provider_data, "gemini")
    function: dict[str, Any] = {"name": call.name, "args": load_args(call.arguments)}
    if "id" in kept:
        function["id"] = kept["id"]
    part: dict[str, Any] = {"functionCall": function}
    if "thoughtSignature" in kept:
        part["thoughtSignature"] = kept["thoughtSignature"]
    return part


def _model_parts(message: Message) -> list[dict[str, Any]]:
    """A model turn's parts: the parts Gemini sent, verbatim, while the turn's calls are the
    ones they hold ("return the entire response with all parts back": signatures stay on the
    parts they came on, ai.google.dev/gemini-api/docs/thought-signatures); else rebuilt."""
    stored = own(message.provider_data, "gemini").get("parts")
    if isinstance(stored, list) and _same_calls(stored, message.tool_calls):
        return [dict(part) for part in stored]
    parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    return parts + [_call_part(call) for call in message.tool_calls]


def _same_calls(parts: list[Any], calls: Sequence[NativeToolCall]) -> bool:
    names = [
        p["functionCall"].get("name") for p in parts if isinstance(p, dict) and "functionCall" in p
    ]
    return names == [call.name for call in calls]


def _response_part(message: Message, calls: Mapping[str, NativeToolCall]) -> dict[str, Any]:
    """A functionResponse answering one call: its name, and the id Gemini gave the call."""
    call = calls.get(message.tool_call_id or "")
    name = message.name or (call.name if call else "")
    response: dict[str, Any] = {"name": name, "response": _tool_response(message.content)}
    issued = own(call.provider_data, "gemini").get("id") if call else None
    if issued is not None:
        response["id"] = issued
    return {"functionResponse": response}


def render_gemini_contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """``contents`` for generateContent. Consecutive user-side messages (the tool results of a
    turn, the result of an unreadable call as text) share one user turn, so turns alternate; a
    model turn with nothing to replay is left out (Gemini rejects a content without parts)."""
    messages = readable(messages)
    calls = _calls_by_id(messages)
    contents: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "assistant":
            parts = _model_parts(message)
            if parts:
                contents.append({"role": "model", "parts": parts})
            continue
        if message.role == "tool":
            part = _response_part(message, calls)
        else:
            part = {"text": message.content or ""}
        last = contents[-1] if contents else None
        if last is not None and last["role"] == "user":
            last["parts"].append(part)
        else:
            contents.append({"role": "user", "parts": [part]})
    return contents


def thinking_config(family: Family, choice: ReasoningChoice) -> dict[str, Any] | None:
    """generationConfig.thinkingConfig for the family's control: thinkingLevel (Gemini 3) or
    thinkingBudget (2.5; 0 switches off), never both (a 400)."""
    if choice.mode == "default":
        return None
    if choice.mode == "off":
        return {"thinkingBudget": 0}
    if family.control == "thinking_level":
        return {"thinkingLevel": choice.level, "includeThoughts": True}
    return {"thinkingBudget": choice.budget, "includeThoughts": True}


def generation_config(request: GenerationRequest, model: str) -> tuple[Family, dict[str, Any]]:
    """The model's family and generationConfig. Thinking counts against maxOutputTokens, so a
    thinking budget (or a level's nominal budget) is added to the answer budget. ValueError
    for a setting the family rejects."""
    family = family_for("gemini", None, model)
    choice = choose_reasoning(family, request.reasoning)
    config: dict[str, Any] = {"maxOutputTokens": request.max_tokens + headroom(choice)}
    sent = sampling(family, request.temperature, request.top_p, choice)
    config.update({"temperature" if k == "temperature" else "topP": v for k, v in sent.items()})
    if request.seed is not None:
        config["seed"] = request.seed
    if request.stop:
        config["stopSequences"] = list(request.stop)
    thinking = thinking_config(family, choice)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    return family, config


def build_gemini_body(request: GenerationRequest, model: str) -> dict[str, Any]:
    """The REST body of one generateContent request (the model goes in the URL).

    Tools use ``parametersJsonSchema`` (full JSON Schema) rather than the OpenAPI-subset
    ``parameters`` field.
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
    body["generationConfig"] = generation_config(request, model)[1]
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
            kept = tag(
                "gemini", {"id": call.get("id"), "thoughtSignature": part.get("thoughtSignature")}
            )
            calls.append(
                NativeToolCall(call["name"], dump_args(call.get("args")), call.get("id"), kept)
            )
        elif isinstance(part.get("text"), str):
            (thoughts if part.get("thought") else texts).append(part["text"])
    return "".join(texts), "".join(thoughts), tuple(calls)


def _opaque(parts: list[Any]) -> dict[str, Any]:
    """The parts kept for replay: all of them, when any carries a signature or a thought.
    Each must be a part the API takes back (else the next request of the conversation could
    not even be built): one that is not makes the answer ``invalid_body`` now."""
    signed = any(
        isinstance(p, dict) and ("thoughtSignature" in p or p.get("thought")) for p in parts
    )
    if not signed:
        return {}
    for index, part in enumerate(parts):
        try:
            genai_types.Part.model_validate(_args_aside(part))
        except ValueError as exc:  # pydantic's ValidationError
            problem = str(exc).splitlines()[1:3]
            detail = f"candidates[0].content.parts[{index}]: {' '.join(problem)}"
            raise invalid_body(detail) from None
    return {"gemini": {"parts": parts}}


def _args_aside(part: Any) -> Any:
    """``part`` with a call's arguments set aside: arguments that are no JSON object are the
    model's unreadable call (``history.readable`` sends it back as text), not a broken body."""
    call = part.get("functionCall") if isinstance(part, dict) else None
    if isinstance(call, dict) and not isinstance(call.get("args"), dict | None):
        return {**part, "functionCall": {**call, "args": {}}}
    return part


def _first_candidate(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """candidates[0]; None when the prompt was blocked (``promptFeedback.blockReason``)."""
    candidates = body.get("candidates")
    if candidates is None:
        feedback = body.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
        if reason in stops.GEMINI_PROMPT_BLOCKS:
            return None
        raise ProviderError(ErrorClass.EMPTY_CHOICES, f"no candidates (blockReason={reason})")
    if not isinstance(candidates, list):
        raise invalid_body("'candidates' is not a list")
    if not candidates:
        raise ProviderError(ErrorClass.EMPTY_CHOICES, "the answer has no candidates")
    if not isinstance(candidates[0], dict):
        raise invalid_body("candidates[0] is not an object")
    return candidates[0]


def parse_gemini_body(body: Mapping[str, Any]) -> GenerationResponse:
    """A generateContent answer as a GenerationResponse, or ProviderError when it has none.

    A safety, recitation or blocklist stop, and a blocked prompt, are answers of class
    ``refused``; MALFORMED_FUNCTION_CALL is an answer of class ``malformed_call`` (the model's
    call could not be read); MAX_TOKENS with nothing before it is ``truncated``."""
    candidate = _first_candidate(body)
    usage = parse_gemini_usage(body.get("usageMetadata"))
    if candidate is None:
        reason = body["promptFeedback"]["blockReason"]
        return GenerationResponse(None, usage=usage, finish_reason=reason, stop_class="refused")
    content = candidate.get("content") or {}
    parts = content.get("parts") if isinstance(content, dict) else None
    if parts is not None and not isinstance(parts, list):
        raise invalid_body("candidates[0].content.parts is not a list")
    text, thoughts, calls = _read_parts(parts or [])
    finish = candidate.get("finishReason")
    stop = stop_class(finish, stops.GEMINI)
    if finish == "MISSING_THOUGHT_SIGNATURE":  # our history lost a signature: not the model's
        raise ProviderError(ErrorClass.CLIENT_ERROR, "Gemini: a thought signature is missing")
    if not calls and not text and stop in ("done", "truncated"):
        fields = f"finishReason={finish}, thoughtsTokenCount={usage.reasoning_tokens}"
        raise no_answer(bool(thoughts or usage.reasoning_tokens), stop == "truncated", fields)
    return GenerationResponse(
        text=text or None,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish if isinstance(finish, str) else None,
        reasoning=thoughts or None,
        stop_class=stop,
        provider_data=_opaque(parts or []),
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
        return parse_gemini_body(load_body(self._send(build_gemini_body(request, self.model))))

    def request_settings(self, request: GenerationRequest) -> dict[str, Any]:
        """The generationConfig a request sends (the results' ``request_settings``)."""
        family, config = generation_config(request, self.model)
        return {"family": family.name, **config, **reasoning_note(family, request)}

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
