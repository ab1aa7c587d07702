"""One taxonomy of how an answer ended, the same for every backend (docs/results-format.md):

- cut off by our token budget before a readable call -> the error ``truncated`` (a setup
  problem: reported, never scored; rerun with a larger budget);
- a refusal or a filtered answer -> scored, as a miss of class ``refused``;
- a call the provider's API could not read -> scored, as a miss of class ``malformed_call``;
  in a conversation it is answered like any unreadable call and the model may repair it.

Each backend's real provider module answers from its loopback server; the fake scripts the
same finish reasons.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake, make_mini_suite
from servers import Reply, ScriptedServer, anthropic_server, gemini_server, openai_server
from tooleval.providers.anthropic import AnthropicProvider
from tooleval.providers.base import Provider
from tooleval.providers.gemini import GeminiProvider
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.runner import run_conversations, run_suite
from tooleval.runner.records import RunConfig
from tooleval.suites import load_suite

ENV = {"TEST_KEY": "sk-SENTINEL-taxonomy"}
CUT = '{"name": "weather", "arguments": {"slug": "ber'
DONE = '{"name": "weather", "arguments": {"slug": "berlin"}}'
PROSE = "Das Wetter in Berlin hängt von vielen Dingen ab, etwa vom Wind und"


@dataclass(frozen=True)
class Backend:
    """A backend and its replies for each way an answer can end (None: it has no such
    answer)."""

    name: str
    serve: Callable[..., ScriptedServer] | None
    make: Callable[[str], Provider] | None
    cut: Reply | dict[str, Any]  # text cut off inside a call
    nothing: Reply | dict[str, Any]  # the budget ran out before any output
    cut_prose: Reply | dict[str, Any]  # prose cut off, no call begun
    complete_then_cut: Reply | dict[str, Any]  # a whole call, then the cut
    refused: Reply | dict[str, Any]
    malformed: Reply | dict[str, Any] | None = None


def keyed(factory: Callable[..., Provider], model: str) -> Callable[[str], Provider]:
    return lambda url: factory(model, base_url=url, api_key_env="TEST_KEY", env=ENV)


def oai(content: str, finish: str) -> Reply:
    return Reply(body=openai_server.completion({"role": "assistant", "content": content}, finish))


def gem(content: str, finish: str) -> Reply:
    return Reply(body=gemini_server.response([{"text": content}], finish))


def ant(content: str, stop: str) -> Reply:
    blocks = [{"type": "text", "text": content}] if content else []
    return Reply(body=anthropic_server.message(blocks, stop))


BACKENDS = (
    Backend(
        "openai",
        openai_server.serve,
        keyed(OpenAICompatProvider, "test-model"),
        oai(CUT, "length"),
        oai("", "length"),
        oai(PROSE, "length"),
        oai(DONE + " Und", "length"),
        openai_server.refusal(),
    ),
    Backend(
        "openai content_filter",
        openai_server.serve,
        keyed(OpenAICompatProvider, "test-model"),
        oai(CUT, "length"),
        oai("", "length"),
        oai(PROSE, "length"),
        oai(DONE + " Und", "length"),
        openai_server.filtered(),
    ),
    Backend(
        "gemini",
        gemini_server.serve,
        keyed(GeminiProvider, "gemini-2.5-flash"),
        gem(CUT, "MAX_TOKENS"),
        Reply(body=gemini_server.response(None, "MAX_TOKENS")),
        gem(PROSE, "MAX_TOKENS"),
        gem(DONE + " Und", "MAX_TOKENS"),
        gemini_server.safety(),
        gemini_server.malformed_call(),
    ),
    Backend(
        "anthropic",
        anthropic_server.serve,
        keyed(AnthropicProvider, "claude-haiku-4-5"),
        ant(CUT, "max_tokens"),
        ant("", "max_tokens"),
        ant(PROSE, "max_tokens"),
        ant(DONE + " Und", "max_tokens"),
        anthropic_server.refusal(),
    ),
    Backend(
        "fake",
        None,
        None,
        {"text": CUT, "finish_reason": "length"},
        {"text": "", "finish_reason": "length"},
        {"text": PROSE, "finish_reason": "MAX_TOKENS"},
        {"text": DONE + " Und", "finish_reason": "max_tokens"},
        {"text": "", "finish_reason": "refusal"},
        {"text": "", "finish_reason": "MALFORMED_FUNCTION_CALL"},
    ),
)
IDS = [b.name for b in BACKENDS]


def single(backend: Backend, reply: Any, tmp_path: Path) -> dict[str, Any]:
    """A one-item prompt-mode run of the mini suite answered by ``reply``; the results."""
    config = RunConfig(
        suite="mini",
        backend=backend.name,
        limit=1,
        concurrency=1,
        max_retries=0,
        output=tmp_path / "r.json",
    )
    suite = make_mini_suite()
    if backend.serve is None or backend.make is None:
        return run_suite(config, make_fake(reply), suite=suite)
    with backend.serve(reply) as server:
        document = run_suite(config, backend.make(server.base_url), suite=suite)
    assert server.rejected == []
    return document


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
@pytest.mark.parametrize("case", ["cut", "nothing"])
def test_an_answer_cut_off_by_our_budget_is_a_setup_error_not_a_score(
    backend: Backend, case: str, tmp_path: Path
) -> None:
    document = single(backend, getattr(backend, case), tmp_path)
    (item,) = document["items"]
    assert (item["error_class"], item["score"]) == ("truncated", None)
    assert document["errors_by_class"] == {"truncated": 1} and document["complete"] is False
    assert "--max-tokens" in item["error_message"]


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_prose_cut_off_before_any_call_is_the_models_answer(
    backend: Backend, tmp_path: Path
) -> None:
    (item,) = single(backend, backend.cut_prose, tmp_path)["items"]
    assert item["error_class"] is None and item["score"]["parsed"] == 0
    assert item["parsed"]["reason"] == "no_json"


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_a_call_complete_before_the_cut_is_scored(backend: Backend, tmp_path: Path) -> None:
    (item,) = single(backend, backend.complete_then_cut, tmp_path)["items"]
    assert item["error_class"] is None and item["score"]["call_match"] == 1


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_a_refusal_is_scored_as_a_refused_miss(backend: Backend, tmp_path: Path) -> None:
    document = single(backend, backend.refused, tmp_path)
    (item,) = document["items"]
    assert item["error_class"] is None and item["score"]["parsed"] == 0
    assert item["parsed"]["reason"] == "refused"
    assert document["errors_by_class"] == {} and document["complete"] is True
    assert document["model_stops"] == {"refused": 1, "malformed_call": 0}


MALFORMED = [b for b in BACKENDS if b.malformed is not None]


@pytest.mark.parametrize("backend", MALFORMED, ids=[b.name for b in MALFORMED])
def test_a_call_the_api_could_not_read_is_a_scored_malformed_call(
    backend: Backend, tmp_path: Path
) -> None:
    document = single(backend, backend.malformed, tmp_path)
    (item,) = document["items"]
    assert item["error_class"] is None and item["parsed"]["reason"] == "malformed_call"
    assert document["model_stops"] == {"refused": 0, "malformed_call": 1}


# --- in a conversation -----------------------------------------------------------------------

INFRANODE = load_suite("infranode")


def converse(backend: Backend, replies: list[Any], tmp_path: Path) -> dict[str, Any]:
    config = RunConfig(
        backend=backend.name,
        mode="native",
        concurrency=1,
        max_retries=0,
        task_ids=("two_step-001",),
        output=tmp_path / "c.json",
    )
    if backend.serve is None or backend.make is None:
        return run_conversations(config, make_fake(*replies), suite=INFRANODE)
    with backend.serve(*replies) as server:
        document = run_conversations(config, backend.make(server.base_url), suite=INFRANODE)
    assert server.rejected == [], [r.body for r in server.rejected]
    return document


def native_call(backend: Backend) -> Any:
    args = {"slug": "duesseldorf"}
    if backend.name == "fake":
        return {"tool_calls": [{"name": "stations", "arguments": args, "id": "c1"}]}
    if backend.name == "gemini":
        return gemini_server.function_calls(("stations", args))
    if backend.name == "anthropic":
        return anthropic_server.tool_use(("stations", args))
    return openai_server.tool_calls(("stations", args))


def final(backend: Backend) -> Any:
    if backend.name == "fake":
        return {"text": "Fertig."}
    module: Any = {"gemini": gemini_server, "anthropic": anthropic_server}.get(
        backend.name, openai_server
    )
    return module.text("Fertig.")


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_a_refusal_ends_a_conversation_as_the_models_answer(
    backend: Backend, tmp_path: Path
) -> None:
    document = converse(backend, [native_call(backend), backend.refused], tmp_path)
    (item,) = document["items"]
    assert (item["ending"], item["stop_class"], item["error_class"]) == (
        "answered",
        "refused",
        None,
    )
    assert item["score"] is not None and document["model_stops"]["refused"] == 1


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_a_cut_off_call_ends_a_conversation_unscored(backend: Backend, tmp_path: Path) -> None:
    document = converse(backend, [native_call(backend), backend.cut], tmp_path)
    (item,) = document["items"]
    assert (item["ending"], item["error_class"], item["score"]) == (
        "provider_error",
        "truncated",
        None,
    )


@pytest.mark.parametrize("backend", MALFORMED, ids=[b.name for b in MALFORMED])
def test_a_malformed_call_is_answered_and_the_model_may_repair_it(
    backend: Backend, tmp_path: Path
) -> None:
    replies = [backend.malformed, native_call(backend), final(backend)]
    document = converse(backend, replies, tmp_path)
    (item,) = document["items"]
    assert item["ending"] == "answered" and item["rounds"] == 3
    assert [(c["valid"], c["error"]) for c in item["calls"]] == [
        (False, "malformed_call"),
        (True, None),
    ]
    turn, feedback = item["transcript"][2:4]  # after the system prompt and the question
    assert turn["role"] == "assistant" and not turn["content"]  # kept; never sent empty
    assert feedback["role"] == "user" and "unreadable_call" in json.dumps(feedback)
    assert document["model_stops"]["malformed_call"] == 1
