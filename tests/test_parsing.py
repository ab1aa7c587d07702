"""Fixture-driven tests of tooleval.parsing: real-looking model outputs, one file per format."""

from __future__ import annotations

import json

import pytest

from tooleval.parsing import (
    EXTRACTOR_NAMES,
    MAX_CANDIDATES,
    MAX_DEPTH,
    MAX_TEXT_CHARS,
    REASONS,
    parse_native,
    parse_response,
    parse_text,
    strip_reasoning,
)
from tooleval.parsing.cases import (
    ParseCase,
    case_from_json,
    case_mismatch,
    fixture_families,
    load_cases,
    parse_case,
)
from tooleval.records import NativeToolCall, ToolCall
from tooleval.suites.infranode import load_tools

TOOLS = load_tools()
CASES = load_cases()
DIALECT_FILES = (
    "near_json",
    "pythonic",
    "xml_function",
    "xml_invoke",
    "glm",
    "kimi",
    "function_gemma",
    "namespaced",
    "langchain",
    "react",
    "functionary",
    "step3",
    "olmo",
    "anthropic_legacy",
    "xml_tags",
)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}:{c.id}" for c in CASES])
def test_fixture(case: ParseCase) -> None:
    assert case_mismatch(case, parse_case(case, TOOLS)) is None


def test_fixture_set_is_large_unique_and_well_formed() -> None:
    ids = [f"{c.family}:{c.id}" for c in CASES]
    assert len(ids) >= 180
    assert len(set(ids)) == len(ids)
    for case in CASES:
        assert (case.expect is None) == (case.reason is not None)
        assert case.reason is None or case.reason in REASONS
        assert case.extractor is None or case.extractor in EXTRACTOR_NAMES
        assert not case.exact or case.extractor in {"json_object", "json_fence", "native"}


def test_every_extractor_is_exercised_by_a_fixture() -> None:
    used = {case.extractor for case in CASES}
    assert set(EXTRACTOR_NAMES) <= used


@pytest.mark.parametrize("family", DIALECT_FILES)
def test_every_dialect_has_positive_and_negative_fixtures(family: str) -> None:
    cases = [c for c in CASES if c.family == family]
    assert sum(c.expect is not None for c in cases) >= 4
    assert any(c.expect is None for c in cases) or family == "namespaced"


def test_fixture_files_ship_with_the_package() -> None:
    assert set(DIALECT_FILES) <= set(fixture_families())
    assert {"bare_json", "failures", "tags", "openai_native"} <= set(fixture_families())


def test_reason_vocabulary_is_small_and_fixed() -> None:
    assert set(REASONS) == {
        "empty",
        "no_json",
        "invalid_json",
        "too_deep",
        "no_tool_name",
        "arguments_not_object",
        "invalid_arguments_json",
        "reasoning_unterminated",
        "too_large",
        "internal_error",
    }


def test_success_has_no_reason_and_failure_has_no_calls() -> None:
    ok = parse_text('{"name": "weather", "arguments": {"slug": "bonn"}}')
    bad = parse_text("kein JSON hier")
    assert ok.ok and ok.reason is None and ok.extractor == "json_object"
    assert not bad.ok and bad.calls == () and bad.reason == "no_json" and bad.extractor is None


def test_text_beyond_the_cap_is_not_read() -> None:
    call = '{"name": "weather", "arguments": {"slug": "bonn"}}'
    assert parse_text("x" * (MAX_TEXT_CHARS - len(call)) + call).ok
    late = parse_text("x" * MAX_TEXT_CHARS + call)
    assert late.reason == "too_large"


def test_call_inside_the_cap_survives_a_long_tail() -> None:
    call = '{"name": "weather", "arguments": {"slug": "bonn"}}'
    result = parse_text(call + " bla" * MAX_TEXT_CHARS)
    assert result.first == ToolCall("weather", {"slug": "bonn"})


def test_nesting_limit_is_exact() -> None:
    def nested(depth: int) -> str:
        inner = "[" * (depth - 2) + "]" * (depth - 2)
        return '{"name": "a", "arguments": {"x": ' + inner + "}}"

    assert parse_text(nested(MAX_DEPTH)).ok
    assert parse_text(nested(MAX_DEPTH + 1)).reason == "too_deep"


def test_deep_nesting_in_prose_and_in_argument_strings() -> None:
    deep = "{" * 100_000
    assert parse_text("Hier: " + deep).reason in {"too_deep", "too_large"}
    args = json.dumps('{"x": ' + "[" * 200 + "]" * 200 + "}")
    result = parse_text('{"name": "a", "arguments": ' + args + "}")
    assert result.reason == "too_deep"


