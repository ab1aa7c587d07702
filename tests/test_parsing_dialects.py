"""The dialect extractors beyond their fixtures: exactness, schema typing, names, safety."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tooleval.parsing import MAX_DEPTH, parse_native, parse_response, parse_text
from tooleval.parsing._schema import canonical_name, coerce_value
from tooleval.records import NativeToolCall, ToolCall, ToolSpec
from tooleval.scoring import format_ok
from tooleval.suites.infranode import load_tools

TOOLS = load_tools()
CALL = '{"name": "weather", "arguments": {"slug": "bonn"}}'
QWEN_STATIONS = (
    "<tool_call>\n<function=stations>\n<parameter=slug>\nbonn\n</parameter>\n"
    "<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>"
)


@pytest.mark.parametrize(
    "text",
    [
        CALL,
        f"  \n{CALL}\n",
        f"```json\n{CALL}\n```",
        f"```\n{CALL}\n```",
        f"<think>Welche Stadt? Bonn.</think>\n{CALL}",
    ],
)
def test_the_requested_form_is_exact(text: str) -> None:
    result = parse_text(text, TOOLS)
    assert result.first == ToolCall("weather", {"slug": "bonn"})
    assert result.exact


@pytest.mark.parametrize(
    "text",
    [
        f"Gerne: {CALL}",
        f"{CALL}\nIch hoffe, das hilft.",
        f"Hier:\n```json\n{CALL}\n```",
        f"[{CALL}]",
        f"<tool_call>{CALL}</tool_call>",
        '{"name": "weather", "parameters": {"slug": "bonn"}}',
        '{"name": "weather", "arguments": {"slug": "bonn"}, "id": "call_1"}',
        '{"name": "weather", "arguments": "{\\"slug\\": \\"bonn\\"}"}',
        '{"tool_calls": [{"name": "weather", "arguments": {"slug": "bonn"}}]}',
        "{'name': 'weather', 'arguments': {'slug': 'bonn'}}",
        '{"name": "functions.weather", "arguments": {"slug": "bonn"}}',
        f"{CALL}\n{CALL}",
        'weather(slug="bonn")',
    ],
)
def test_anything_else_that_parses_is_not_exact(text: str) -> None:
    result = parse_text(text, TOOLS)
    assert result.first is not None and result.first.name == "weather"
    assert not result.exact


def test_failures_are_never_exact() -> None:
    assert not parse_text("Das weiß ich nicht.", TOOLS).exact
    assert not parse_text('{"slug": "bonn"}', TOOLS).exact


def test_native_exactness_needs_every_call_usable_and_named_as_offered() -> None:
    good = (NativeToolCall("weather", '{"slug": "bonn"}'),)
    broken_second = (*good, NativeToolCall("weather", "{"))
    renamed = (NativeToolCall("functions.weather", '{"slug": "bonn"}'),)
    assert parse_native(good, TOOLS).exact
    assert not parse_native(broken_second, TOOLS).exact
    result = parse_native(renamed, TOOLS)
    assert result.first == ToolCall("weather", {"slug": "bonn"}) and not result.exact


def test_native_arguments_stay_strict_json() -> None:
    result = parse_native((NativeToolCall("weather", "{'slug': 'bonn'}"),), TOOLS)
    assert result.reason == "invalid_arguments_json"


def test_xml_values_are_typed_only_when_the_tools_are_known() -> None:
    typed = parse_text(QWEN_STATIONS, TOOLS)
    untyped = parse_text(QWEN_STATIONS)
    assert typed.first == ToolCall("stations", {"slug": "bonn", "limit": 5})
    assert untyped.first == ToolCall("stations", {"slug": "bonn", "limit": "5"})


def test_parse_response_passes_the_tools_on() -> None:
    assert parse_response(QWEN_STATIONS, (), TOOLS).first == ToolCall(
        "stations", {"slug": "bonn", "limit": 5}
    )


@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        ("5", {"type": "integer"}, 5),
        (" -12 ", {"type": "integer"}, -12),
        ("5.0", {"type": "integer"}, "5.0"),
        ("fünf", {"type": "integer"}, "fünf"),
        ("2.5", {"type": "number"}, 2.5),
        ("3", {"type": "number"}, 3),
        ("1e309", {"type": "number"}, "1e309"),
        ("True", {"type": "boolean"}, True),
        ("false", {"type": "boolean"}, False),
        ("ja", {"type": "boolean"}, "ja"),
        ("null", {"type": ["integer", "null"]}, None),
        ("7", {"type": ["integer", "null"]}, 7),
        ("7", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 7),
        ('["a", "b"]', {"type": "array"}, ["a", "b"]),
        ("['a', 'b',]", {"type": "array"}, ["a", "b"]),
        ('{"a": 1}', {"type": "array"}, '{"a": 1}'),
        ('{"a": 1}', {"type": "object"}, {"a": 1}),
        ("5", {"type": "string"}, "5"),
        ("5", {"type": ["string", "integer"]}, "5"),
        ("5", {"enum": ["5", "6"]}, "5"),
        ("5", None, "5"),
    ],
)
def test_coerce_value_follows_the_schema(text: str, schema: Any, expected: Any) -> None:
    got = coerce_value(text, schema)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("functions.weather", "weather"),
        ("tools.weather", "weather"),
        ("default_api.weather", "weather"),
        ("weather", "weather"),
        ("functions.nope", "functions.nope"),
        ("api.weather", "api.weather"),
    ],
)
def test_namespace_is_stripped_only_for_offered_tools(name: str, expected: str) -> None:
    assert canonical_name(name, TOOLS) == expected


def test_a_tool_really_named_with_a_namespace_keeps_its_name() -> None:
    tools = (
        *TOOLS,
        ToolSpec("functions.weather", "", {"type": "object", "properties": {}}),
    )
    assert canonical_name("functions.weather", tools) == "functions.weather"
    assert canonical_name("functions.weather", ()) == "functions.weather"


def test_pythonic_arguments_are_never_evaluated() -> None:
    text = '[weather(slug=__import__("os").getcwd())]'
    assert parse_text(text, TOOLS).reason == "invalid_arguments_json"
    assert parse_text("[weather(slug=exit())]", TOOLS).reason == "invalid_arguments_json"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('route(from="bonn", to="koeln")', ToolCall("route", {"from": "bonn", "to": "koeln"})),
        ('[trains(from="bonn", limit=3)]', ToolCall("trains", {"from": "bonn", "limit": 3})),
        ("```tool_code\nimport_data(global=True)\n```", ToolCall("import_data", {"global": True})),
        ("or(a=1)", ToolCall("or", {"a": 1})),
        ('weather(slug="or(", class="x")', ToolCall("weather", {"slug": "or(", "class": "x"})),
    ],
)
def test_python_keywords_are_names_in_pythonic_calls(text: str, expected: ToolCall) -> None:
    """Parameter names such as ``from`` or ``class`` are common in tool schemas; Python's own
    parser refuses them as keyword arguments, the pythonic reader does not."""
    assert parse_text(text).first == expected


def test_a_keyword_inside_an_expression_is_not_renamed() -> None:
    assert parse_text("weather(slug=1 if True else 2)").first is None


def test_unknown_escapes_in_python_strings_are_kept_without_warnings() -> None:
    result = parse_text('weather(slug="C:\\daten\\stadt")', TOOLS)
    assert result.first == ToolCall("weather", {"slug": "C:\\daten\\stadt"})


@pytest.mark.parametrize(
    "text",
    ["[weather(slug=1if 1 else 2)]", "weather(slug=1or 2)", "{'name': 'a', 'x': 0x1for}"],
)
def test_text_that_makes_pythons_parser_warn_is_refused_silently(text: str) -> None:
    """Under the default filters (a run) as under "error" (the tests): same result, no
    output. A number run into a keyword is never a literal, so nothing is lost."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = parse_text(text, TOOLS)
    assert caught == [] and not result.ok


