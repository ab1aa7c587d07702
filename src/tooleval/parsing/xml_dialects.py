"""Extractors for the XML-parameter dialects, where a call is markup and values are text.

- ``xml_function``: ``<function=NAME>`` blocks. Qwen3-Coder and Seed-OSS write one
  ``<parameter=KEY>VALUE</parameter>`` per argument (inside ``<tool_call>`` or
  ``<seed:tool_call>``); Llama 3.1's custom-tool format writes a JSON object as the body.
- ``xml_invoke``: ``<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>``
  (MiniMax-M2 inside ``<minimax:tool_call>``; the ``<function_calls>`` form), the same tags
  with Step-3's ``steptml:`` prefix, and the older Anthropic prompt format
  ``<invoke><tool_name>NAME</tool_name><parameters><KEY>VALUE</KEY></parameters></invoke>``.
- ``xml_tags``: ``<tool_call><name>NAME</name><arguments>...</arguments></tool_call>``, the
  arguments JSON or one ``<KEY>VALUE</KEY>`` child per argument.
- ``glm``: GLM-4.5/4.6 ``<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>``
  (and GLM-4's older ``<tool_call>NAME`` + newline + arguments JSON).

A call counts only where the dialect puts one: first on its line or right after its wrapper
tag, so ``<function=...>`` in the middle of a sentence is a mention. Parameter values are
converted by the offered tool's JSON Schema (``tooleval.parsing._schema.coerce_value``); a
value that runs into the end of the text (cut off) makes the call broken.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
_INVOKE_WRAPPERS: Final = (
    "<minimax:tool_call>",
    "<function_calls>",
    "</invoke>",
    "<|tool_sep|>",
    "</steptml:invoke>",
)
_LEGACY_HEADER: Final = re.compile(
    r"<invoke>\s{0,50}<tool_name>\s{0,50}(" + NAME.pattern + r")\s{0,50}</tool_name>"
)
_CHILD: Final = re.compile(r"\s*<(" + NAME.pattern + r")>")
_NON_SPACE: Final = re.compile(r"\S")
_TAGGED_NAME: Final = re.compile(r"\s*<name>\s{0,50}(" + NAME.pattern + r")\s{0,50}</name>\s*")
_TAGGED_ARGUMENTS: Final = re.compile(r"<(arguments|parameters)>")
_GLM_WRAPPERS: Final = ("</tool_call>", "</think>")

Pairs = list[tuple[str, str]]


def _typed_call(name: str, pairs: Pairs, tools: Tools) -> Item:
    """A call from text values, each converted by the offered tool's schema."""
    properties = tool_properties(tools, name) or {}
    arguments: dict[str, Any] = {
        key: coerce_value(value, properties.get(key)) for key, value in pairs
    }
    return call_item(name, arguments)


@dataclass(frozen=True)
class InvokeTags:
    """The tags of one ``<invoke>`` flavour; ``legacy`` also reads ``<invoke><tool_name>``."""

    invoke: str
    parameter: str
    header: re.Pattern[str]
    parameter_header: re.Pattern[str]
    legacy: bool


def _invoke_tags(prefix: str) -> InvokeTags:
    invoke, parameter = f"<{prefix}invoke", f"<{prefix}parameter"
    header, parameter_header = re.compile(invoke + _ATTRIBUTE), re.compile(parameter + _ATTRIBUTE)
    return InvokeTags(invoke, parameter, header, parameter_header, legacy=not prefix)


INVOKE_FLAVOURS: Final = (_invoke_tags(""), _invoke_tags("steptml:"))
"""MiniMax-M2 and ``<function_calls>`` write plain tags; Step-3 prefixes them ``steptml:``."""


def _parameter_pairs(
    body: str, header: re.Pattern[str], complete: bool, opener: str = "<parameter"
) -> Pairs | Broken:
    """``KEY -> text`` for each parameter in ``body``; the first must start the body.

    A value ends at its closing tag, else at the next parameter, else at the end of the body,
    which is only accepted when the call itself was closed (``complete``).
    """
    closer = "</" + opener[1:] + ">"
    starts = positions(body, opener)
    if not starts or body[: starts[0]].strip():
        return Broken("invalid_arguments_json")
    pairs: Pairs = []
    for start, limit in zip(starts, [*starts[1:], len(body)], strict=True):
        match = header.match(body, start)
        if match is None:
            return Broken("invalid_arguments_json")
        close = body.find(closer, match.end(), limit)
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


