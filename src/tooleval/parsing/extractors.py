"""The ordered text extractors. Each is a small function from text (and the offered tools)
to call items.

An extractor returns an empty list when the text holds nothing of its kind ("not
applicable"), otherwise the items it found in document order: tool calls, and candidates
that failed (``Skipped``/``Broken``). ``tooleval.parsing`` tries them in ``EXTRACTORS`` order
and keeps the first that yields a call. This module holds the JSON family; the other
dialects live in ``pythonic``, ``xml_dialects``, ``token_dialects`` and ``header_dialects``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from tooleval.parsing._decode import Decoded, decode_json, decode_prefix
from tooleval.parsing._literal import decode_loose
from tooleval.parsing._scan import (
    Span,
    fence_blocks,
    fence_body,
    object_spans,
    tag_pattern,
    tag_segments,
)
from tooleval.parsing._schema import Tools
from tooleval.parsing._shapes import EXACT, Item, Skipped, call_items, is_exact_form, named_call
from tooleval.parsing.header_dialects import extract_functionary, extract_react
from tooleval.parsing.pythonic import extract_pythonic, looks_like_call
from tooleval.parsing.token_dialects import extract_function_gemma, extract_kimi
from tooleval.parsing.xml_dialects import (
    extract_glm,
    extract_xml_function,
    extract_xml_invoke,
    extract_xml_tags,
)

Extractor = Callable[[str, Tools], list[Item]]

# Opening tags of chat-template tool-call formats and the markers that end their body.
# Hermes/Qwen ``<tool_call>``, ``<function_call>``, Glaive ``<functioncall>``, Phi/Granite
# ``<|tool_call|>``, Mistral ``[TOOL_CALLS]``, Llama 3.1 ``<|python_tag|>``.
TAG_OPENERS: Final = (
    "<tool_call>",
    "<function_call>",
    "<functioncall>",
    "<|tool_call|>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
)
TAG_CLOSERS: Final = (
    "</tool_call>",
    "</function_call>",
    "</functioncall>",
    "<|/tool_call|>",
    "</s>",
    "<|eom_id|>",
    "<|eot_id|>",
)
_TAGS: Final = tag_pattern(TAG_OPENERS, TAG_CLOSERS)
_OPENERS: Final = tag_pattern(TAG_OPENERS, ())
_OPENER_SET: Final = frozenset(TAG_OPENERS)
# DeepSeek V3: ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` + a ```json fence;
# V3.1+: ``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}``; both end ``<｜tool▁call▁end｜>``.
_DEEPSEEK_BEGIN: Final = "<｜tool▁call▁begin｜>"
_DEEPSEEK_TAGS: Final = tag_pattern((_DEEPSEEK_BEGIN,), ("<｜tool▁call▁end｜>",))
_DEEPSEEK_NAME: Final = re.compile(
    r"\s*(?:function<｜tool▁sep｜>\s*([\w.\-]+)|([\w.\-]+)\s*<｜tool▁sep｜>)"
)
# gpt-oss (harmony): ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}``.
_HARMONY_CALL: Final = re.compile(
    r"to=functions\.([\w.\-]+)(?:[^\n<]|<\|(?:channel|constrain)\|>){0,200}?<\|message\|>"
)
# Mistral's newer template: ``[TOOL_CALLS]name[ARGS]{...}`` (optionally ``[CALL_ID]id``).
_MISTRAL_NAMED: Final = re.compile(r"\s*([\w.\-]+)\s*(?:\[CALL_ID\]\s*[\w\-]+\s*)?\[ARGS\]")


def _decode_piece(text: str) -> Decoded:
    """``text`` as one JSON value, else as one near-JSON literal."""
    decoded = decode_json(text)
    if decoded.reason == "invalid_json":
        return decode_loose(text)
    return decoded


def _segment_items(segment: str) -> list[Item]:
    """Items in a piece of text: the whole piece as (near-)JSON, else each ``{...}`` in it.

    A piece shaped like a list (``[`` ... ``]``) that does not decode is not mined for the
    objects inside it: that would read a call out of a broken list.
    """
    stripped = segment.strip()
    if stripped[:1] in ("{", "["):
        decoded = _decode_piece(stripped)
        if decoded.reason is None:
            return list(call_items(decoded.value))
        if decoded.reason == "too_deep" or (stripped[0] == "[" and stripped[-1] == "]"):
            return [Skipped(decoded.reason)]
    return [item for span in object_spans(segment) for item in _span_items(segment, span)]


def _span_items(text: str, span: Span) -> list[Item]:
    if span.decoded is not None:
        return _decoded_items(span.decoded)
    return _decoded_items(decode_loose(text[span.start : span.end]))


def _decoded_items(decoded: Decoded) -> list[Item]:
    if decoded.reason is not None:
        return [Skipped(decoded.reason)]
    return list(call_items(decoded.value))


def whole_json(text: str) -> Decoded | None:
    """The decoded value when the whole text is exactly one JSON value; None when it is not."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return None
    decoded, end = decode_prefix(stripped)
    if decoded.reason == "too_deep":
        return decoded
    if decoded.reason is not None or stripped[end:].strip():
        return None
    return decoded


