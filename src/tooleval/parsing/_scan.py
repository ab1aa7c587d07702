"""Linear-time scanning of model text: balanced JSON spans, code fences and tag segments.

Candidates are decoded on the way when they are valid JSON (C speed); otherwise brackets are
followed in Python. Every function walks the text once, jumping between interesting
characters with ``str.find`` or a one-character-class regex, so the work is linear in the
length of the text whatever it contains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from tooleval.parsing._decode import Decoded, decode_at, skip_string

_STRUCTURAL: Final = re.compile(r'[\[\]{}"]')
MAX_CANDIDATES: Final = 512
"""JSON candidates one scan looks at; real outputs have a handful, so this only bounds junk."""
_CANDIDATE_START: Final = re.compile(r"\{|\[(?=\s*\{)")
_FENCE: Final = "```"
_FENCE_LANGUAGE: Final = re.compile(r"[A-Za-z0-9_+.\-]*")


@dataclass(frozen=True)
class Span:
    """A JSON candidate ``text[start:end]`` starting at ``{`` (or ``[{``).

    ``closed`` is False when the text ran out before the brackets balanced. ``decoded`` holds
    the outcome when the span was decoded on the way (valid JSON, or ``too_deep``); it is None
    for a span whose brackets balance but whose content is not JSON.
    """

    start: int
    end: int
    closed: bool
    decoded: Decoded | None = None


def _close_span(text: str, start: int) -> Span:
    """The candidate starting at ``start``: decoded at C speed when it is valid JSON, else
    found by following brackets (outside strings) until they balance or the text ends."""
    decoded, end = decode_at(text, start)
    if end > start:
        return Span(start, end, closed=True, decoded=decoded)
    return _walk_span(text, start, decoded if decoded.reason == "too_deep" else None)


def _walk_span(text: str, start: int, decoded: Decoded | None) -> Span:
    depth = 0
    pos = start
    while True:
        match = _STRUCTURAL.search(text, pos)
        if match is None:
            return Span(start, len(text), closed=False, decoded=decoded)
        char, pos = match.group(), match.end()
        if char == '"':
            pos = skip_string(text, pos)
        elif char in "{[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return Span(start, pos, closed=True, decoded=decoded)


def object_spans(text: str) -> list[Span]:
    """Top-level ``{...}`` (and ``[{...}...]``) candidates in ``text``, in order.

    Strings and escapes are respected inside a candidate; outside one the text is prose, so
    quotes there mean nothing. A list of objects is one candidate, so a broken list is not
    mined for the objects inside it. A candidate whose brackets never balance runs to the end
    of the text and ends the scan; so does the ``MAX_CANDIDATES``-th candidate.
    """
    spans: list[Span] = []
    pos = 0
    while len(spans) < MAX_CANDIDATES:
        found = _CANDIDATE_START.search(text, pos)
        if found is None:
            return spans
        span = _close_span(text, found.start())
        spans.append(span)
        if not span.closed:
            return spans
        pos = span.end
    return spans


def fence_body(block: str) -> str:
    """Drop the info string (``json``, ``tool_call``, ...) on a fence's first line."""
    newline = block.find("\n")
    first = block if newline < 0 else block[:newline]
    if _FENCE_LANGUAGE.fullmatch(first.strip()):
        return "" if newline < 0 else block[newline + 1 :]
    return block


def fence_blocks(text: str) -> list[str]:
    """Bodies of triple-backtick code fences, in order. An unclosed last fence runs to the end.

    Backticks inside a complete JSON candidate of the body do not close the fence. Once a
    candidate runs unclosed to the end of the text, or ``MAX_CANDIDATES`` candidates have been
    stepped over, later fences are taken as they come (that keeps the work linear and small).
    """
    blocks: list[str] = []
    pos = 0
    budget = MAX_CANDIDATES
    while True:
        opening = text.find(_FENCE, pos)
        if opening < 0:
            return blocks
        body_start = opening + len(_FENCE)
        closing, budget = _closing_fence(text, body_start, budget)
        body_end = len(text) if closing < 0 else closing
        blocks.append(fence_body(text[body_start:body_end]))
        if closing < 0:
            return blocks
        pos = closing + len(_FENCE)


def _closing_fence(text: str, pos: int, budget: int) -> tuple[int, int]:
    """The first fence at or after ``pos`` outside complete JSON candidates (or -1), and the
    candidates left to step over (0 after one ran to the end unclosed)."""
    fence = text.find(_FENCE, pos)
    while budget > 0:
        stop = len(text) if fence < 0 else fence
        candidate = _CANDIDATE_START.search(text, pos, stop)
        if candidate is None:
            break
        span = _close_span(text, candidate.start())
        if not span.closed:  # truncated JSON: the plain next fence closes the block
            return fence, 0
        budget -= 1
        pos = span.end
        if 0 <= fence < pos:  # that fence was inside the JSON
            fence = text.find(_FENCE, pos)
    return fence, budget


def tag_pattern(openers: tuple[str, ...], closers: tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching any of the tags, for ``tag_segments``."""
    return re.compile("|".join(re.escape(tag) for tag in (*openers, *closers)))


def tag_segments(text: str, tags: re.Pattern[str], openers: frozenset[str]) -> list[str]:
    """The text after each opening tag, up to the next opening or closing tag (or the end).

    ``tags`` matches every opening and closing tag (see ``tag_pattern``). Tags inside a
    complete JSON candidate of a segment are part of that JSON (``"</s>"`` in an argument
    cuts nothing); after a candidate runs unclosed to the end, or ``MAX_CANDIDATES`` have been
    stepped over, tags are taken as they come.
    """
    found = list(tags.finditer(text))
    segments: list[str] = []
    index = 0
    budget = MAX_CANDIDATES
    while index < len(found):
        if found[index].group() not in openers:
            index += 1
            continue
        start = found[index].end()
        index, budget = _skip_json_tags(text, found, index + 1, start, budget)
        end = found[index].start() if index < len(found) else len(text)
        segments.append(text[start:end])
    return segments


def _skip_json_tags(
    text: str, found: list[re.Match[str]], index: int, pos: int, budget: int
) -> tuple[int, int]:
    """Index of the first tag from ``pos`` outside complete JSON candidates, and the
    candidates left to step over (0 after one ran to the end unclosed)."""
    while budget > 0:
        tag_at = found[index].start() if index < len(found) else len(text)
        candidate = _CANDIDATE_START.search(text, pos, tag_at)
        if candidate is None:
            break
        span = _close_span(text, candidate.start())
        if not span.closed:  # truncated JSON: the next tag ends the segment
            return index, 0
        budget -= 1
        pos = span.end
        while index < len(found) and found[index].start() < pos:
            index += 1
    return index, budget
