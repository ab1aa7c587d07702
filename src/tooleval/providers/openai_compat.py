"""The OpenAI-compatible backend: any server speaking ``POST /v1/chat/completions``.

Request building and response parsing are pure functions over plain dicts; the provider class
only sends one request (``httpx``, one pooled client, no retries) and maps failures to
ProviderError. The wire format is the whole contract with these servers, so no SDK sits in
between: importing and driving the ``openai`` SDK cost 0.85 s of start-up and a third of the
per-request CPU (bench:runner in docs/performance.md).
"""

from __future__ import annotations

import copy
import os
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from tooleval.providers import stops
from tooleval.providers._shared import (
    dump_args,
    error_for_status,
    int_or_none,
    invalid_body,
    load_body,
    no_answer,
    response_text,
    transport_failure,
)
from tooleval.providers._transport import guarded_client
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.capabilities import (
    Family,
    ReasoningChoice,
    choose_reasoning,
    family_for,
    reasoning_note,
    sampling,
)
from tooleval.providers.history import own, readable, tag
from tooleval.providers.presets import (
    Preset,
    chat_url,
    get_preset,
    join_path,
    key_for,
    preset_for_host,
    preset_url,
    require_key,
)
from tooleval.providers.stops import stop_class
from tooleval.records import (
    GenerationRequest,
    GenerationResponse,
    Message,
    NativeToolCall,
    Usage,
)
from tooleval.redaction import remember_url

REPLAYED_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
"""Assistant-message fields kept and sent back on tool-call turns: DeepSeek's
``reasoning_content`` ("must be passed back to the API" on tool-call turns in thinking mode,
api-docs.deepseek.com/guides/thinking_mode), OpenRouter's ``reasoning_details`` ("preserve
reasoning blocks": pass them back unmodified, openrouter.ai/docs/use-cases/reasoning-tokens)
and the ``reasoning`` text beside them."""


