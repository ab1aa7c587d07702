"""A simple, deterministic check that a final answer states facts found in the tool results.

No judge model. From the final answer it reads *numbers* (``23,2``, ``1.234``, ``7``) and
*clock times* (``14:05``); from the tool results every number and time in any value, and every
string value of at least ``MIN_STRING`` characters.

- a number is *supported* when some result number rounds to it at the answer's precision
  (``23,2`` matches 23.24); German thousands separators are understood (``335.789``);
- a time is supported when it occurs in a result value (``2026-07-22T14:05:00Z``);
- a result string counts as a supported fact when the answer contains it (case-folded);
- numbers and strings that already occur in the question are neutral (neither).

A number or time that is not supported is *unsupported* (possibly invented). The answer is
grounded when it states at least one supported fact and no unsupported one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

MIN_STRING = 3
_TIME = re.compile(r"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?!\d)")
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
_THOUSANDS = re.compile(r"^\d{1,3}(?:\.\d{3})+$")


@dataclass(frozen=True)
class Evidence:
    """What the tool results said: numbers, clock times (``HH:MM``) and folded strings."""

    numbers: tuple[float, ...]
    times: frozenset[str]
    strings: frozenset[str]


@dataclass(frozen=True)
class Grounding:
    supported: int
    unsupported: int

    @property
    def grounded(self) -> bool:
        return self.supported > 0 and self.unsupported == 0


def leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def _times(text: str) -> set[str]:
    return {f"{int(h):02d}:{m}" for h, m in _TIME.findall(text)}


def number_candidates(token: str) -> list[tuple[float, int]]:
    """Readings of one number token as (value, decimals): ``1,5`` -> 1.5; ``1.234`` -> 1234."""
    readings: list[tuple[float, int]] = []
    if _THOUSANDS.match(token):
        readings.append((float(token.replace(".", "")), 0))
    plain = token.replace(",", ".")
    if plain.count(".") <= 1:
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        readings.append((float(plain), decimals))
    return readings


def evidence(bodies: Iterable[Any]) -> Evidence:
    numbers: list[float] = []
    times: set[str] = set()
    strings: set[str] = set()
    for body in bodies:
        for leaf in leaves(body):
            if isinstance(leaf, bool) or leaf is None:
                continue
            if isinstance(leaf, int | float):
                numbers.append(float(leaf))
                continue
            text = str(leaf)
            times |= _times(text)
            for token in _NUMBER.findall(text):
                numbers.extend(value for value, _ in number_candidates(token))
            if len(text.strip()) >= MIN_STRING:
                strings.add(text.strip().casefold())
    return Evidence(tuple(numbers), frozenset(times), frozenset(strings))


def _number_supported(token: str, numbers: tuple[float, ...]) -> bool:
    for value, decimals in number_candidates(token):
        if any(abs(round(abs(n), decimals) - value) < 1e-9 for n in numbers):
            return True
    return False


def check_answer(answer: str, found: Evidence, question: str) -> Grounding:
    """Count supported and unsupported facts in ``answer`` (see the module docstring)."""
    neutral_times = _times(question)
    neutral_numbers = set(_NUMBER.findall(_TIME.sub(" ", question)))
    supported = unsupported = 0
    for time in _times(answer) - neutral_times:
        supported, unsupported = (
            (supported + 1, unsupported) if time in found.times else (supported, unsupported + 1)
        )
    for token in _NUMBER.findall(_TIME.sub(" ", answer)):
        if token in neutral_numbers:
            continue
        if _number_supported(token, found.numbers):
            supported += 1
        else:
            unsupported += 1
    folded, asked = answer.casefold(), question.casefold()
    supported += sum(1 for s in found.strings if s in folded and s not in asked)
    return Grounding(supported, unsupported)