def only_fence_body(text: str) -> str | None:
    """The body when the whole text is one triple-backtick fence; None otherwise."""
    stripped = text.strip()
    if len(stripped) < 6 or not stripped.startswith("```") or not stripped.endswith("```"):
        return None
    if stripped.count("```") != 2:
        return None
    return fence_body(stripped[3:-3])


def _whole_items(decoded: Decoded | None) -> list[Item]:
    """Items of a whole-text value, marked ``EXACT`` when it has the requested form."""
    if decoded is None:
        return []
    items = _decoded_items(decoded)
    return [*items, EXACT] if is_exact_form(decoded.value) else items


def extract_json_object(text: str, tools: Tools) -> list[Item]:
    """The whole text is exactly one JSON value (the fast path; tried first)."""
    return _whole_items(whole_json(text))


def extract_json_fence(text: str, tools: Tools) -> list[Item]:
    """The whole text is one code fence whose body is exactly one JSON value."""
    body = only_fence_body(text)
    return _whole_items(None if body is None else whole_json(body))


def extract_near_json(text: str, tools: Tools) -> list[Item]:
    """The whole text is one near-JSON literal: single quotes, trailing commas, ``True``,
    ``None``, tuples (read through ``ast``, never evaluated)."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "[") or stripped[-1:] not in ("}", "]"):
        return []
    if looks_like_call(stripped):  # [weather(...)] is for the pythonic extractor
        return []
    decoded = decode_loose(stripped)
    return [] if decoded.reason == "invalid_json" else _decoded_items(decoded)


def _mistral_named_items(segment: str) -> list[Item] | None:
    match = _MISTRAL_NAMED.match(segment)
    if match is None:
        return None
    return [named_call(match.group(1), segment[match.end() :])]


def extract_tagged(text: str, tools: Tools) -> list[Item]:
    """Bodies of chat-template tool-call tags, each read like a small text of its own."""
    if _OPENERS.search(text) is None:
        return []
    items: list[Item] = []
    for segment in tag_segments(text, _TAGS, _OPENER_SET):
        named = _mistral_named_items(segment)
        found = named if named is not None else _segment_items(segment)
        items.extend(found or [Skipped("no_json")])
    return items


def extract_deepseek(text: str, tools: Tools) -> list[Item]:
    """DeepSeek's tool-call tokens: the name in the header, the arguments after it."""
    if _DEEPSEEK_BEGIN not in text:
        return []
    items: list[Item] = []
    for segment in tag_segments(text, _DEEPSEEK_TAGS, frozenset((_DEEPSEEK_BEGIN,))):
        match = _DEEPSEEK_NAME.match(segment)
        if match is None:
            items.append(Skipped("no_tool_name"))
        else:
            name = match.group(1) or match.group(2)
            items.append(named_call(name, segment[match.end() :]))
    return items


def extract_harmony(text: str, tools: Tools) -> list[Item]:
    """gpt-oss harmony messages addressed ``to=functions.NAME``, arguments after ``<|message|>``."""
    if "to=functions." not in text:
        return []
    matches = list(_HARMONY_CALL.finditer(text))
    ends = [match.start() for match in matches[1:]] + [len(text)] if matches else []
    return [
        named_call(match.group(1), text[match.end() : end])
        for match, end in zip(matches, ends, strict=True)
    ]


def extract_code_fence(text: str, tools: Tools) -> list[Item]:
    """Bodies of triple-backtick fences (any or no language tag), in order."""
    items: list[Item] = []
    for block in fence_blocks(text):
        items.extend(_segment_items(block) or [Skipped("no_json")])
    return items


def extract_prose(text: str, tools: Tools) -> list[Item]:
    """Every balanced top-level ``{...}`` in the text, wherever it sits in the prose."""
    return _segment_items(text)


EXTRACTORS: Final[tuple[tuple[str, Extractor], ...]] = (
    ("json_object", extract_json_object),
    ("json_fence", extract_json_fence),
    ("near_json", extract_near_json),
    ("xml_function", extract_xml_function),
    ("xml_invoke", extract_xml_invoke),
    ("glm", extract_glm),
    ("xml_tags", extract_xml_tags),
    ("kimi", extract_kimi),
    ("function_gemma", extract_function_gemma),
    ("tag", extract_tagged),
    ("deepseek", extract_deepseek),
    ("harmony", extract_harmony),
    ("pythonic", extract_pythonic),
    ("react", extract_react),
    ("functionary", extract_functionary),
    ("code_fence", extract_code_fence),
    ("prose", extract_prose),
)
"""Text extractors in the order they are tried. The verdicts of the three whole-text
extractors (``json_object``, ``json_fence``, ``near_json``) are final when they apply."""

FINAL_EXTRACTORS: Final = frozenset({"json_object", "json_fence", "near_json"})
