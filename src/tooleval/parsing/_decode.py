"""Strict, bounded JSON decoding: standard JSON only, finite numbers, limited nesting."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Final

MAX_DEPTH: Final = 64
"""Deepest ``[``/``{`` nesting accepted; deeper JSON fails with ``too_deep`` (no recursion)."""

_STRUCTURAL: Final = re.compile(r'[\[\]{}"]')
_STRING_STOP: Final = re.compile(r'["\\]')


class _NonFiniteNumberError(ValueError):
    """A JSON number that is not a finite float (NaN, Infinity, 1e309)."""


def _refuse_constant(name: str) -> Any:
    raise _NonFiniteNumberError(f"{name} is not a JSON number")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _NonFiniteNumberError(f"{literal} overflows a float")
    return value


_DECODER: Final = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse_constant)


@dataclass(frozen=True)
class Decoded:
    """A decoded JSON value, or the reason it could not be decoded (``reason`` set)."""

    value: Any = None
    reason: str | None = None


INVALID_JSON: Final = Decoded(reason="invalid_json")
TOO_DEEP: Final = Decoded(reason="too_deep")
"""The two failures, shared (records are immutable; building one costs a microsecond)."""


def skip_string(text: str, pos: int, stop: re.Pattern[str] = _STRING_STOP) -> int:
    """Return the index just past the string whose body starts at ``pos`` (or ``len``):
    ``stop`` matches its closing quote or a backslash (default: a JSON string's)."""
    while True:
        match = stop.search(text, pos)
        if match is None:
            return len(text)
        if match.group() == "\\":
            pos = match.end() + 1
        else:
            return match.end()


def exceeds_depth(text: str, limit: int = MAX_DEPTH, start: int = 0, end: int = -1) -> bool:
    """True when ``[``/``{`` nest deeper than ``limit`` outside JSON strings in the range."""
    end = len(text) if end < 0 else end
    if text.count("{", start, end) + text.count("[", start, end) <= limit:
        return False
    depth = 0
    pos = start
    while True:
        match = _STRUCTURAL.search(text, pos, end)
        if match is None:
            return False
        char, pos = match.group(), match.end()
        if char == '"':
            pos = skip_string(text, pos)
        elif char in "{[":
            depth += 1
            if depth > limit:
                return True
        elif depth > 0:
            depth -= 1


def decode_at(text: str, start: int) -> tuple[Decoded, int]:
    """Decode the JSON value starting exactly at ``start``; also return where it ends.

    Nesting is checked on the decoded range only, so the cost is that of the value itself.
    """
    try:
        value, end = _DECODER.raw_decode(text, start)
    except RecursionError:
        return TOO_DEEP, start
    except ValueError:
        return INVALID_JSON, start
    if exceeds_depth(text, MAX_DEPTH, start, end):
        return TOO_DEEP, end
    return Decoded(value), end


def decode_prefix(text: str) -> tuple[Decoded, int]:
    """Decode the JSON value at the start of ``text``; also return where it ends."""
    return decode_at(text, 0)


def decode_json(text: str) -> Decoded:
    """Decode ``text`` as exactly one JSON value (surrounding whitespace allowed)."""
    stripped = text.strip()
    decoded, end = decode_at(stripped, 0)
    if decoded.reason is None and end != len(stripped):
        return INVALID_JSON
    return decoded