@pytest.mark.parametrize(
    "text",
    [
        "weather(slug=" + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + ")",
        "{'name': 'a', 'arguments': {'x': " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "}}",
        "<start_function_call>call:a{x:" + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "}",
    ],
    ids=["pythonic", "near_json", "function_gemma"],
)
def test_deep_nesting_in_new_dialects_is_too_deep(text: str) -> None:
    assert parse_text(text).reason == "too_deep"


def test_long_attribute_chain_is_not_a_tool_name() -> None:
    text = "a" + ".b" * 5000 + '(slug="bonn")'
    result = parse_text(text)
    assert not result.ok and result.reason != "internal_error"


def test_seed_reasoning_block_is_removed() -> None:
    text = "<seed:think>Vielleicht {weather}?</seed:think>" + CALL
    result = parse_text(text, TOOLS)
    assert result.extractor == "json_object" and result.exact


@pytest.mark.parametrize(
    "text",
    [
        "Nutze <function=weather> für das Wetter.",
        'Schreibe <invoke name="weather"> und dann den slug.',
        "Ich würde weather(slug) oder air_quality(slug) nehmen.",
        "Das Format ist call:weather{slug:<escape>bonn<escape>}.",
        "Kimi schreibt functions.weather:0 vor die Argumente.",
        "GLM nutzt <arg_key>slug</arg_key><arg_value>bonn</arg_value>.",
    ],
)
def test_prose_mentions_are_not_calls(text: str) -> None:
    assert not parse_text(text, TOOLS).ok


