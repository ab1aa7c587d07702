"""Property tests: the parser never raises, always returns a well-formed result, and reads
back any call it is given in a supported shape. Adversarial inputs are capped and linear, so
hypothesis' own deadline is the only time bound checked."""

from __future__ import annotations

import json
import math
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tooleval.parsing import (
    EXTRACTOR_NAMES,
    MAX_TEXT_CHARS,
    REASONS,
    parse_native,
    parse_text,
)
from tooleval.records import NativeToolCall, ParseResult, ToolCall, ToolSpec
from tooleval.suites.infranode import load_tools

TOOLS = load_tools()
FUZZ = settings(max_examples=150, deadline=timedelta(seconds=2))
BIG = settings(
    max_examples=25,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Any code point, lone surrogates included.
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=400)

TOKENS = (
    "{", "}", "[", "]", '"', "\\", ":", ",", " ", "\n", "x", "1", "-", "e309", "NaN",
    "Infinity", "null", "true", '"name"', '"arguments"', '"parameters"', '"weather"',
    '"tool_calls"', '"function"', '"\\ud800"', "<tool_call>", "</tool_call>", "```",
    "```json\n", "<think>", "</think>", "[TOOL_CALLS]", "[ARGS]", "<|python_tag|>", "München",
    "to=functions.a", "<|message|>", "<|constrain|>", "function",
    "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>",
    "'", "(", ")", "=", "True", "None", "a(", "[a(", "```tool_code\n", "<|python_start|>",
    "<function=a>", "</function>", "<parameter=x>", "</parameter>", "<seed:tool_call>",
    '<invoke name="a">', "</invoke>", '<parameter name="x">', "<minimax:tool_call>",
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|tool_call_begin|>",
    "functions.a:0", "<|tool_call_argument_begin|>", "<|tool_call_end|>",
    "<start_function_call>", "call:a{", "<escape>", "<end_function_call>", "<seed:think>",
    "Action: weather\n", "Action Input:", ">>>weather\n", ">>>all\n", '"tool_input"',
    '"action"', '"action_input"', '<steptml:invoke name="a">', "</steptml:invoke>",
    '<steptml:parameter name="x">', "<invoke>", "<tool_name>a</tool_name>", "<parameters>",
    "</parameters>", "<name>a</name>", "<arguments>", "</arguments>", "<function_calls>",
)  # fmt: skip
json_like_text = st.lists(st.sampled_from(TOKENS), max_size=80).map("".join)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
arguments = st.dictionaries(st.text(max_size=10), json_values, max_size=5)
tool_names = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)


WRAPPERS = (
    "Hier ist der Aufruf: {}\nFertig.",
    "```json\n{}\n```",
    "<tool_call>{}</tool_call>",
    "<think>Ich überlege.</think>\n{}",
    "[TOOL_CALLS]{}</s>",
    "<|python_tag|>{}<|eom_id|>",
)


def assert_well_formed(result: ParseResult) -> None:
    assert isinstance(result, ParseResult)
    assert result.reason != "internal_error"
    if result.calls:
        assert result.reason is None
        assert result.extractor in EXTRACTOR_NAMES
        for call in result.calls:
            assert isinstance(call, ToolCall)
            assert isinstance(call.name, str) and call.name.strip()
            assert isinstance(call.arguments, dict)
        json.dumps([call.to_json() for call in result.calls], allow_nan=False)
    else:
        assert result.reason in REASONS
        assert result.extractor is None
        assert not result.exact


def same_json(left: Any, right: Any) -> bool:
    """Equality that treats -0.0/0.0 and int/float like JSON does after a round trip."""
    return bool(json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True))


def assert_reads(
    text: str, name: str, args: dict[str, Any], tools: tuple[ToolSpec, ...] = ()
) -> None:
    """``text`` parses (with ``tools`` offered) to the call ``name(args)``."""
    result = parse_text(text, tools)
    assert result.first is not None and result.first.name == name
    assert same_json(result.first.arguments, args)


@FUZZ
@given(any_text)
@example('\ud800{"name": "a"}\udfff')
@example('{"name": "a", "arguments": {"a": 1, "a": 2}}')
def test_arbitrary_text_never_raises(text: str) -> None:
    assert_well_formed(parse_text(text))


@FUZZ
@given(json_like_text)
def test_json_like_token_soup_never_raises(text: str) -> None:
    assert_well_formed(parse_text(text))
    assert_well_formed(parse_text(text, TOOLS))  # the dialects read only for offered tools


