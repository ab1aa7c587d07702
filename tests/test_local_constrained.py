"""Schema-constrained decoding: every answer is a valid call; batched equals naive."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tooleval.local.constrain import (
    MAX_STRING,
    GrammarError,
    ToolGrammar,
    bound_strings,
    call_schema,
    compile_tools,
)
from tooleval.local.engine import Engine, shared_engine
from tooleval.local.tokenizer import ChatTokenizer
from tooleval.parsing import parse_response
from tooleval.providers.base import ProviderError
from tooleval.providers.local import LocalProvider
from tooleval.records import GenerationRequest, Message, ToolSpec
from tooleval.suites.infranode.prompting import system_prompt

TOOLS = (
    ToolSpec(
        "weather",
        "Aktuelles Wetter einer Stadt.",
        {
            "type": "object",
            "properties": {"slug": {"type": "string"}},
            "required": ["slug"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "pois",
        "Orte eines Typs in einer Stadt.",
        {
            "type": "object",
            "properties": {
                "slug": {"type": "string"},
                "type": {"type": "string", "enum": ["hospital", "school", "pharmacy"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["slug", "type"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "compare",
        "Vergleicht Städte.",
        {
            "type": "object",
            "properties": {
                "cities": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 2,
                    "maxItems": 4,
                    "uniqueItems": True,
                },
                "resource": {"type": "string", "enum": ["weather", "air"]},
            },
            "required": ["cities", "resource"],
            "additionalProperties": False,
        },
    ),
)
QUESTIONS = (
    "Wie ist das Wetter in Köln?",
    "Welche Apotheken gibt es in Bonn?",
    "Vergleiche die Luftqualität von Berlin und Hamburg.",
    "Schulen in Leipzig, höchstens fünf.",
)
STOPS = {2}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return shared_engine(None)


@pytest.fixture(scope="module")
def tok(engine: Engine) -> ChatTokenizer:
    return ChatTokenizer(engine.model.tokenizer)


@pytest.fixture(scope="module")
def grammar(tok: ChatTokenizer) -> ToolGrammar:
    return compile_tools(tok.to_json(), {tok.im_end_id, tok.eos_id}, TOOLS)


def _prompts(engine: Engine, tok: ChatTokenizer) -> list[list[int]]:
    system = system_prompt(TOOLS)
    return [
        tok.encode(engine.model.chat_template.render([("system", system), ("user", q)]))
        for q in QUESTIONS
    ]


def _without_unique(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_unique(v) for k, v in schema.items() if k != "uniqueItems"}
    if isinstance(schema, list):
        return [_without_unique(v) for v in schema]
    return schema


def _assert_valid_call(text: str) -> dict[str, Any]:
    call = json.loads(text)
    assert set(call) == {"name", "arguments"}
    tool = next(t for t in TOOLS if t.name == call["name"])
    # uniqueItems is the one keyword llguidance cannot enforce (reported as a grammar warning)
    jsonschema.validate(
        call["arguments"], _without_unique(bound_strings(tool.parameters, MAX_STRING))
    )
    parsed = parse_response(text, ())
    assert parsed.first is not None and parsed.first.name == call["name"]
    assert parsed.first.arguments == call["arguments"]
    return call


def test_call_schema_offers_each_tool_with_its_arguments() -> None:
    schema = call_schema(TOOLS)
    options = schema["anyOf"]
    assert [o["properties"]["name"] for o in options] == [{"const": t.name} for t in TOOLS]
    pois = options[1]["properties"]["arguments"]
    assert pois["properties"]["type"]["enum"] == ["hospital", "school", "pharmacy"]
    assert pois["required"] == ["slug", "type"]
    assert all(o["required"] == ["name", "arguments"] for o in options)
    assert schema["x-guidance"]["whitespace_flexible"] is False


def test_bound_strings_only_bounds_free_strings() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "enum": ["x"]},
            "c": {"type": "string", "maxLength": 5},
            "d": {"type": "array", "items": {"type": ["string", "null"]}},
            "e": {"type": "integer"},
        },
    }
    out = bound_strings(schema, 9)
    props = out["properties"]
    assert props["a"]["maxLength"] == 9 and props["d"]["items"]["maxLength"] == 9
    assert "maxLength" not in props["b"] and props["c"]["maxLength"] == 5
    assert "maxLength" not in props["e"]
    assert "maxLength" not in schema["properties"]["a"]  # the input is not changed
    assert call_schema(TOOLS, max_string=None)["anyOf"][0]["properties"]["arguments"] == dict(
        TOOLS[0].parameters
    )


def test_call_schema_refuses_no_tools_and_duplicate_names() -> None:
    with pytest.raises(GrammarError, match="at least one tool"):
        call_schema(())
    with pytest.raises(GrammarError, match="not unique"):
        call_schema((TOOLS[0], TOOLS[0]))


def test_unenforceable_schema_is_refused_with_the_reason(tok: ChatTokenizer) -> None:
    broken = ToolSpec("x", "", {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}})
    with pytest.raises(GrammarError, match="cannot be enforced"):
        compile_tools(tok.to_json(), STOPS, (broken,))


def test_grammar_reports_ignored_keywords(grammar: ToolGrammar) -> None:
    assert any("uniqueItems" in w for w in grammar.warnings)


def test_guide_accepts_a_valid_call_and_masks_everything_else(
    grammar: ToolGrammar, tok: ChatTokenizer
) -> None:
    import numpy as np

    guide = grammar.guide(1)
    logits = np.zeros((1, grammar.tokenizer.vocab_size), dtype=np.float32)
    guide.restrict(logits, [0])
    allowed = np.flatnonzero(np.isfinite(logits[0]))
    assert allowed.size and all(tok.decode([int(i)]).startswith("{") for i in allowed)
    for token in tok.encode('{"name":"pois","arguments":{"slug":"bonn","type":"pharmacy"}}'):
        assert not guide.complete(0)
        guide.advance(0, token)
    assert guide.complete(0)
    logits[:] = 0
    guide.restrict(logits, [0])
    assert list(np.flatnonzero(np.isfinite(logits[0]))) == [2]  # only the stop token now
    rejected = grammar.guide(1)
    logits[:] = 0
    rejected.restrict(logits, [-1])  # a finished row is left alone
    assert np.isfinite(logits).all()


def test_batched_constrained_equals_naive_constrained(
    engine: Engine, tok: ChatTokenizer, grammar: ToolGrammar
) -> None:
    prompts = _prompts(engine, tok)
    stops = {tok.im_end_id, tok.eos_id}
    batch = engine.generate(prompts, 100, stops, guides=grammar.guide)
    naive = [engine.generate_naive(p, 100, stops, guides=grammar.guide) for p in prompts]
    assert batch.tokens == naive
    assert batch.finish_reasons == ["stop"] * len(prompts)
    for ids in batch.tokens:
        _assert_valid_call(tok.decode(ids))
    grouped = engine.generate(prompts, 100, stops, max_batch=3, guides=grammar.guide)
    assert grouped.tokens == batch.tokens


def test_constrained_output_differs_from_free_output(
    engine: Engine, tok: ChatTokenizer, grammar: ToolGrammar
) -> None:
    prompts = _prompts(engine, tok)[:2]
    stops = {tok.im_end_id, tok.eos_id}
    free = engine.generate(prompts, 12, stops).tokens
    constrained = engine.generate(prompts, 12, stops, guides=grammar.guide).tokens
    assert free != constrained
    assert all(tok.decode(ids).startswith('{"name":"') for ids in constrained)


def test_provider_constrained_answers_are_valid_calls() -> None:
    provider = LocalProvider(decoding="constrained", tools=TOOLS)
    system = Message("system", system_prompt(TOOLS))
    requests = [
        GenerationRequest(messages=(system, Message("user", q)), max_tokens=100) for q in QUESTIONS
    ]
    results = provider.generate_batch(requests)
    for result in results:
        assert not isinstance(result, ProviderError)
        assert result.finish_reason == "stop"
        _assert_valid_call(result.text)


def test_provider_decoding_options_are_checked() -> None:
    with pytest.raises(ValueError, match="needs the tools"):
        LocalProvider(decoding="constrained")
    with pytest.raises(ValueError, match="decoding must be one of"):
        LocalProvider(decoding="beam")
