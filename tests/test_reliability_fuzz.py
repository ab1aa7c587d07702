"""Hostile model and provider output, beyond the parser's own fuzz tests (test_parsing_fuzz.py).

Properties: the scorer never raises and always gives 0/1 metrics; parse + score + journal
record round-trip for any output; the provider body parsers raise nothing but ProviderError
on any JSON; parsing huge outputs stays within a fixed memory bound (only the first
``MAX_TEXT_CHARS`` characters are read). Hypothesis' deadline is the time bound.
"""

from __future__ import annotations

import json
import math
import tracemalloc
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tooleval.fileio import dumps as json_text
from tooleval.parsing import MAX_DEPTH, MAX_TEXT_CHARS, parse_response, parse_text
from tooleval.providers.anthropic import parse_anthropic_body
from tooleval.providers.base import ProviderError
from tooleval.providers.gemini import parse_gemini_body
from tooleval.providers.openai_compat import parse_openai_body
from tooleval.records import GenerationResponse, NativeToolCall, Task, ToolCall
from tooleval.runner.item import record_from_response
from tooleval.runner.records import item_from_json
from tooleval.scoring import score_call, score_parse
from tooleval.suites import load_suite

FUZZ = settings(
    max_examples=300, deadline=timedelta(seconds=2), suppress_health_check=[HealthCheck.too_slow]
)
TASKS = load_suite("infranode").tasks

any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=300)
keys = st.sampled_from(["slug", "cities", "key", "type", "q", "limit"]) | st.text(max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**40), 10**40)
    | st.floats()  # NaN and infinities included: the scorer must not care
    | any_text
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=25,
)
arguments = st.dictionaries(keys, values, max_size=6)
names = st.sampled_from(sorted({t.gold.name for t in TASKS})) | any_text


def nested(depth: int) -> Any:
    value: Any = "bonn"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def check_score(task: Task, call: ToolCall | None) -> None:
    score = score_call(task, call)
    metrics = (score.parsed, score.tool_match, score.args_match, score.call_match)
    assert all(m in (0, 1) for m in metrics)
    assert score.call_match == score.tool_match * score.args_match
    assert score.parsed == (call is not None)


@FUZZ
@given(st.sampled_from(TASKS), names, arguments)
@example(TASKS[0], TASKS[0].gold.name, {"slug": float("nan")})
@example(TASKS[0], TASKS[0].gold.name, {"slug": nested(MAX_DEPTH)})
@example(TASKS[0], "", {"": 1e308, "cities": [True, 1, 1.0, "1", None]})
def test_the_scorer_never_raises_and_stays_binary(
    task: Task, name: str, args: dict[str, Any]
) -> None:
    check_score(task, ToolCall(name, args))
    check_score(task, None)


@FUZZ
@given(st.sampled_from(TASKS), st.randoms(use_true_random=False))
def test_a_gold_call_scores_full_marks_in_any_argument_order(task: Task, rng: Any) -> None:
    items = list(task.gold.arguments.items())
    rng.shuffle(items)
    args = {k: list(reversed(v)) if k == "cities" else v for k, v in items}
    padded = json.dumps({"name": f"  {task.gold.name} ", "arguments": args})
    score = score_parse(task, parse_text(padded))
    assert (score.tool_match, score.args_match, score.call_match) == (1, 1, 1)


@FUZZ
@given(st.sampled_from(TASKS), any_text)
@example(TASKS[0], '{"name": "get_city_overview", "name": "weather", "arguments": {}}')
@example(TASKS[0], '{"name": "a", "arguments": {"slug": "x", "slug": "hannover"}}')
@example(TASKS[0], '{"name": "a", "arguments": {"x": 1e309}}')
@example(TASKS[0], '\ud800{"name": "a\udfff", "arguments": {"s\ud83d": "\udc00"}}')
def test_any_output_becomes_a_record_that_round_trips_through_the_journal(
    task: Task, text: str
) -> None:
    response = GenerationResponse(text, finish_reason="stop")
    record = record_from_response(task, 0, response, 0.5)
    assert record.score is not None or record.error_class is not None
    line = json_text(record.to_json())
    line.encode("utf-8")  # always writable, lone surrogates included
    assert item_from_json(json.loads(line)) == record