# The LangChain key pairs, ReAct, Functionary, Step-3, Olmo 3, the older Anthropic format and
# <tool_call> child tags: each read as the call it means, never as a different one.

STEP3_STATIONS = (
    '<|tool_calls_begin|><|tool_call_begin|>function<|tool_sep|><steptml:invoke name="stations">'
    '<steptml:parameter name="slug">bonn</steptml:parameter>'
    '<steptml:parameter name="limit">3</steptml:parameter>'
    "</steptml:invoke><|tool_call_end|><|tool_calls_end|>"
)
LEGACY_STATIONS = (
    "<function_calls>\n<invoke>\n<tool_name>stations</tool_name>\n<parameters>\n"
    "<slug>bonn</slug>\n<limit>3</limit>\n</parameters>\n</invoke>\n</function_calls>"
)
CHILD_TAG_STATIONS = (
    "<tool_call>\n<name>stations</name>\n<arguments>\n<slug>bonn</slug>\n<limit>3</limit>\n"
    "</arguments>\n</tool_call>"
)
REACT = 'Thought: Ich brauche das Wetter.\nAction: weather\nAction Input: {"slug": "bonn"}'
FUNCTIONARY = '>>>weather\n{"slug": "bonn"}'
NEW_DIALECTS = {
    "tool_input": ('{"tool": "weather", "tool_input": {"slug": "bonn"}}', "json_object"),
    "action_input": ('{"action": "weather", "action_input": {"slug": "bonn"}}', "json_object"),
    "react": (REACT, "react"),
    "functionary": (FUNCTIONARY, "functionary"),
    "step3": (
        '<|tool_calls_begin|><|tool_call_begin|>function<|tool_sep|><steptml:invoke name="weather">'
        '<steptml:parameter name="slug">bonn</steptml:parameter></steptml:invoke>'
        "<|tool_call_end|><|tool_calls_end|>",
        "xml_invoke",
    ),
    "olmo3": ('<function_calls>\nweather(slug="bonn")\n</function_calls>', "pythonic"),
    "anthropic_legacy": (
        "<function_calls><invoke><tool_name>weather</tool_name><parameters><slug>bonn</slug>"
        "</parameters></invoke></function_calls>",
        "xml_invoke",
    ),
    "xml_tags": (
        '<tool_call><name>weather</name><arguments>{"slug": "bonn"}</arguments></tool_call>',
        "xml_tags",
    ),
}


