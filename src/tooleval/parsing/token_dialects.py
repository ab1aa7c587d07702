"""Extractors for dialects built from special tokens (never written in prose).

- ``kimi``: Kimi K2 ``<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
  <|tool_call_argument_begin|>{...}<|tool_call_end|><|tool_calls_section_end|>``; the call id
  ``functions.NAME:INDEX`` is the format's own, so its prefix and index are always removed.
- ``function_gemma``: FunctionGemma ``<start_function_call>call:NAME{key:<escape>text<escape>,
  n:5}<end_function_call>``: keys are bare, strings sit between ``<escape>`` tokens, numbers,
  ``true``/``false``, lists ``[...]`` and nested ``{...}`` are written bare.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from tooleval.parsing._decode import MAX_DEPTH
from tooleval.parsing._markup import NAME, blocks
from tooleval.parsing._schema import Tools
from tooleval.parsing._shapes import Broken, Item, Skipped, call_item, named_call

_KIMI_ARGUMENTS: Final = "<|tool_call_argument_begin|>"
_KIMI_INDEX: Final = re.compile(r":\d{1,9}$")
_GEMMA_HEADER: Final = re.compile(r"\s*call:\s*([A-Za-z_][\w.\-]{0,199})\s*(?=\{)")
_ESCAPE: Final = "<escape>"
_SPACE: Final = re.compile(r"\s*")
_BARE_KEY: Final = re.compile(r"\s*([^\s:{}\[\],<>]{1,200})\s*:")
_BARE_VALUE: Final = re.compile(r"[^,{}\[\]<>]{0,400}")
_NUMBER: Final = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?")
_WORDS: Final[dict[str, Any]] = {"true": True, "false": False, "null": None}


def _kimi_name(header: str) -> str | None:
    name = _KIMI_INDEX.sub("", header.strip()).removeprefix("functions.")
    return name if NAME.fullmatch(name) else None


def extract_kimi(text: str, tools: Tools) -> list[Item]:
    """Kimi K2 tool-call tokens: ``functions.NAME:INDEX``, then the arguments JSON."""
    if "<|tool_call_begin|>" not in text:
        return []
    items: list[Item] = []
    for block in blocks(text, "<|tool_call_begin|>", "<|tool_call_end|>"):
        split = text.find(_KIMI_ARGUMENTS, block.start, block.end)
        header = text[block.start : block.end if split < 0 else split]
        name = _kimi_name(header)
        if name is None:
            items.append(Skipped("no_tool_name"))
        elif split < 0:
            items.append(Broken("invalid_arguments_json"))
        else:
            items.append(named_call(name, text[split + len(_KIMI_ARGUMENTS) : block.end]))
    return items


class _Malformed(ValueError):
    """FunctionGemma argument text that does not follow the format."""


class _TooDeep(ValueError):
    """FunctionGemma arguments nested deeper than ``MAX_DEPTH``."""


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return pos if match is None else match.end()


def _gemma_value(text: str, pos: int, depth: int) -> tuple[Any, int]:
    pos = _skip_space(text, pos)
    if text.startswith(_ESCAPE, pos):
        end = text.find(_ESCAPE, pos + len(_ESCAPE))
        if end < 0:
            raise _Malformed("unclosed <escape>")
        return text[pos + len(_ESCAPE) : end], end + len(_ESCAPE)
    if text.startswith("{", pos):
        return _gemma_object(text, pos, depth + 1)
    if text.startswith("[", pos):
        return _gemma_list(text, pos, depth + 1)
    match = _BARE_VALUE.match(text, pos)
    token = "" if match is None else match.group().strip()
    if not token or match is None:
        raise _Malformed("missing value")
    return _bare(token), match.end()


def _bare(token: str) -> Any:
    if token in _WORDS:
        return _WORDS[token]
    if not _NUMBER.fullmatch(token):
        return token
    if not any(c in token for c in ".eE"):
        return int(token)
    value = float(token)
    return value if math.isfinite(value) else token


def _gemma_key(text: str, pos: int) -> tuple[str, int]:
    pos = _skip_space(text, pos)
    if text.startswith(_ESCAPE, pos):
        end = text.find(_ESCAPE, pos + len(_ESCAPE))
        colon = _skip_space(text, end + len(_ESCAPE)) if end >= 0 else -1
        if colon < 0 or not text.startswith(":", colon):
            raise _Malformed("bad key")
        return text[pos + len(_ESCAPE) : end], colon + 1
    match = _BARE_KEY.match(text, pos)
    if match is None:
        raise _Malformed("bad key")
    return match.group(1), match.end()


def _after_item(text: str, pos: int, closer: str) -> tuple[bool, int]:
    """Past a separator: (True, pos) at the closer, (False, pos) after a comma."""
    pos = _skip_space(text, pos)
    if text.startswith(closer, pos):
        return True, pos + 1
    if text.startswith(",", pos):
        return False, pos + 1
    raise _Malformed(f"expected ',' or {closer!r}")


def _gemma_object(text: str, pos: int, depth: int) -> tuple[dict[str, Any], int]:
    if depth > MAX_DEPTH:
        raise _TooDeep("too deep")
    result: dict[str, Any] = {}
    pos += 1
    while True:
        pos = _skip_space(text, pos)
        if text.startswith("}", pos):
            return result, pos + 1
        key, pos = _gemma_key(text, pos)
        result[key], pos = _gemma_value(text, pos, depth)
        done, pos = _after_item(text, pos, "}")
        if done:
            return result, pos


def _gemma_list(text: str, pos: int, depth: int) -> tuple[list[Any], int]:
    if depth > MAX_DEPTH:
        raise _TooDeep("too deep")
    result: list[Any] = []
    pos += 1
    while True:
        pos = _skip_space(text, pos)
        if text.startswith("]", pos):
            return result, pos + 1
        value, pos = _gemma_value(text, pos, depth)
        result.append(value)
        done, pos = _after_item(text, pos, "]")
        if done:
            return result, pos


def _gemma_call(body: str) -> Item:
    header = _GEMMA_HEADER.match(body)
    if header is None:
        return Skipped("no_tool_name")
    try:
        arguments, _ = _gemma_object(body, header.end(), 1)
    except _TooDeep:
        return Broken("too_deep")
    except _Malformed:
        return Broken("invalid_arguments_json")
    return call_item(header.group(1), arguments)


def extract_function_gemma(text: str, tools: Tools) -> list[Item]:
    """FunctionGemma ``<start_function_call>call:NAME{...}<end_function_call>``."""
    if "<start_function_call>" not in text:
        return []
    found = blocks(text, "<start_function_call>", "<end_function_call>")
    return [_gemma_call(text[block.start : block.end]) for block in found]