@FUZZ
@given(tool_names, arguments, st.sampled_from(["arguments", "parameters", "args"]))
def test_bare_call_round_trips(name: str, args: dict[str, Any], key: str) -> None:
    result = parse_text(json.dumps({"name": name, key: args}))
    assert result.extractor == "json_object"
    assert result.first is not None and result.first.name == name
    assert same_json(result.first.arguments, args)


@FUZZ
@given(
    tool_names,
    arguments,
    st.sampled_from(WRAPPERS),
    st.booleans(),
)
def test_wrapped_call_round_trips(
    name: str, args: dict[str, Any], wrapper: str, ascii_only: bool
) -> None:
    inner = json.dumps({"name": name, "arguments": json.dumps(args)}, ensure_ascii=ascii_only)
    assert_reads(wrapper.replace("{}", inner), name, args)


HEADER_FORMATS = (
    "[TOOL_CALLS]{name}[ARGS]{args}",
    "<function={name}>{args}</function>",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0"
    "<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>",
    "<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>",
    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>",
    "<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>",
    "<tool_call>\n<name>{name}</name>\n<arguments>{args}</arguments>\n</tool_call>",
)


@FUZZ
@given(tool_names, arguments, st.sampled_from(HEADER_FORMATS))
def test_name_in_header_round_trips(name: str, args: dict[str, Any], template: str) -> None:
    text = template.replace("{name}", name).replace("{args}", json.dumps(args))
    assert_reads(text, name, args)


# Text values of the XML-parameter dialects: no markup, no newline at either end (templates
# add one there), no lone surrogates (they are not valid in a UTF-8 chat template either).
markup_free = st.text(
    st.characters(exclude_characters="<>", exclude_categories=("Cs",)), min_size=1, max_size=30
).filter(lambda v: v.strip() == v)
string_arguments = st.dictionaries(st.from_regex(r"[a-z_]{1,10}", fullmatch=True), markup_free)


def _qwen(name: str, args: dict[str, str]) -> str:
    params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in args.items())
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def _invoke(name: str, args: dict[str, str]) -> str:
    params = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in args.items())
    return f'<minimax:tool_call>\n<invoke name="{name}">\n{params}</invoke>\n</minimax:tool_call>'


def _glm(name: str, args: dict[str, str]) -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items()
    )
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def _step3(name: str, args: dict[str, str]) -> str:
    params = "".join(
        f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in args.items()
    )
    return (
        "<|tool_calls_begin|><|tool_call_begin|>function<|tool_sep|>"
        f'<steptml:invoke name="{name}">{params}</steptml:invoke>'
        "<|tool_call_end|><|tool_calls_end|>"
    )


def _anthropic_legacy(name: str, args: dict[str, str]) -> str:
    params = "".join(f"<{k}>{v}</{k}>\n" for k, v in args.items())
    return (
        f"<function_calls>\n<invoke>\n<tool_name>{name}</tool_name>\n"
        f"<parameters>\n{params}</parameters>\n</invoke>\n</function_calls>"
    )


def _child_tags(name: str, args: dict[str, str]) -> str:
    params = "".join(f"<{k}>{v}</{k}>" for k, v in args.items())
    return f"<tool_call>\n<name>{name}</name>\n<arguments>{params}</arguments>\n</tool_call>"


XML_RENDERERS = (_qwen, _invoke, _glm, _step3, _anthropic_legacy, _child_tags)


@FUZZ
@given(tool_names, string_arguments, st.sampled_from(XML_RENDERERS))
def test_xml_parameter_call_round_trips(name: str, args: dict[str, str], render: Any) -> None:
    result = parse_text("Gut, ich rufe das Werkzeug auf.\n" + render(name, args))
    assert result.first == ToolCall(name, args)


python_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
python_arguments = st.dictionaries(
    st.from_regex(r"[a-z_][a-z0-9_]{0,9}", fullmatch=True), python_values, max_size=5
)
PYTHONIC_FORMS = (
    "{call}",
    "[{call}]",
    "```tool_code\n{call}\n```",
    "<|python_start|>[{call}]<|python_end|>",
    "<function_calls>\n{call}\n</function_calls>",
)


@FUZZ
@given(tool_names, python_arguments, st.sampled_from(PYTHONIC_FORMS))
def test_pythonic_call_round_trips(name: str, args: dict[str, Any], form: str) -> None:
    keywords = ", ".join(f"{key}={value!r}" for key, value in args.items())
    assert_reads(form.replace("{call}", f"{name}({keywords})"), name, args)