@pytest.mark.parametrize(("text", "extractor"), NEW_DIALECTS.values(), ids=NEW_DIALECTS.keys())
def test_each_new_dialect_reads_the_call_with_its_arguments(text: str, extractor: str) -> None:
    """Each was read as no call, or (``tool_input``) as ``weather`` with no arguments."""
    result = parse_text(text, TOOLS)
    assert result.first == ToolCall("weather", {"slug": "bonn"})
    assert result.extractor == extractor


@pytest.mark.parametrize(("text", "extractor"), NEW_DIALECTS.values(), ids=NEW_DIALECTS.keys())
def test_the_new_dialects_are_not_the_requested_format(text: str, extractor: str) -> None:
    result = parse_text(text, TOOLS)
    assert result.ok and not result.exact
    assert format_ok(result, "prompt") == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"tool": "weather", "tool_input": {"slug": "bonn"}}', {"slug": "bonn"}),
        ('{"tool": "weather", "arguments": {"slug": "bonn"}}', {"slug": "bonn"}),
        ('{"action": "get_city", "action_input": "{\\"slug\\": \\"jena\\"}"}', {"slug": "jena"}),
        ('{"name": "weather", "arguments": {"slug": "bonn"}, "meta": {"a": 1}}', {"slug": "bonn"}),
        ('{"name": "list_cities"}', {}),
        ('{"name": "list_cities", "id": "call_1"}', {}),
    ],
)
def test_json_key_families_read_their_arguments(text: str, expected: dict[str, Any]) -> None:
    result = parse_text(text, TOOLS)
    assert result.first is not None and result.first.arguments == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"name": "weather", "slug": "bonn"}', ToolCall("weather", {"slug": "bonn"})),
        ('{"tool": "weather", "slug": "bonn"}', ToolCall("weather", {"slug": "bonn"})),
        (
            '{"name": "pois", "slug": "koblenz", "type": "restaurant"}',
            ToolCall("pois", {"slug": "koblenz", "type": "restaurant"}),
        ),
        (
            '{"type": "function", "id": "call_7", "name": "weather", "slug": "bonn"}',
            ToolCall("weather", {"slug": "bonn"}),
        ),
        (
            '{"name": "compare", "cities": ["bonn", "koeln"], "resource": "weather"}',
            ToolCall("compare", {"cities": ["bonn", "koeln"], "resource": "weather"}),
        ),
        (
            '{"name": "stations", "slug": "bonn", "limit": 3}',
            ToolCall("stations", {"slug": "bonn", "limit": 3}),
        ),
    ],
)
def test_arguments_written_flat_beside_the_name_are_read(text: str, expected: ToolCall) -> None:
    """Small models often drop the ``arguments`` wrapper; the call is still the call (it was
    read with no arguments before), but not the requested format."""
    result = parse_text(text, TOOLS)
    assert result.first == expected
    assert format_ok(result, "prompt") == 0


def test_a_flat_id_is_an_argument_unless_it_is_a_providers_call_id() -> None:
    entity = parse_text('{"name": "weather", "slug": "bonn", "id": "e1"}', TOOLS).first
    assert entity is not None and entity.arguments == {"slug": "bonn", "id": "e1"}
    call_id = parse_text('{"name": "weather", "slug": "bonn", "id": "toolu_01A"}', TOOLS).first
    assert call_id == ToolCall("weather", {"slug": "bonn"})


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"name": "weather", "params": {"slug": "bonn"}}', "invalid_arguments_json"),
        ('{"name": "weather", "action_input": {"slug": "bonn"}}', "invalid_arguments_json"),
        ('{"tool_name": "weather", "tool_input": {"slug": "bonn"}}', "invalid_arguments_json"),
        ('{"action": "weather", "arguments": {"slug": "bonn"}}', "no_tool_name"),
        ('{"action": "weather"}', "no_tool_name"),
        ('{"action": "Final Answer", "action_input": "Es ist sonnig."}', "no_tool_name"),
        ('{"tool": "weather", "tool_input": "bonn"}', "invalid_arguments_json"),
        ('{"action": {"name": "weather"}, "action_input": {"slug": "bonn"}}', "no_tool_name"),
        ('{"action": ["Final Answer"], "action_input": "Es ist sonnig."}', "no_tool_name"),
    ],
)
def test_arguments_under_another_familys_or_an_unknown_key_are_not_silently_empty(
    text: str, reason: str
) -> None:
    """A name key pairs with its own family's arguments keys (``action`` only with
    ``action_input``); arguments under a key the parser does not know fail instead of being
    read as no arguments, and the LangChain agent's final answer is not a call."""
    result = parse_text(text, TOOLS)
    assert result.first is None and result.reason == reason


