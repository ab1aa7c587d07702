"""Extractors for the XML-parameter dialects, where a call is markup and values are text.

- ``xml_function``: ``<function=NAME>`` blocks. Qwen3-Coder and Seed-OSS write one
  ``<parameter=KEY>VALUE</parameter>`` per argument (inside ``<tool_call>`` or
  ``<seed:tool_call>``); Llama 3.1's custom-tool format writes a JSON object as the body.
- ``xml_invoke``: ``<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>``
  (MiniMax-M2 inside ``<minimax:tool_call>``; the ``<function_calls>`` form).
- ``glm``: GLM-4.5/4.6 ``<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>``
  (and GLM-4's older ``<tool_call>NAME`` + newline + arguments JSON).

A call counts only where the dialect puts one: first on its line or right after its wrapper
tag, so ``<function=...>`` in the middle of a sentence is a mention. Parameter values are
converted by the offered tool's JSON Schema (``tooleval.parsing._schema.coerce_value``); a
value that runs into the end of the text (cut off) makes the call broken.
"""

from __future__ import annotations

import re
from typing import Any, Final

from tooleval.parsing._markup import NAME, Block, blocks, positions, starts_call, trim_newline
from tooleval.parsing._schema import Tools, coerce_value, tool_properties
from tooleval.parsing._shapes import Broken, Item, call_item, named_call

_FUNCTION_HEADER: Final = re.compile(r"<function=([A-Za-z_][\w.\-]{0,199})>")
_FUNCTION_WRAPPERS: Final = ("<tool_call>", "<seed:tool_call>", "</function>", "</tool_call>")
_PARAMETER_HEADER: Final = re.compile(r"<parameter=([^<>\n]{1,200})>")
_ATTRIBUTE: Final = (
    r"\s{1,50}name\s{0,5}=\s{0,5}"
    r"(?:\"([^\"<>\n]{1,200})\"|'([^'<>\n]{1,200})'|([^\s\"'<>]{1,200}))\s{0,5}>"
)
_INVOKE_HEADER: Final = re.compile(r"<invoke" + _ATTRIBUTE)
_INVOKE_PARAMETER: Final = re.compile(r"<parameter" + _ATTRIBUTE)
_INVOKE_WRAPPERS: Final = ("<minimax:tool_call>", "<function_calls>", "</invoke>")
_GLM_WRAPPERS: Final = ("</tool_call>", "</think>")

Pairs = list[tuple[str, str]]


def _typed_call(name: str, pairs: Pairs, tools: Tools) -> Item:
    """A call from text values, each converted by the offered tool's schema."""
    properties = tool_properties(tools, name) or {}
    arguments: dict[str, Any] = {
        key: coerce_value(value, properties.get(key)) for key, value in pairs
    }
    return call_item(name, arguments)


def _parameter_pairs(body: str, header: re.Pattern[str], complete: bool) -> Pairs | Broken:
    """``KEY -> text`` for each parameter in ``body``; the first must start the body.

    A value ends at ``</parameter>``, else at the next parameter, else at the end of the body,
    which is only accepted when the call itself was closed (``complete``).
    """
    starts = positions(body, "<parameter")
    if not starts or body[: starts[0]].strip():
        return Broken("invalid_arguments_json")
    pairs: Pairs = []
    for start, limit in zip(starts, [*starts[1:], len(body)], strict=True):
        match = header.match(body, start)
        if match is None:
            return Broken("invalid_arguments_json")
        close = body.find("</parameter>", match.end(), limit)
        if close < 0 and limit == len(body) and not complete:
            return Broken("invalid_arguments_json")
        value = body[match.end() : limit if close < 0 else close]
        key = next(group for group in match.groups() if group is not None)
        pairs.append((key.strip(), trim_newline(value)))
    return pairs


