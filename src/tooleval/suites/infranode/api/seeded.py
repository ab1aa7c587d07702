"""Deterministic stand-in values: seeded by strings through sha256, never by ``hash()``.

The same seed gives the same numbers on every run, machine and Python version, so replica
answers (and everything derived from them) are reproducible byte for byte.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def sha256_hex(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class Dice:
    """A reproducible stream of numbers for one seed (slug, resource, ...)."""

    def __init__(self, *seed: str) -> None:
        self._seed = "\x1e".join(seed)
        self._counter = 0

    def unit(self) -> float:
        """A number in [0, 1)."""
        digest = hashlib.sha256(f"{self._seed}#{self._counter}".encode()).digest()
        self._counter += 1
        return int.from_bytes(digest[:7], "big") / float(1 << 56)

    def uniform(self, low: float, high: float, digits: int = 1) -> float:
        return round(low + (high - low) * self.unit(), digits)

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high] (both inclusive)."""
        return low + int(self.unit() * (high - low + 1))

    def choice(self, options: Sequence[T]) -> T:
        return options[int(self.unit() * len(options))]

    def chance(self, probability: float) -> bool:
        return self.unit() < probability

    def sample(self, options: Sequence[T], count: int) -> list[T]:
        """``count`` distinct items (or all), in a seeded order."""
        pool = list(options)
        picked: list[T] = []
        while pool and len(picked) < count:
            picked.append(pool.pop(int(self.unit() * len(pool))))
        return picked

    def digits(self, length: int) -> str:
        return "".join(str(self.integer(0, 9)) for _ in range(length))