@pytest.mark.parametrize(
    "text", [STEP3_STATIONS, LEGACY_STATIONS, CHILD_TAG_STATIONS], ids=["step3", "legacy", "tags"]
)
def test_text_values_of_the_new_xml_dialects_are_typed_by_the_schema(text: str) -> None:
    assert parse_text(text, TOOLS).first == ToolCall("stations", {"slug": "bonn", "limit": 3})
    assert parse_text(text).first == ToolCall("stations", {"slug": "bonn", "limit": "3"})


@pytest.mark.parametrize(
    "text",
    [
        '>>>stations\n{"slug": "bonn", "limit": 3}',
        'Thought: x\nAction: stations\nAction Input: {"slug": "bonn", "limit": 3}',
        '<tool_call><name>stations</name><arguments>{"slug": "bonn", "limit": 3}</arguments>'
        "</tool_call>",
    ],
)
def test_json_arguments_keep_their_json_types(text: str) -> None:
    assert parse_text(text, TOOLS).first == ToolCall("stations", {"slug": "bonn", "limit": 3})


@pytest.mark.parametrize("text", [REACT, FUNCTIONARY, 'weather\n{"slug": "bonn"}'])
def test_react_and_functionary_need_an_offered_tool(text: str) -> None:
    """Their markers are ordinary words and symbols: without the tool offered, no call."""
    assert parse_text(text, TOOLS).first == ToolCall("weather", {"slug": "bonn"})
    assert not parse_text(text).ok
    other_tools = tuple(tool for tool in TOOLS if tool.name != "weather")
    assert not parse_text(text, other_tools).ok


def test_a_namespaced_react_action_resolves_to_the_offered_tool() -> None:
    text = REACT.replace("Action: weather", "Action: functions.weather")
    assert parse_text(text, TOOLS).first == ToolCall("weather", {"slug": "bonn"})


def test_functionary_reads_every_call_and_skips_its_text_channel() -> None:
    text = '>>>all\nErst die Bahnhöfe.>>>stations\n{"slug": "ulm"}>>>weather\n{"slug": "ulm"}'
    result = parse_text(text, TOOLS)
    assert [c.name for c in result.calls] == ["stations", "weather"]


@pytest.mark.parametrize(
    "text",
    [
        "Im ReAct-Format folgt auf Action: der Werkzeugname (etwa weather).",
        'Schreibe Action: weather und darunter Action Input: {"slug": "bonn"}.',
        "Action: weather",
        'Action: suche_wetter\nAction Input: {"slug": "bonn"}',
        "Functionary trennt Aufrufe mit >>> (z. B. >>>weather).",
        '>>> weather(slug="bonn")\n{"temp": 14}',
        '>>>all\n{"slug": "bonn"}',
        "Der Slug für weather ist bonn (siehe stations).",
        'Step-3 nutzt <steptml:invoke name="weather"> mit Parametern.',
        "Alt: <invoke><tool_name>weather</tool_name> in <function_calls> (nicht mehr üblich).",
        "Beispiel: <tool_call><name>weather</name></tool_call> genügt.",
        'Olmo schreibt weather(slug="bonn") in <function_calls>-Blöcke.',
    ],
)
def test_mentions_of_the_new_dialects_are_not_calls(text: str) -> None:
    assert not parse_text(text, TOOLS).ok, text
