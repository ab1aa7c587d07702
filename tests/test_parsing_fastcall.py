"""The fast pythonic reader gives exactly what Python's parser gives, or steps aside."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.parsing import parse_text
from tooleval.parsing._fastcall import fast_calls
from tooleval.parsing.pythonic import _ast_items
from tooleval.records import ToolCall

FUZZ = settings(max_examples=300, deadline=timedelta(seconds=2))


def by_ast(text: str) -> str:
    """The ast path's items, as ``repr`` (so ``True``, ``1`` and ``1.0`` stay apart)."""
    return repr(_ast_items(text.strip()))


def by_fast(text: str) -> str | None:
    found = fast_calls(text.strip())
    return None if found is None else repr([ToolCall(name, args) for name, args in found])


@pytest.mark.parametrize(
    "text",
    [
        '[pois(slug="bochum", type="kindergarten")]',
        "[compare(cities=['cottbus', 'ingolstadt'], resource='unemployment')]",
        "weather(slug='bonn')",
        "stations(slug='koeln', limit=5, q=None, flag=True, ratio=-0.5, big=1e5)",
        "[a.b.c(x={'k': [1, 2, {'n': null}]}, y=false), list_cities()]",
        """[weather(slug="it's", q='say "hi"')]""",
        "[weather(\n  slug='bonn',\n  extra=[\n 1,\n 2]\n)]",
        "[weather\n(slug='bonn')]",
        "sources()",
        "weather(slug='\u00a0 ä ﬁ # x')",  # any character but a quote, backslash or newline
    ],
)
def test_common_calls_take_the_fast_path_and_agree(text: str) -> None:
    fast = by_fast(text)
    assert fast is not None, text
    assert fast == by_ast(text)


@pytest.mark.parametrize(
    "text",
    [
        "weather\n(slug='bonn')",  # two statements to Python: not a call
        "weather(slug='a\\nb')",  # escapes: ast decides
        "weather(slug='a' 'b')",  # implicit concatenation
        "weather(slug=r'x')",
        "weather(slug=b'x')",
        "weather(slug=(1, 2))",  # a tuple
        "weather(slug=1,)",  # a trailing comma
        "weather(slug=[1, 2,])",
        "weather(slug=01)",
        "weather(slug=1_000)",
        "weather(slug=0x1f)",
        "weather(slug=.5)",
        "weather(slug=1e999)",
        "weather(slug=- 1)",
        "weather(slug=1, slug=2)",  # repeated keyword: a syntax error
        "weather(class=1)",
        "True(x=1)",
        "print(weather(slug='bonn'))",
        "weather('bonn')",  # positional
        "weather(**{'slug': 'bonn'})",
        "weather(slug=bonn)",  # a name, not a literal
        "weather(slug={1: 2})",
        "weather(slug='bonn') # comment",
        "weather(slug='bonn');",
        "weather(slug='bonn')\nair_quality(slug='bonn')",
        "[weather(slug='bonn')]\n[air_quality(slug='bonn')]",
        "a.b.c.d.e.f.g.h.i.j(x=1)",
        "weather(slug=\u00a01)",
        "weather(slug='\x00')",
        "weather(slug='\ud800')",
        "wetter_ﬁ(x=1)",  # NFKC-normalised by Python: ast decides
        "[" * 20 + "weather(x=1)" + "]" * 20,
        "weather(x=" + "[" * 20 + "]" * 20 + ")",
    ],
)
def test_anything_else_falls_back_to_ast(text: str) -> None:
    assert by_fast(text) is None


keys = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
names = st.from_regex(r"[a-z_][a-z0-9_]{0,8}(\.[a-z_][a-z0-9_]{0,5}){0,9}", fullmatch=True)
PIECES = (
    "'", '"', "\\", "\n", " ", "\t", "\r", "\f", "\x00", "\u00a0", "#", ",", "(", ")", "[",
    "]", "{", "}", ":", "=", "-", ".", "e", "E", "+", "_", "0", "00", "1", "9", "1e999",
    "True", "None", "null", "false", "print", "class", "r", "b", "ä", "ﬁ", "x", "'x'", '"y"',
)  # fmt: skip
pieces = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
literal_texts = st.recursive(
    st.sampled_from(["1", "-2", "0.5", "1e3", "True", "None", "null", "'s'", '"d"', "''"]) | pieces,
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
        | st.lists(st.tuples(st.sampled_from(["'k'", '"k"', "1", "k"]), inner), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        )
    ),
    max_leaves=8,
)
calls = st.builds(
    lambda name, kw, sep: name + "(" + sep.join(f"{k}={v}" for k, v in kw) + ")",
    names,
    st.lists(st.tuples(keys, literal_texts), max_size=4),
    st.sampled_from([", ", ",", ",\n", " , "]),
)
texts = st.one_of(
    calls,
    st.lists(calls, min_size=1, max_size=3).map(lambda cs: "[" + ", ".join(cs) + "]"),
    st.tuples(calls, pieces).map("".join),
    st.tuples(pieces, calls).map("".join),
)


@FUZZ
@given(texts)
def test_fast_path_agrees_with_ast_whenever_it_answers(text: str) -> None:
    fast = by_fast(text)
    if fast is not None:
        assert fast == by_ast(text)


def test_the_parser_reads_the_fast_path() -> None:
    result = parse_text("[compare(cities=['cottbus', 'ingolstadt'], resource='unemployment')]")
    assert result.extractor == "pythonic"
    assert result.first == ToolCall(
        "compare", {"cities": ["cottbus", "ingolstadt"], "resource": "unemployment"}
    )