@FUZZ
@given(st.sampled_from(TASKS), names, any_text)
def test_native_calls_with_any_arguments_round_trip(task: Task, name: str, raw: str) -> None:
    response = GenerationResponse(None, (NativeToolCall(name, raw, "c1"),), finish_reason="stop")
    record = record_from_response(task, 1, response, 0.1)
    assert record.parsed is not None
    assert item_from_json(json.loads(json_text(record.to_json()))) == record


BODY_KEYS = [
    "choices",
    "message",
    "content",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "candidates",
    "parts",
    "text",
    "functionCall",
    "args",
    "type",
    "input",
    "usage",
    "error",
    "finish_reason",
    "stop_reason",
    "reasoning_content",
    "thinking",
    "usageMetadata",
    "code",
]
json_bodies = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | any_text,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(BODY_KEYS) | st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)
PARSERS: dict[str, Callable[[Mapping[str, Any]], GenerationResponse]] = {
    "openai": parse_openai_body,
    "gemini": parse_gemini_body,
    "anthropic": parse_anthropic_body,
}


@pytest.mark.parametrize("provider", list(PARSERS))
@FUZZ
@given(body=st.dictionaries(st.sampled_from(["choices", "candidates", "content", "error",
                                             "usage", "usageMetadata", "stop_reason"]),
                            json_bodies, max_size=4))  # fmt: skip
def test_provider_bodies_give_an_answer_or_a_provider_error(
    provider: str, body: dict[str, Any]
) -> None:
    try:
        response = PARSERS[provider](body)
    except ProviderError as error:
        assert error.error_class.value
        return
    assert response.text is None or isinstance(response.text, str)
    parse_response(response.text, response.tool_calls)


def peak_bytes(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "text",
    [
        "x" * 20_000_000,
        "{" * 20_000_000,
        '{"name": "a", "arguments": {"s": "' + "y" * 20_000_000 + '"}}',
        "<think>" + "z" * 20_000_000,
        "ü" * 10_000_000,
    ],
    ids=["plain", "braces", "huge-argument", "long-think", "non-ascii"],
)
def test_parsing_a_huge_output_uses_memory_for_the_cap_not_the_output(text: str) -> None:
    task = TASKS[0]
    peak = peak_bytes(lambda: score_parse(task, parse_response(text, ())))
    assert peak < 40 * MAX_TEXT_CHARS  # ~2.6 MB, for outputs of 20 MB


def test_huge_native_arguments_are_refused_without_decoding() -> None:
    raw = '{"slug": "' + "b" * 5_000_000 + '"}'
    call = NativeToolCall("get_city_overview", raw)
    peak = peak_bytes(lambda: parse_response(None, (call,)))
    assert parse_response(None, (call,)).reason == "too_large"
    assert peak < 40 * MAX_TEXT_CHARS


@pytest.mark.parametrize("literal", ["NaN", "-Infinity", "1e309", "-1e999"])
def test_non_finite_numbers_never_reach_the_results(literal: str) -> None:
    text = '{"name": "get_city_overview", "arguments": {"slug": ' + literal + "}}"
    record = record_from_response(TASKS[0], 0, GenerationResponse(text), 0.1)
    assert record.parsed is not None and record.parsed.reason == "invalid_json"
    line = json_text(record.to_json())
    assert "NaN" not in line.replace(text.replace('"', '\\"'), "")
    assert not any(isinstance(v, float) and not math.isfinite(v)
                   for v in json.loads(line)["usage"].values() if v is not None)  # fmt: skip
