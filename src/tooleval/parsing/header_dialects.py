"""Extractors for plain-text dialects: a tool name on a header line, its JSON arguments after.

- ``react``: the ReAct agent loop (LangChain's ReAct agents and the many models prompted or
  tuned on it): ``Action: NAME`` and, on the next line, ``Action Input: {...}``.
- ``functionary``: Functionary v3.2 ``>>>NAME`` + newline + ``{...}``, one after another for
  several calls; ``>>>all`` introduces plain text. The chat template ends the prompt with the
  first ``>>>``, so a raw completion may start with ``NAME`` + newline + ``{...}`` alone.

Both are ordinary words and symbols, so a header counts only when its name is an offered tool
(``_schema.is_offered``) and JSON (or near-JSON) arguments follow: ``Action: weather`` in an
explanation, ``>>>`` in a Python session or a tool name in prose stays text. Without offered
tools neither dialect is read.
"""

from __future__ import annotations

import re
from typing import Final

from tooleval.parsing._markup import NAME
from tooleval.parsing._schema import Tools, is_offered
from tooleval.parsing._shapes import Item, named_call

_REACT: Final = re.compile(
    r"^[ \t]*Action:[ \t]*(" + NAME.pattern + r")[ \t]*\r?\n[ \t]*Action Input:[ \t]*",
    re.MULTILINE,
)
_FUNCTIONARY: Final = re.compile(r">>>(" + NAME.pattern + r")[ \t]*\r?\n")
_FUNCTIONARY_FIRST: Final = re.compile(r"\s*(" + NAME.pattern + r")[ \t]*\r?\n(?=\s*\{)")
"""The first header of a completion whose ``>>>`` was the end of the prompt."""


def _offered_calls(text: str, headers: list[re.Match[str]], tools: Tools) -> list[Item]:
    """A call for each header that names an offered tool, its arguments up to the next."""
    if not headers:
        return []
    ends = [match.start() for match in headers[1:]] + [len(text)]
    return [
        named_call(match.group(1), text[match.end() : end])
        for match, end in zip(headers, ends, strict=True)
        if is_offered(match.group(1), tools)
    ]


def extract_react(text: str, tools: Tools) -> list[Item]:
    """ReAct ``Action: NAME`` / ``Action Input: {...}`` pairs naming offered tools."""
    if "Action Input:" not in text or not tools:
        return []
    return _offered_calls(text, list(_REACT.finditer(text)), tools)


def extract_functionary(text: str, tools: Tools) -> list[Item]:
    """Functionary v3.2 ``>>>NAME`` headers naming offered tools, each with a JSON body."""
    if not tools:
        return []
    first = _FUNCTIONARY_FIRST.match(text) if "{" in text else None
    if first is None and ">>>" not in text:
        return []
    headers = [] if first is None else [first]
    return _offered_calls(text, [*headers, *_FUNCTIONARY.finditer(text)], tools)