def _function_call(text: str, block: Block, tools: Tools) -> Item | None:
    header = _FUNCTION_HEADER.match(text, block.opened)
    if header is None or not starts_call(text, block.opened, _FUNCTION_WRAPPERS):
        return None
    name = header.group(1)
    body = text[header.end() : block.end]
    stripped = body.strip()
    if stripped.startswith("{"):
        return named_call(name, stripped)
    if not stripped:
        return call_item(name, {}) if block.closed else Broken("invalid_arguments_json")
    pairs = _parameter_pairs(body, _PARAMETER_HEADER, block.closed)
    return pairs if isinstance(pairs, Broken) else _typed_call(name, pairs, tools)


def extract_xml_function(text: str, tools: Tools) -> list[Item]:
    """``<function=NAME>`` calls: parameter markup (Qwen3-Coder, Seed-OSS) or a JSON body."""
    if "<function=" not in text:
        return []
    found = (
        _function_call(text, block, tools) for block in blocks(text, "<function=", "</function>")
    )
    return [item for item in found if item is not None]


def _invoke_call(text: str, block: Block, tools: Tools) -> Item | None:
    header = _INVOKE_HEADER.match(text, block.opened)
    if header is None or not starts_call(text, block.opened, _INVOKE_WRAPPERS):
        return None
    name = next(group for group in header.groups() if group is not None).strip()
    body = text[header.end() : block.end]
    if not body.strip():
        return call_item(name, {}) if block.closed else Broken("invalid_arguments_json")
    pairs = _parameter_pairs(body, _INVOKE_PARAMETER, block.closed)
    return pairs if isinstance(pairs, Broken) else _typed_call(name, pairs, tools)


def extract_xml_invoke(text: str, tools: Tools) -> list[Item]:
    """``<invoke name=...>`` calls with ``<parameter name=...>`` values (MiniMax, Claude-style)."""
    if "<invoke" not in text:
        return []
    found = (_invoke_call(text, block, tools) for block in blocks(text, "<invoke", "</invoke>"))
    return [item for item in found if item is not None]


def _glm_pairs(body: str, complete: bool) -> Pairs | Broken:
    pairs: Pairs = []
    starts = positions(body, "<arg_key>")
    for start, limit in zip(starts, [*starts[1:], len(body)], strict=True):
        key_end = body.find("</arg_key>", start, limit)
        value_open = body.find("<arg_value>", key_end, limit) if key_end >= 0 else -1
        if value_open < 0 or body[key_end + len("</arg_key>") : value_open].strip():
            return Broken("invalid_arguments_json")
        value_start = value_open + len("<arg_value>")
        close = body.find("</arg_value>", value_start, limit)
        if close < 0 and (limit < len(body) or not complete):
            return Broken("invalid_arguments_json")
        key = body[start + len("<arg_key>") : key_end].strip()
        pairs.append((key, trim_newline(body[value_start : limit if close < 0 else close])))
    return pairs


def _glm4_call(body: str) -> Item | None:
    """GLM-4 (9B, 0414): the name on the first line, the arguments JSON below it."""
    name, newline, rest = body.strip().partition("\n")
    if not newline or NAME.fullmatch(name.strip()) is None or not rest.lstrip().startswith("{"):
        return None
    return named_call(name.strip(), rest)


def _glm_call(text: str, block: Block, tools: Tools) -> Item | None:
    body = text[block.start : block.end]
    first_key = body.find("<arg_key>")
    head = (body if first_key < 0 else body[:first_key]).strip()
    if NAME.fullmatch(head) is None:
        return _glm4_call(body) if first_key < 0 else None
    if first_key < 0:  # a bare name: a call only where GLM puts one, not inside a sentence
        placed = starts_call(text, block.opened, _GLM_WRAPPERS)
        return call_item(head, {}) if block.closed and placed else None
    pairs = _glm_pairs(body[first_key:], block.closed)
    return pairs if isinstance(pairs, Broken) else _typed_call(head, pairs, tools)


def extract_glm(text: str, tools: Tools) -> list[Item]:
    """GLM-4.5/4.6 ``<tool_call>NAME`` followed by ``<arg_key>``/``<arg_value>`` pairs."""
    if "<tool_call>" not in text:
        return []
    found = (_glm_call(text, block, tools) for block in blocks(text, "<tool_call>", "</tool_call>"))
    return [item for item in found if item is not None]
