"""Every dialect's real outputs, broken on purpose: cut at every character, nested in each
other, buried in a megabyte of text, mentioned in a sentence. The parser must never raise,
must return a well-formed result, must not mistake a mention for a call, and must not lose a
call to what surrounds it. (Bounded work is what makes these finish; the hypothesis deadline
in test_parsing_fuzz.py is the only time bound checked.)"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from test_parsing_fuzz import FUZZ, TOKENS, assert_well_formed
from tooleval.parsing import MAX_TEXT_CHARS, parse_response, parse_text
from tooleval.parsing.cases import ParseCase, load_cases
from tooleval.records import ParseResult
from tooleval.suites.infranode import load_tools

TOOLS = load_tools()
TEXT_CASES = tuple(case for case in load_cases() if case.text and not case.native)
CALLS = tuple(case for case in TEXT_CASES if case.expect is not None)
MEGABYTE = 1 << 20
CASE_IDS = [f"{c.family}:{c.id}" for c in CALLS]


def prefixes(text: str, most: int = 400) -> Iterator[str]:
    """Cuts of ``text`` at every character, or at ``most`` evenly spread ones when longer."""
    step = max(1, len(text) // most)
    for end in range(0, len(text), step):
        yield text[:end]


def first_name(result: ParseResult) -> str | None:
    return result.first.name if result.first else None


@pytest.mark.parametrize("case", TEXT_CASES, ids=[f"{c.family}:{c.id}" for c in TEXT_CASES])
def test_every_cut_of_every_output_is_read_without_raising(case: ParseCase) -> None:
    """A model stopped by max_tokens mid-call: each cut is a result, with or without tools."""
    assert case.text is not None
    for cut in prefixes(case.text):
        assert_well_formed(parse_text(cut, TOOLS))
        assert_well_formed(parse_text(cut))


def test_a_cut_call_never_turns_into_another_tool() -> None:
    """A cut may lose the call or (pythonic lists, several tags) keep the calls before the cut,
    but never reads a name the full output does not contain."""
    for case in CALLS:
        assert case.text is not None
        full = parse_text(case.text, TOOLS)
        names = {call.name for call in full.calls}
        for cut in prefixes(case.text, 120):
            result = parse_text(cut, TOOLS)
            wrong = {call.name for call in result.calls} - names
            # a cut inside a name reads as that name's prefix only where the dialect ends it
            # there (GLM: the name line); it is never a different tool
            assert all(any(n.startswith(w) for n in names) for w in wrong), (case.id, cut)


@pytest.mark.parametrize("outer", CALLS, ids=CASE_IDS)
def test_outputs_nested_in_each_other_stay_well_formed(outer: ParseCase) -> None:
    """One dialect's output inside another's markup (in an argument, a tag, a fence)."""
    assert outer.text is not None
    for inner in CALLS[:: max(1, len(CALLS) // 25)]:
        assert inner.text is not None
        middle = len(outer.text) // 2
        spliced = outer.text[:middle] + inner.text + outer.text[middle:]
        assert_well_formed(parse_text(spliced, TOOLS))
        assert_well_formed(parse_text(outer.text.replace("bonn", inner.text), TOOLS))


@pytest.mark.parametrize("case", CALLS, ids=CASE_IDS)
def test_a_megabyte_of_repeated_output_is_capped_not_hung(case: ParseCase) -> None:
    assert case.text is not None
    text = (case.text * (MEGABYTE // len(case.text) + 1))[:MEGABYTE]
    assert_well_formed(parse_text(text, TOOLS))
    assert_well_formed(parse_response(text, (), TOOLS))


@pytest.mark.parametrize("case", CALLS, ids=CASE_IDS)
def test_a_call_survives_a_megabyte_of_text_after_it(case: ParseCase) -> None:
    """What follows the read window is not read; the call inside it still is. (A bare
    pythonic call is read only as the whole output, so a sentence after it makes it prose
    already at a few bytes: it gets a megabyte of whitespace instead.)"""
    assert case.text is not None and case.expect is not None
    short = parse_text(case.text + "\n\nFertig.", TOOLS)
    filler = "Weitere Erklärungen folgen. " if short.ok else " \n"
    tail = "\n\n" + filler * (MEGABYTE // len(filler))
    assert len(case.text + tail) > MAX_TEXT_CHARS
    result = parse_text(case.text + tail, TOOLS)
    assert first_name(result) == case.expect["name"], case.id
    assert short.ok or case.extractor == "pythonic", case.id  # only bare calls need the whole


JUNK = (
    "{" * 1000 + "x",
    "[" * 1000 + "a(",
    "<tool_call>" * 500,
    "<function=weather>\n<parameter=slug>" * 300,
    '"' + "\\" * 1001,
    "```json\n{" * 400,
    "<|tool_call_begin|>functions.weather:0<|tool_call_argument_begin|>{" * 200,
    "weather(slug=" * 500,
    'Action: weather\nAction Input: {"slug": ' * 200,
    '>>>weather\n{"slug": ' * 300,
    '<steptml:invoke name="weather"><steptml:parameter name="slug">' * 200,
    "<function_calls><invoke><tool_name>weather</tool_name><parameters><slug>" * 150,
    "<tool_call><name>weather</name><arguments><slug>" * 200,
    "<function_calls>\nweather(slug=" * 300,
)


@pytest.mark.parametrize("junk", JUNK, ids=range(len(JUNK)))
def test_megabyte_inputs_of_unclosed_dialect_markup(junk: str) -> None:
    text = (junk * (MEGABYTE // len(junk) + 1))[:MEGABYTE]
    result = parse_text(text, TOOLS)
    assert_well_formed(result)
    assert not result.ok


MENTIONS = (
    "Für das Wetter eignet sich weather(slug), für Daten get_city_data(slug, resource).",
    "Ich würde weather(slug='bonn') nehmen, aber erst den Slug prüfen.",
    "Die Funktion `pois(slug, type)` liefert Orte; type ist z.B. pharmacy.",
    "Soll ich [weather(slug='bonn')] aufrufen oder lieber air_quality?",
    "Im Qwen-Format: <function=weather><parameter=slug>bonn</parameter></function> – so geht das.",
    'MiniMax schreibt <invoke name="weather"><parameter name="slug">bonn</parameter></invoke>.',
    "Mit <function=weather> und einem JSON-Körper ruft Llama 3.1 Werkzeuge auf.",
    "Kimi setzt functions.weather:0 vor die Argumente, gpt-oss schreibt to=functions.weather.",
    "FunctionGemma: call:weather{slug:<escape>bonn<escape>} ist ein Beispiel.",
    "Das Werkzeug weather kennt den Slug bonn; stations kennt die Bahnhöfe.",
    "def weather(slug='bonn'): ...",
    "x = weather(slug='bonn')",
    "weather(slug='bonn') if verfügbar else None",
    "await weather(slug='bonn')",
    "- weather(slug='bonn')\n- air_quality(slug='bonn')\nWelche soll ich nehmen?",
    "Die Signatur ist weather(slug: str) -> dict.",
    'Im ReAct-Format: Action: weather, dann Action Input: {"slug": "bonn"}.',
    "Functionary schreibt >>>weather vor die Argumente (JSON).",
    'Step-3 schreibt <steptml:invoke name="weather"><steptml:parameter name="slug">bonn.',
    "Früher: <invoke><tool_name>weather</tool_name><parameters><slug>bonn</slug></parameters>.",
    "Als Tags: <tool_call><name>weather</name></tool_call> – so sähe es aus.",
    '{"action": "Final Answer", "action_input": "Das Wetter in Bonn ist mild."}',
)


@pytest.mark.parametrize("text", MENTIONS)
def test_a_tool_mentioned_in_prose_is_not_a_call(text: str) -> None:
    for tools in (TOOLS, ()):
        result = parse_text(text, tools)
        assert not result.ok, (text, result.calls)


@pytest.mark.parametrize("text", MENTIONS[:8])
def test_a_mention_before_the_real_call_does_not_hide_it(text: str) -> None:
    result = parse_text(text + '\n{"name": "weather", "arguments": {"slug": "koeln"}}', TOOLS)
    assert result.first is not None
    assert (result.first.name, result.first.arguments) == ("weather", {"slug": "koeln"})


PYTHON_BITS = (*TOKENS, "1", "0x1", "1e5", "1j", "if", "or", "in", "is", "for", "else", "not",
               "and", "\\d", "\\N", "'1st'", "_", "weather(slug=", "[a(b=")  # fmt: skip


python_texts = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(("[a(b=", "a(b=", "{'a': ", "```tool_code\nweather(slug=", "")),
        st.lists(st.sampled_from(PYTHON_BITS), max_size=12).map(" ".join),
        st.lists(st.sampled_from(PYTHON_BITS), max_size=12).map("".join),
        st.sampled_from((")]", ")", "}", ")\n```", "")),
    ),
)


@FUZZ
@given(python_texts)
@example("[a(b=1if 1 else 2)]")
@example("{'a': 0x1for}")
def test_nothing_is_printed_whatever_the_text(text: str) -> None:
    """Python's parser warns about some texts (``1if``, ``"\\d"``); the parser never lets a
    warning out, under the default filters of a run."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_well_formed(parse_text(text, TOOLS))
    assert caught == []