TOOL_AWARE_FORMATS = (
    "Thought: Ich rufe das Werkzeug auf.\nAction: {name}\nAction Input: {args}\nObservation:",
    ">>>{name}\n{args}",
    ">>>all\nIch rufe das Werkzeug auf.>>>{name}\n{args}",
)


@FUZZ
@given(tool_names, arguments, st.sampled_from(TOOL_AWARE_FORMATS))
def test_offered_tool_header_round_trips(name: str, args: dict[str, Any], template: str) -> None:
    """ReAct and Functionary read a call only for an offered tool; then in full."""
    tools = (ToolSpec(name, "", {"type": "object", "properties": {}}),)
    text = template.replace("{name}", name).replace("{args}", json.dumps(args))
    assert_reads(text, name, args, tools)


@FUZZ
@given(tool_names, python_arguments)
def test_python_dict_call_round_trips(name: str, args: dict[str, Any]) -> None:
    assert_reads(repr({"name": name, "arguments": args}), name, args)


def _gemma_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"<escape>{value}<escape>"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


gemma_values = st.recursive(
    st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.text(st.characters(exclude_characters="<>", exclude_categories=("Cs",)), max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), inner, max_size=3)
    ),
    max_leaves=12,
)


@FUZZ
@given(
    tool_names,
    st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), gemma_values, max_size=4),
)
def test_function_gemma_call_round_trips(name: str, args: dict[str, Any]) -> None:
    text = f"<start_function_call>call:{name}{_gemma_value(args)}<end_function_call>"
    assert parse_text(text).first == ToolCall(name, args)


@FUZZ
@given(tool_names, st.text(st.characters(codec=None, exclude_categories=()), max_size=200))
def test_native_never_raises(name: str, raw_arguments: str) -> None:
    result = parse_native((NativeToolCall(name, raw_arguments),))
    assert_well_formed(result)
    if result.ok:
        assert result.extractor == "native"


@BIG
@given(
    st.sampled_from((*TOKENS, "a", "{}", '{"', '"{', "```{", "\n[a(b=1)]", "\n<function=a>", "a.")),
    st.integers(1, 40_000),
)
def test_repeated_pieces_stay_bounded(piece: str, times: int) -> None:
    assert_well_formed(parse_text(piece * times))


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "{" * 100_000,
        '{"a":' * 50_000,
        '{"name": "a", "arguments": ' + "[" * 100_000,
        '{"name": "a", "arguments": "' + "[" * 50_000 + '"}',
        '{"name": "a", "arguments": {"x": "' + "y" * 1_000_000 + '"}}',
        '"' + "\\" * 100_001,
        "<think>" + "x" * (2 * MAX_TEXT_CHARS),
        "[a(b=" + "[" * 100_000,
        "a(b=" + "-" * 100_000 + "1)",
        "{'a': " * 30_000,
        "\n<function=a>\n<parameter=b>" * 5_000,
        "<tool_call>a<arg_key>b</arg_key>" * 5_000,
        "<start_function_call>call:a{b:" + "[" * 50_000,
        "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>" + "{" * 50_000,
    ],
    ids=[
        "brackets",
        "braces",
        "keys",
        "deep-args",
        "deep-args-string",
        "huge-string",
        "backslashes",
        "long-think",
        "pythonic-brackets",
        "pythonic-signs",
        "near-json-keys",
        "qwen-unclosed-parameters",
        "glm-keys-without-values",
        "function-gemma-brackets",
        "kimi-braces",
    ],
)
def test_pathological_inputs(text: str) -> None:
    result = parse_text(text)
    assert_well_formed(result)
    assert not result.ok


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e309", "-1e400"])
def test_non_finite_numbers_are_refused(literal: str) -> None:
    text = '{"name": "a", "arguments": {"x": ' + literal + "}}"
    assert parse_text(text).reason == "invalid_json"
    native = parse_native((NativeToolCall("a", '{"x": ' + literal + "}"),))
    assert native.reason == "invalid_arguments_json"


def test_large_finite_numbers_are_kept() -> None:
    result = parse_text('{"name": "a", "arguments": {"x": 1e308, "n": 123456789012345678901}}')
    assert result.first is not None
    assert math.isfinite(result.first.arguments["x"])
    assert result.first.arguments["n"] == 123456789012345678901
