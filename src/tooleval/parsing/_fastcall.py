"""A fast reader for the pythonic calls models usually write, ahead of ``ast``.

``[name(key="value", n=2, flag=True, items=["a", "b"], map={"k": 1}), other(...)]`` and a bare
``name(key=...)``: dotted ASCII names, keyword arguments only, values that are strings without
backslashes, decimal numbers, ``True``/``False``/``None`` (and ``true``/``false``/``null``),
lists and dicts with string keys, nested a few levels. ``fast_calls`` returns the calls, or None
for any other text (tuples, trailing commas, escapes, comments, one call per line, ``print``,
...): the caller then reads it with ``ast``. For every text it accepts, it returns what the
``ast`` path returns (a property test checks this); it only saves Python's parser (about
20 µs a call).
"""

from __future__ import annotations

import keyword
import math
import re
from typing import Any, Final

from tooleval.parsing._literal import NAMED_LITERALS

_TOKEN: Final = re.compile(
    r"[ \t\f\r\n]*(?:"
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|(?P<string>\"[^\"\\\n\r\x00]*\"|'[^'\\\n\r\x00]*')"
    r"|(?P<number>-?(?:0|[1-9][0-9]{0,99})(?:\.[0-9]{1,100})?(?:[eE][+-]?[0-9]{1,4})?)"
    r"|(?P<punct>[\[\](){},=:])"
    r"|(?P<other>[\s\S]))"
)
_UNSAFE: Final = re.compile(r"[\x00\ud800-\udfff]")
"""NUL and lone surrogates make Python's parser refuse the whole text, even inside a string.
(A comment, a backslash or any other character outside a token ends the fast path anyway.)"""
_MAX_NESTING: Final = 16
_MAX_PARTS: Final = 8
_NO_NEWLINE_BEFORE_PAREN: Final = re.compile(r"[A-Za-z0-9_.]+[ \t\f]*\(")

Token = tuple[str, str]
Call = tuple[str, dict[str, Any]]


class _Fallback(Exception):
    """The text is not in the fast subset; ``ast`` reads it."""


def _tokens(text: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind is None:  # trailing whitespace only
            break
        if kind == "other":
            raise _Fallback
        tokens.append((kind, match.group(kind)))
    return tokens


class _Reader:
    """Recursive descent over the tokens; any surprise raises ``_Fallback``."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> Token:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self, kind: str, text: str | None = None) -> str:
        token = self.peek()
        if token[0] != kind or (text is not None and token[1] != text):
            raise _Fallback
        self.pos += 1
        return token[1]

    def at(self, text: str) -> bool:
        return self.peek() == ("punct", text)

    def calls(self) -> list[Call]:
        if not self.at("["):
            found = [self.call()]
        else:
            self.take("punct", "[")
            found = [self.call()]
            while self.at(","):
                self.take("punct", ",")
                found.append(self.call())
            self.take("punct", "]")
        self.take("end")
        return found

    def call(self) -> Call:
        name = self.take("name")
        parts = name.split(".")
        if name == "print" or len(parts) > _MAX_PARTS or any(map(keyword.iskeyword, parts)):
            raise _Fallback
        self.take("punct", "(")
        arguments: dict[str, Any] = {}
        while not self.at(")"):
            if arguments:
                self.take("punct", ",")
            key = self.take("name")
            if "." in key or keyword.iskeyword(key) or key in arguments:
                raise _Fallback
            self.take("punct", "=")
            arguments[key] = self.value(1)
        self.take("punct", ")")
        return name, arguments

    def value(self, depth: int) -> Any:
        kind, text = self.peek()
        self.pos += 1
        if kind == "string":
            return text[1:-1]
        if kind == "number":
            return _number(text)
        if kind == "name" and text in NAMED_LITERALS:
            return NAMED_LITERALS[text]
        if kind == "punct" and text in "[{" and depth < _MAX_NESTING:
            return self.list(depth + 1) if text == "[" else self.dict(depth + 1)
        raise _Fallback

    def list(self, depth: int) -> list[Any]:
        items: list[Any] = []
        while not self.at("]"):
            if items:
                self.take("punct", ",")
            items.append(self.value(depth))
        self.take("punct", "]")
        return items

    def dict(self, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first = True
        while not self.at("}"):
            if not first:
                self.take("punct", ",")
            first = False
            key = self.take("string")[1:-1]
            self.take("punct", ":")
            result[key] = self.value(depth)
        self.take("punct", "}")
        return result


def _number(text: str) -> int | float:
    if not any(char in text for char in ".eE"):
        return int(text)
    value = float(text)
    if not math.isfinite(value):
        raise _Fallback
    return value


def fast_calls(stripped: str) -> list[Call] | None:
    """The calls in ``stripped`` (text without surrounding whitespace) when it is in the fast
    subset (see module doc); None otherwise."""
    if _UNSAFE.search(stripped) is not None:
        return None
    if not stripped.startswith("[") and _NO_NEWLINE_BEFORE_PAREN.match(stripped) is None:
        return None  # a bare call split over lines before its "(" is two statements to Python
    try:
        return _Reader(_tokens(stripped)).calls()
    except (_Fallback, ValueError):
        return None
