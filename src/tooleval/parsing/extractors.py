"""The ordered text extractors. Each is a small function from text to call items.

An extractor returns an empty list when the text holds nothing of its kind ("not
applicable"), otherwise the items it found in document order: tool calls, and candidates
that failed (``Skipped``/``Broken``). ``tooleval.parsing`` tries them in ``EXTRACTORS`` order
and keeps the first that yields a call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from tooleval.parsing._decode import Decoded, decode_json, decode_prefix
from tooleval.parsing._scan import Span, fence_blocks, object_spans, tag_pattern, tag_segments
from tooleval.parsing._shapes import Broken, Item, Skipped, call_item, call_items

Extractor = Callable[[str], list[Item]]

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


def _segment_items(segment: str) -> list[Item]:
    """Items in a piece of text: the whole piece as JSON, else each ``{...}`` inside it.

    A piece shaped like a list (``[`` ... ``]``) that does not decode is not mined for the
    objects inside it: that would quietly repair e.g. a trailing comma.
    """
    stripped = segment.strip()
    if stripped[:1] in ("{", "["):
        decoded = decode_json(stripped)
        if decoded.reason is None:
            return list(call_items(decoded.value))
        if decoded.reason == "too_deep" or (stripped[0] == "[" and stripped[-1] == "]"):
            return [Skipped(decoded.reason)]
    return [item for span in object_spans(segment) for item in _span_items(span)]


def _span_items(span: Span) -> list[Item]:
    if span.decoded is not None:
        return _decoded_items(span.decoded)
    return [Skipped("invalid_json")]


def _decoded_items(decoded: Decoded) -> list[Item]:
    if decoded.reason is not None:
        return [Skipped(decoded.reason)]
    return list(call_items(decoded.value))


def extract_json_object(text: str) -> list[Item]:
    """The whole text is exactly one JSON value (the fast path; tried first)."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return []
    decoded, end = decode_prefix(stripped)
    if decoded.reason == "too_deep":
        return [Skipped("too_deep")]
    if decoded.reason is not None or stripped[end:].strip():
        return []
    return list(call_items(decoded.value))


def _named_call(name: str, rest: str) -> Item:
    """A call whose name sits in a template header and whose arguments JSON follows it."""
    body = rest.lstrip()
    if body.startswith("```"):
        blocks = fence_blocks(body)
        body = blocks[0].lstrip() if blocks else ""
    decoded, _ = decode_prefix(body)
    if decoded.reason is not None:
        return Broken("too_deep" if decoded.reason == "too_deep" else "invalid_arguments_json")
    if not isinstance(decoded.value, dict):
        return Broken("arguments_not_object")
    return call_item(name, decoded.value)


def _mistral_named_items(segment: str) -> list[Item] | None:
    match = _MISTRAL_NAMED.match(segment)
    if match is None:
        return None
    return [_named_call(match.group(1), segment[match.end() :])]


def extract_tagged(text: str) -> list[Item]:
    """Bodies of chat-template tool-call tags, each read like a small text of its own."""
    items: list[Item] = []
    for segment in tag_segments(text, _TAGS, _OPENER_SET):
        named = _mistral_named_items(segment)
        found = named if named is not None else _segment_items(segment)
        items.extend(found or [Skipped("no_json")])
    return items


def extract_deepseek(text: str) -> list[Item]:
    """DeepSeek's tool-call tokens: the name in the header, the arguments after it."""
    items: list[Item] = []
    for segment in tag_segments(text, _DEEPSEEK_TAGS, frozenset((_DEEPSEEK_BEGIN,))):
        match = _DEEPSEEK_NAME.match(segment)
        if match is None:
            items.append(Skipped("no_tool_name"))
        else:
            name = match.group(1) or match.group(2)
            items.append(_named_call(name, segment[match.end() :]))
    return items


def extract_harmony(text: str) -> list[Item]:
    """gpt-oss harmony messages addressed ``to=functions.NAME``, arguments after ``<|message|>``."""
    matches = list(_HARMONY_CALL.finditer(text))
    ends = [match.start() for match in matches[1:]] + [len(text)] if matches else []
    return [
        _named_call(match.group(1), text[match.end() : end])
        for match, end in zip(matches, ends, strict=True)
    ]


def extract_code_fence(text: str) -> list[Item]:
    """Bodies of triple-backtick fences (any or no language tag), in order."""
    items: list[Item] = []
    for block in fence_blocks(text):
        items.extend(_segment_items(block) or [Skipped("no_json")])
    return items


def extract_prose(text: str) -> list[Item]:
    """Every balanced top-level ``{...}`` in the text, wherever it sits in the prose."""
    return _segment_items(text)


EXTRACTORS: Final[tuple[tuple[str, Extractor], ...]] = (
    ("json_object", extract_json_object),
    ("tag", extract_tagged),
    ("deepseek", extract_deepseek),
    ("harmony", extract_harmony),
    ("code_fence", extract_code_fence),
    ("prose", extract_prose),
)
"""Text extractors in the order they are tried. ``json_object``'s verdict is final."""