def render_openai_messages(
    messages: Sequence[Message], tool_turn_content: str | None = None
) -> list[dict[str, Any]]:
    """Chat messages in the OpenAI format, including assistant tool calls and tool results.
    Unreadable calls go back as text (``history.readable``); a tool-call turn carries back the
    reasoning fields its answer had, and ``tool_turn_content`` as its content when it had no
    text (None: ``null``, as the OpenAI API documents it; ``Preset.tool_turn_content``)."""
    rendered: list[dict[str, Any]] = []
    for index, message in enumerate(readable(messages)):
        if message.role == "tool":
            rendered.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id or "",
                    "content": message.content or "",
                }
            )
            continue
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.role == "assistant" and message.tool_calls:
            if item["content"] is None:
                item["content"] = tool_turn_content
            item.update(own(message.provider_data, "openai"))
            item["tool_calls"] = [
                {
                    "id": call.call_id or f"call_{index}_{position}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for position, call in enumerate(message.tool_calls)
            ]
        elif item["content"] is None:
            item["content"] = ""
        rendered.append(item)
    return rendered


def _merge(body: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Deep-merge ``extra`` into ``body`` (nested dicts merge, other values replace)."""
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(body.get(key), dict):
            _merge(body[key], value)
        else:
            body[key] = copy.deepcopy(dict(value) if isinstance(value, Mapping) else value)


def reasoning_fields(family: Family, choice: ReasoningChoice) -> dict[str, Any]:
    """The body fields that carry ``choice`` for the family's control."""
    if choice.mode == "default":
        return {}
    off = choice.mode == "off"
    if family.control == "deepseek":
        if off:
            return {"thinking": {"type": "disabled"}}
        return {"thinking": {"type": "enabled"}, "reasoning_effort": choice.level}
    if family.control == "openrouter":
        if off:
            return {"reasoning": {"enabled": False}}
        if choice.mode == "budget":
            return {"reasoning": {"max_tokens": choice.budget}}
        return {"reasoning": {"effort": choice.level}}
    if family.control == "chat_template" and off:
        return {"chat_template_kwargs": {"enable_thinking": False}}
    return {"reasoning_effort": choice.level}


def settings_for(
    request: GenerationRequest, model: str, preset: Preset | None
) -> tuple[Family, dict[str, Any]]:
    """The model's family and the body fields that are neither messages nor tools: the token
    limit under the family's field, sampling, seed, stop and reasoning. ValueError for a
    setting the family's API rejects."""
    family = family_for("openai", preset.name if preset else None, model)
    choice = choose_reasoning(family, request.reasoning)
    fields: dict[str, Any] = {family.token_field: request.max_tokens}
    fields.update(sampling(family, request.temperature, request.top_p, choice))
    if request.seed is not None and (preset is None or preset.supports_seed):
        fields["seed"] = request.seed
    if request.stop:
        fields["stop"] = list(request.stop)
    if preset is not None:
        _merge(fields, preset.extra_body)
    _merge(fields, reasoning_fields(family, choice))
    return family, fields


def build_openai_body(
    request: GenerationRequest, model: str, preset: Preset | None = None
) -> dict[str, Any]:
    """The JSON body of one chat-completions request (tools only in native mode).

    Tools always go with an explicit ``tool_choice`` (``"auto"``, the OpenAI default, unless
    the preset says otherwise): llama-cpp-python's ``chatml-function-calling`` leaves the tools
    out of the prompt when a request has none (docs/backends/llama-cpp.md)."""
    _, fields = settings_for(request, model, preset)
    empty = preset.tool_turn_content if preset else None
    messages = render_openai_messages(request.messages, empty)
    body: dict[str, Any] = {"model": model, "messages": messages}
    if request.tools:
        body["tools"] = [tool.to_openai() for tool in request.tools]
        choice = preset.tool_choice if preset else "auto"
        if choice is not None:
            body["tool_choice"] = choice
    body.update(fields)
    if preset is not None and preset.body_fields is not None:
        body = {key: value for key, value in body.items() if key in preset.body_fields}
    return body


def parse_openai_usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    cached = int_or_none(prompt_details.get("cached_tokens") if prompt_details else None)
    if cached is None:  # DeepSeek reports its context cache this way
        cached = int_or_none(usage.get("prompt_cache_hit_tokens"))
    return Usage(
        input_tokens=int_or_none(usage.get("prompt_tokens")),
        output_tokens=int_or_none(usage.get("completion_tokens")),
        cached_input_tokens=cached,
        reasoning_tokens=int_or_none(
            completion_details.get("reasoning_tokens") if completion_details else None
        ),
    )


def _text_content(content: Any) -> str | None:
    """Message content as text; some servers send a list of text parts."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "".join(part for part in parts if isinstance(part, str))
    raise invalid_body(f"choices[0].message.content is a {type(content).__name__}")


def _parse_tool_calls(raw: Any) -> tuple[NativeToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise invalid_body("choices[0].message.tool_calls is not a list")
    calls = []
    for index, item in enumerate(raw):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise invalid_body(f"choices[0].message.tool_calls[{index}] has no function name")
        arguments = function.get("arguments")
        text = arguments if isinstance(arguments, str) else dump_args(arguments)
        call_id = item.get("id")
        calls.append(NativeToolCall(function["name"], text, call_id if call_id else None))
    return tuple(calls)


def _error_in_body(body: Mapping[str, Any]) -> ProviderError:
    """A 200 answer carrying an error object instead of choices (some routers do this)."""
    error = body["error"]
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and 400 <= code <= 599 else 502
    return error_for_status(status, str(error), None, ())


def _message_of(body: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
    """(choices[0].message, choices[0].finish_reason), or the error the body stands for."""
    choices = body.get("choices")
    if choices is None and body.get("error"):
        raise _error_in_body(body)
    if not isinstance(choices, list):
        raise invalid_body("'choices' is missing or not a list")
    if not choices:
        raise ProviderError(ErrorClass.EMPTY_CHOICES, "the answer has no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise invalid_body("choices[0].message is missing or not an object")
    return message, choice.get("finish_reason")


def parse_openai_body(body: Mapping[str, Any]) -> GenerationResponse:
    """A chat-completions answer as a GenerationResponse, or ProviderError when it has none.

    A refusal (``message.refusal``, or ``finish_reason: content_filter``) is an answer of class
    ``refused`` whose text is the refusal; an answer cut off by the token budget is of class
    ``truncated`` (an error when nothing came before the cut)."""
    message, finish = _message_of(body)
    content = _text_content(message.get("content"))
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    reasoning = reasoning if isinstance(reasoning, str) and reasoning else None
    calls = _parse_tool_calls(message.get("tool_calls"))
    usage = parse_openai_usage(body.get("usage"))
    stop = stop_class(finish, stops.OPENAI)
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        stop, content = "refused", content or refusal
    if not calls and not content and stop != "refused":
        fields = f"finish_reason={finish}, output_tokens={usage.output_tokens}"
        reasoned = reasoning is not None or bool(usage.reasoning_tokens)
        raise no_answer(reasoned, stop == "truncated", fields)
    kept = {name: message.get(name) for name in REPLAYED_FIELDS if name in message}
    return GenerationResponse(
        text=content if content else None,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish if isinstance(finish, str) else None,
        reasoning=reasoning,
        stop_class=stop,
        provider_data=tag("openai", kept),
    )


class OpenAICompatProvider:
    """One chat-completions request per ``generate``, no retries.

    ``preset`` names an entry of PRESETS. Without one, a ``base_url`` (or ``endpoint``) on a
    known provider's host picks that provider's preset (its key variable and quirks); without
    any URL the OpenAI API is used. ``endpoint`` is a full chat URL for servers whose path is
    not ``<base>/chat/completions``. ``api_key_env`` names the key variable explicitly; that
    key is sent to whatever host the run talks to.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        preset: str | None = None,
        endpoint: str | None = None,
        timeout_s: float = 60.0,
        api_key_env: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if env is None else env
        self.model = model
        self.preset = resolve_preset(preset, base_url or endpoint)
        if not base_url:
            base_url = endpoint or (preset_url(self.preset, env) if self.preset else None)
        if not base_url:
            raise ValueError("the openai backend needs --base-url, --endpoint or --preset")
        self.base_url = base_url
        self.chat_url = endpoint or (chat_url(self.preset, base_url) if self.preset else None)
        self.url = self.chat_url or join_path(base_url, "/chat/completions")
        key = key_for(self.preset, self.url, env, explicit_env=api_key_env)
        if key is None and self.preset is not None:
            require_key(self.preset, self.url)
        remember_url(self.url)
        self._secrets = (key,)
        self._client = guarded_client(self.url, timeout_s, request_headers(key))
        self.close = weakref.finalize(self, self._client.close)  # pooled connections closed

    def __repr__(self) -> str:
        preset = self.preset.name if self.preset else None
        return f"OpenAICompatProvider(model={self.model!r}, url={self.url!r}, {preset=})"

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        body = build_openai_body(request, self.model, self.preset)
        return parse_openai_body(load_body(self._send(body)))

    def request_settings(self, request: GenerationRequest) -> dict[str, Any]:
        """What a request sends besides messages and tools (the results' ``request_settings``);
        ValueError for a setting this model's API rejects."""
        family, fields = settings_for(request, self.model, self.preset)
        allowed = self.preset.body_fields if self.preset else None
        sent = {k: v for k, v in fields.items() if allowed is None or k in allowed}
        return {"family": family.name, **sent, **reasoning_note(family, request)}

    def _send(self, body: Mapping[str, Any]) -> str:
        try:
            response = self._client.post(self.url, json=body)
        except httpx.HTTPError as exc:
            failure = transport_failure(exc, self.url, self._secrets)
        else:
            try:
                return response_text(response.status_code, response.content, response.headers,
                                     self._secrets)  # fmt: skip
            except ProviderError as error:
                failure = setup_error(error)
        raise failure  # outside the except block: no httpx exception chained to it


def setup_error(error: ProviderError) -> ProviderError:
    """A server error that is a setup problem, not a passing fault: llama.cpp's server answers
    tools with HTTP 500 "tools param requires --jinja flag" when started without --jinja
    (tools/server/utils.hpp, oaicompat_chat_params_parse). Retrying cannot help."""
    if error.error_class is ErrorClass.SERVER_ERROR and "--jinja" in str(error):
        return ProviderError(
            ErrorClass.CLIENT_ERROR,
            f"{error} (start llama-server with --jinja to use tools)",
            status=error.status,
        )
    return error


def request_headers(key: str | None) -> dict[str, str]:
    """The headers of every request; the key, when there is one, as a bearer token only."""
    headers = {"Accept": "application/json", "User-Agent": "tooleval"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def resolve_preset(name: str | None, url: str | None) -> Preset | None:
    """The named preset; else the preset of a known host ``url`` points at; else, without any
    URL, the OpenAI API's preset."""
    if name:
        return get_preset(name)
    if url:
        return preset_for_host(url)
    return get_preset("openai")
