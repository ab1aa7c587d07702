"""The contract every remote provider keeps, one parametrised test per clause, run against a
loopback server speaking each provider's wire format through its official SDK:

- one request per ``generate`` (retries live in the runner, never in an SDK);
- a text answer and native tool calls come back as a GenerationResponse (argument text raw);
- the key travels in exactly one header and never appears in an error, a repr or an answer;
- every failure is a ProviderError of the right class (Retry-After kept for rate limits);
- a key is not sent to a host it was not issued for.

Provider-specific request building and parsing stay in ``test_providers_<name>.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from servers import (
    Reply,
    ScriptedServer,
    anthropic_server,
    closed_port,
    gemini_server,
    openai_server,
)
from tooleval.providers.anthropic import AnthropicProvider
from tooleval.providers.base import ErrorClass, Provider, ProviderError
from tooleval.providers.gemini import GeminiProvider
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.records import GenerationRequest, Message, ToolSpec

KEY = "sk-SENTINEL-contract-0123456789"
WEATHER = ToolSpec(
    "get_weather",
    "Wetter für eine Stadt",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PROMPT = GenerationRequest(
    messages=(Message("system", "Antworte knapp."), Message("user", "Wetter in Köln?"))
)
NATIVE = GenerationRequest(messages=PROMPT.messages, tools=(WEATHER,))


@dataclass(frozen=True)
class Backend:
    """How one backend is driven and how its server misbehaves."""

    name: str
    server: ModuleType
    make: Callable[..., Provider]
    key_headers: tuple[tuple[str, ...], ...]  # the accepted ways the key may travel
    tool_reply: Callable[[str, Any], Reply]
    non_object_args: tuple[Reply, str]  # a reply whose arguments are no object, their text
    failures: Mapping[str, tuple[Reply, ErrorClass]]
    url_suffix: str = ""
    hosted: Any = None  # a provider class that always needs a key for its own host

    def provider(self, base_url: str, **kwargs: Any) -> Provider:
        env = {"TEST_CONTRACT_KEY": KEY}
        return self.make("test-model", base_url=base_url, api_key_env="TEST_CONTRACT_KEY",
                         env=env, **kwargs)  # fmt: skip


def _common(module: ModuleType) -> dict[str, tuple[Reply, ErrorClass]]:
    return {
        "rate limited": (module.rate_limited(), ErrorClass.RATE_LIMITED),
        "quota exhausted": (module.quota_exhausted(), ErrorClass.QUOTA_EXHAUSTED),
        "server error 500": (module.server_error(500), ErrorClass.SERVER_ERROR),
        "server error 503": (module.server_error(503), ErrorClass.SERVER_ERROR),
        "body not JSON": (module.malformed(), ErrorClass.INVALID_BODY),
        "body cut off": (module.truncated_body(), ErrorClass.INVALID_BODY),
        "connection dropped": (Reply(disconnect=True), ErrorClass.CONNECTION),
    }


BACKENDS = (
    Backend(
        "openai",
        openai_server,
        OpenAICompatProvider,
        (("authorization",),),
        lambda name, args: openai_server.tool_calls((name, args)),
        (openai_server.tool_calls(("get_weather", '"Berlin"')), '"Berlin"'),
        {
            **_common(openai_server),
            "unauthorised": (
                openai_server.error(401, "Incorrect API key", "invalid_api_key"),
                ErrorClass.CLIENT_ERROR,
            ),
            "wrong shape": (openai_server.wrong_shape(), ErrorClass.INVALID_BODY),
            "no answer": (openai_server.empty_choices(), ErrorClass.EMPTY_CHOICES),
            "budget spent thinking": (
                openai_server.reasoning_only(),
                ErrorClass.REASONING_TRUNCATED,
            ),
        },
    ),
    Backend(
        "anthropic",
        anthropic_server,
        AnthropicProvider,
        (("authorization",), ("x-api-key",)),  # SDK 2.x: bearer; older: x-api-key
        lambda name, args: anthropic_server.tool_use((name, args)),
        (anthropic_server.bad_tool_arguments(), '"Berlin"'),
        {
            **_common(anthropic_server),
            "unauthorised": (
                anthropic_server.error(401, "authentication_error", "invalid x-api-key"),
                ErrorClass.CLIENT_ERROR,
            ),
            "overloaded 529": (anthropic_server.server_error(529), ErrorClass.SERVER_ERROR),
            "no answer": (anthropic_server.empty_content(), ErrorClass.EMPTY_CHOICES),
            "budget spent thinking": (
                anthropic_server.thinking_only(),
                ErrorClass.REASONING_TRUNCATED,
            ),
        },
        hosted=AnthropicProvider,
    ),
    Backend(
        "gemini",
        gemini_server,
        GeminiProvider,
        (("x-goog-api-key",),),
        lambda name, args: gemini_server.function_calls((name, args)),
        (gemini_server.bad_tool_arguments(), '["Berlin"]'),
        {
            **_common(gemini_server),
            "unauthorised": (
                gemini_server.error(400, "INVALID_ARGUMENT", "API key not valid."),
                ErrorClass.CLIENT_ERROR,
            ),
            "no answer": (gemini_server.empty_candidates(), ErrorClass.EMPTY_CHOICES),
            "budget spent thinking": (
                gemini_server.thoughts_only(),
                ErrorClass.REASONING_TRUNCATED,
            ),
        },
        hosted=GeminiProvider,
    ),
)
BY_NAME = {backend.name: backend for backend in BACKENDS}
FAILURES = [(b.name, failure) for b in BACKENDS for failure in b.failures]


def serve(backend: Backend, *replies: Reply) -> ScriptedServer:
    server: ScriptedServer = backend.server.serve(*replies)
    return server


def fail(backend: Backend, reply: Reply, **kwargs: Any) -> ProviderError:
    with serve(backend, reply) as server, pytest.raises(ProviderError) as info:
        backend.provider(server.base_url, **kwargs).generate(PROMPT)
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert len(server.received) == 1  # one request, never an SDK retry
    return info.value


@pytest.fixture(params=[b.name for b in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    return BY_NAME[request.param]


def test_a_text_answer_comes_back_and_the_key_travels_in_one_header(backend: Backend) -> None:
    with serve(backend, backend.server.text("get_weather(city=koeln)")) as server:
        response = backend.provider(server.base_url).generate(PROMPT)
    assert response.text == "get_weather(city=koeln)" and response.tool_calls == ()
    (received,) = server.received
    carrying = tuple(name for name, value in received.headers.items() if KEY in value)
    assert carrying in backend.key_headers
    assert KEY not in repr(response)


def test_native_calls_come_back_with_their_raw_argument_text(backend: Backend) -> None:
    with serve(backend, backend.tool_reply("get_weather", {"city": "Köln"})) as server:
        response = backend.provider(server.base_url).generate(NATIVE)
    (call,) = response.tool_calls
    assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Köln"}
    assert len(server.received) == 1


def test_arguments_that_are_no_object_are_passed_on_as_json_text(backend: Backend) -> None:
    reply, text = backend.non_object_args
    with serve(backend, reply) as server:
        response = backend.provider(server.base_url).generate(NATIVE)
    assert response.tool_calls[0].arguments == text


def test_a_rate_limit_keeps_the_retry_after_header(backend: Backend) -> None:
    error = fail(backend, backend.server.rate_limited(retry_after="7"))
    assert (error.error_class, error.retry_after, error.retryable) == (
        ErrorClass.RATE_LIMITED,
        7.0,
        True,
    )


@pytest.mark.parametrize(("name", "failure"), FAILURES, ids=[f"{n}: {f}" for n, f in FAILURES])
def test_every_failure_is_a_classified_provider_error(name: str, failure: str) -> None:
    backend = BY_NAME[name]
    reply, error_class = backend.failures[failure]
    assert fail(backend, reply).error_class is error_class


def test_a_slow_server_times_out(backend: Backend) -> None:
    assert fail(backend, backend.server.slow(10.0), timeout_s=0.3).error_class is ErrorClass.TIMEOUT


def test_a_refused_connection_is_a_connection_error(backend: Backend) -> None:
    url = f"http://127.0.0.1:{closed_port()}{backend.url_suffix}"
    with pytest.raises(ProviderError) as info:
        backend.provider(url).generate(PROMPT)
    assert info.value.error_class is ErrorClass.CONNECTION and KEY not in str(info.value)


def test_the_key_never_appears_in_the_provider_itself(backend: Backend) -> None:
    client = backend.provider("http://127.0.0.1:9")
    assert KEY not in repr(client) and KEY not in str(client)


@pytest.mark.parametrize("name", [b.name for b in BACKENDS if b.hosted is not None])
def test_a_hosted_backends_own_key_is_not_sent_to_another_host(name: str) -> None:
    backend = BY_NAME[name]
    env = {variable: KEY for variable in ("GEMINI_API_KEY", "ANTHROPIC_API_KEY")}
    with pytest.raises(ValueError, match="--api-key-env"):
        backend.hosted("m", base_url="http://127.0.0.1:9", env=env)


def test_an_openai_compatible_presets_key_is_not_sent_to_another_host() -> None:
    backend = BY_NAME["openai"]
    with serve(backend, openai_server.text("ok")) as server:
        client = OpenAICompatProvider(
            "m", base_url=server.base_url, preset="hf", env={"HF_TOKEN": KEY}
        )
        client.generate(PROMPT)
    assert all(KEY not in value for value in server.received[0].headers.values())