def test_huge_integer_is_invalid_not_an_exception() -> None:
    text = '{"name": "a", "arguments": {"n": ' + "9" * 5000 + "}}"
    assert parse_text(text).reason == "invalid_json"


def test_negative_infinity_is_refused() -> None:
    assert parse_text('{"name": "a", "arguments": {"x": -Infinity}}').reason == "invalid_json"


def test_reading_stops_at_first_broken_call_after_a_good_one() -> None:
    text = (
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "b", "arguments": "nope"}</tool_call>'
        '<tool_call>{"name": "c", "arguments": {}}</tool_call>'
    )
    assert [c.name for c in parse_text(text).calls] == ["a"]


def test_broken_list_is_not_mined_for_objects() -> None:
    text = '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {]'
    assert parse_text(text).reason == "invalid_json"


def test_list_with_trailing_comma_is_near_json() -> None:
    text = '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}},]'
    result = parse_text(text)
    assert [c.name for c in result.calls] == ["a", "b"]
    assert result.extractor == "near_json" and not result.exact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>a</think>rest", "rest"),
        ("<seed:think>a</seed:think>rest", "rest"),
        ("  <thinking>a</thinking>rest", "rest"),
        ("reasoning</think>rest", "rest"),
        ("<think>never closed", None),
        ("no reasoning at all", "no reasoning at all"),
        ("Prosa <think>x</think> mehr", "Prosa <think>x</think> mehr"),
        ('Aufruf: {"q": "</think>"}', 'Aufruf: {"q": "</think>"}'),
    ],
)
def test_strip_reasoning(text: str, expected: str | None) -> None:
    assert strip_reasoning(text) == expected


def test_parse_native_empty_and_oversized() -> None:
    assert parse_native(()).reason == "empty"
    huge = NativeToolCall("a", '{"x": "' + "y" * MAX_TEXT_CHARS + '"}')
    assert parse_native((huge,)).reason == "too_large"


def test_parse_native_keeps_call_ids_out_and_names_as_given() -> None:
    result = parse_native((NativeToolCall("weather", '{"slug": "bonn"}', call_id="call_9"),))
    assert result.calls == (ToolCall("weather", {"slug": "bonn"}),)
    assert result.extractor == "native"


def test_parse_response_native_failure_does_not_fall_back_to_text() -> None:
    broken = (NativeToolCall("weather", "{"),)
    result = parse_response('{"name": "weather", "arguments": {}}', broken)
    assert result.reason == "invalid_arguments_json"


def test_non_string_input_becomes_data_not_an_exception() -> None:
    result = parse_text(b"{}")  # type: ignore[arg-type]
    assert result.reason == "internal_error"
    assert parse_native([None]).reason == "internal_error"  # type: ignore[list-item]


def test_prose_scan_reads_at_most_max_candidates() -> None:
    text = " und ".join('{"name": "a", "arguments": {}}' for _ in range(MAX_CANDIDATES + 10))
    assert len(parse_text(text).calls) == MAX_CANDIDATES


def test_truncated_json_in_a_tag_does_not_hide_the_next_tag() -> None:
    text = (
        '<tool_call>{"name": "a", "arguments": {"x": 1}</tool_call>'
        '<tool_call>{"name": "b", "arguments": {}}</tool_call>'
    )
    assert [c.name for c in parse_text(text).calls] == ["b"]


def test_truncated_json_in_a_fence_does_not_hide_the_next_fence() -> None:
    text = 'Erst:\n```python\nd = {\n```\nDann:\n```json\n{"name": "b"}\n```'
    result = parse_text(text)
    assert result.first == ToolCall("b", {})
    assert result.extractor == "code_fence"


def test_every_extractor_is_named_in_the_documented_order() -> None:
    assert EXTRACTOR_NAMES == (
        "json_object",
        "json_fence",
        "near_json",
        "xml_function",
        "xml_invoke",
        "glm",
        "xml_tags",
        "kimi",
        "function_gemma",
        "tag",
        "deepseek",
        "harmony",
        "pythonic",
        "react",
        "functionary",
        "code_fence",
        "prose",
        "native",
    )


def test_a_malformed_fixture_line_names_its_place() -> None:
    with pytest.raises(ValueError, match=r"fixtures/x\.jsonl:3: bad fixture .*'extractor'"):
        case_from_json(
            {"id": "a", "text": "x", "expect": None, "reason": "no_json", "exact": False},
            "x",
            "fixtures/x.jsonl:3",
        )