def _child_pairs(body: str) -> Pairs | Broken:
    """``KEY -> text`` for each ``<KEY>VALUE</KEY>`` in ``body``, with only space between."""
    pairs: Pairs = []
    pos = 0
    while _NON_SPACE.search(body, pos) is not None:
        child = _CHILD.match(body, pos)
        if child is None:
            return Broken("invalid_arguments_json")
        closer = f"</{child.group(1)}>"
        close = body.find(closer, child.end())
        if close < 0:
            return Broken("invalid_arguments_json")
        pairs.append((child.group(1), trim_newline(body[child.end() : close])))
        pos = close + len(closer)
    return pairs


def _enclosed(body: str, opener: str, complete: bool) -> str | Broken:
    """The text of ``body`` between ``opener`` (which must start it) and its closing tag."""
    stripped = body.strip()
    closer = "</" + opener[1:]
    if not stripped.startswith(opener):
        return Broken("invalid_arguments_json")
    close = stripped.find(closer, len(opener))
    if close < 0:
        return stripped[len(opener) :] if complete else Broken("invalid_arguments_json")
    return stripped[len(opener) : close]


def _legacy_invoke_call(text: str, block: Block, tools: Tools) -> Item | None:
    """The older Anthropic prompt format: ``<tool_name>`` and ``<parameters>`` children."""
    header = _LEGACY_HEADER.match(text, block.opened)
    if header is None:
        return None
    name = header.group(1)
    body = text[header.end() : block.end]
    if not body.strip():
        return call_item(name, {}) if block.closed else Broken("invalid_arguments_json")
    inner = _enclosed(body, "<parameters>", False)
    pairs = inner if isinstance(inner, Broken) else _child_pairs(inner)
    return pairs if isinstance(pairs, Broken) else _typed_call(name, pairs, tools)


def _invoke_call(text: str, block: Block, tags: InvokeTags, tools: Tools) -> Item | None:
    if not starts_call(text, block.opened, _INVOKE_WRAPPERS):
        return None
    header = tags.header.match(text, block.opened)
    if header is None:
        return _legacy_invoke_call(text, block, tools) if tags.legacy else None
    name = next(group for group in header.groups() if group is not None).strip()
    body = text[header.end() : block.end]
    if not body.strip():
        return call_item(name, {}) if block.closed else Broken("invalid_arguments_json")
    pairs = _parameter_pairs(body, tags.parameter_header, block.closed, tags.parameter)
    return pairs if isinstance(pairs, Broken) else _typed_call(name, pairs, tools)


def extract_xml_invoke(text: str, tools: Tools) -> list[Item]:
    """``<invoke name=...>`` calls with ``<parameter name=...>`` values (MiniMax, Claude-style,
    Step-3's ``steptml:`` tags) and the older ``<tool_name>``/``<parameters>`` form."""
    if "invoke" not in text:
        return []
    for tags in INVOKE_FLAVOURS:
        if tags.invoke not in text:
            continue
        closer = "</" + tags.invoke[1:] + ">"
        found = (_invoke_call(text, b, tags, tools) for b in blocks(text, tags.invoke, closer))
        items = [item for item in found if item is not None]
        if items:
            return items
    return []


def _tagged_call(text: str, block: Block, tools: Tools) -> Item | None:
    header = _TAGGED_NAME.match(text, block.start, block.end)
    if header is None:
        return None
    name = header.group(1)
    body = text[header.end() : block.end]
    if not body.strip():  # a bare name, as GLM writes it: a call only where one is placed
        placed = starts_call(text, block.opened, _GLM_WRAPPERS)
        return call_item(name, {}) if block.closed and placed else None
    opener = _TAGGED_ARGUMENTS.match(body)
    if opener is None:
        return Broken("invalid_arguments_json")
    if body[opener.end() :].lstrip().startswith(("{", "`")):
        return named_call(name, body[opener.end() :])
    inner = _enclosed(body, opener.group(), block.closed)
    pairs = inner if isinstance(inner, Broken) else _child_pairs(inner)
    return pairs if isinstance(pairs, Broken) else _typed_call(name, pairs, tools)


def extract_xml_tags(text: str, tools: Tools) -> list[Item]:
    """``<tool_call>`` with ``<name>`` and ``<arguments>`` children (JSON or one tag a key)."""
    if "<name>" not in text or "<tool_call>" not in text:
        return []
    found = (_tagged_call(text, b, tools) for b in blocks(text, "<tool_call>", "</tool_call>"))
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
