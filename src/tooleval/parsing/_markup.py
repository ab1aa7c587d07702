"""Bounded scanning for tag-delimited dialects: blocks between markers, and where a call may
start.

Every helper walks the text once with ``str.find``: a block ends at its closing marker, the
next opening marker or the end of the text, whichever comes first, so unclosed markers never
make the work quadratic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

LOOKBACK: Final = 80
"""Characters looked at before a marker to decide whether it starts a line or follows a wrapper."""
NAME: Final = re.compile(r"[A-Za-z_][\w.\-]{0,199}")
"""A tool name as the dialects write it (namespace dots and hyphens allowed)."""


@dataclass(frozen=True)
class Block:
    """``text[start:end]`` after an opening marker at ``opened``; ``closed`` when the closing
    marker ended it (not the next opener or the end of the text)."""

    opened: int
    start: int
    end: int
    closed: bool


def positions(text: str, marker: str, start: int = 0, end: int = -1) -> list[int]:
    """Every index of ``marker`` in ``text[start:end]``, in order (non-overlapping)."""
    end = len(text) if end < 0 else end
    found: list[int] = []
    pos = text.find(marker, start, end)
    while pos >= 0:
        found.append(pos)
        pos = text.find(marker, pos + len(marker), end)
    return found


def blocks(text: str, opener: str, closer: str) -> list[Block]:
    """The text after each ``opener`` up to its ``closer``, the next ``opener`` or the end."""
    starts = positions(text, opener)
    limits = [*starts[1:], len(text)]
    result: list[Block] = []
    for opened, limit in zip(starts, limits, strict=True):
        start = opened + len(opener)
        close = text.find(closer, start, limit)
        result.append(Block(opened, start, limit if close < 0 else close, close >= 0))
    return result


def starts_call(text: str, pos: int, wrappers: tuple[str, ...]) -> bool:
    """Whether a marker at ``pos`` begins a call: first on its line (after indentation), or
    right after one of ``wrappers`` (the dialect's opening tag or the end of a previous call).

    A marker in the middle of a sentence is a mention, not a call.
    """
    window_start = max(0, pos - LOOKBACK)
    before = text[window_start:pos].rstrip(" \t")
    if not before:
        return window_start == 0
    if before.endswith("\n"):
        return True
    return before.rstrip().endswith(wrappers)


def trim_newline(value: str) -> str:
    """A parameter value without the one newline that templates put on each side."""
    if value.startswith("\r\n"):
        value = value[2:]
    elif value.startswith("\n"):
        value = value[1:]
    if value.endswith("\r\n"):
        return value[:-2]
    return value[:-1] if value.endswith("\n") else value
