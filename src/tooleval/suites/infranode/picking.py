"""Balanced choices for the generator: templates, cities and slug forms in a fair order.

Every choice is deterministic for a seeded ``random.Random``, and balanced in every prefix of
the stream, so a suite cut at any size keeps its variety.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from tooleval.suites.infranode.phrasing import Phrase, opening
from tooleval.suites.infranode.slugforms import KINDS, CityName, SpokenForm

City = CityName


class Picker:
    """Chooses templates so that templates, registers and openings stay balanced in any prefix."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.templates: Counter[str] = Counter()
        self.registers: Counter[str] = Counter()
        self.openings: Counter[str] = Counter()

    def pick(
        self, phrases: Sequence[Phrase], fits: Callable[[Phrase], bool] = lambda p: True
    ) -> Phrase:
        """The least used template among those that ``fits`` (all of them if none fits)."""

        def weight(p: Phrase) -> tuple[int, int, int, float]:
            used = (
                self.templates[p.text],
                self.registers[p.register],
                self.openings[opening(p.text)],
            )
            return (*used, self.rng.random())

        best = min([p for p in phrases if fits(p)] or phrases, key=weight)
        self.templates[best.text] += 1
        self.registers[best.register] += 1
        self.openings[opening(best.text)] += 1
        return best


class CityCycle:
    """Hands out cities in a fixed shuffled order, skipping those a predicate rejects."""

    def __init__(self, cities: Sequence[City]) -> None:
        self.cities = list(cities)
        self.position = 0

    def take(self, accept: Callable[[City], bool] = lambda city: True) -> City | None:
        for step in range(len(self.cities)):
            city = self.cities[(self.position + step) % len(self.cities)]
            if accept(city):
                self.position = (self.position + step + 1) % len(self.cities)
                return city
        return None

    def take_distinct(
        self, count: int, accept: Callable[[City], bool] = lambda city: True
    ) -> list[City]:
        """Up to ``count`` different cities that ``accept`` admits."""
        chosen: list[City] = []
        for _ in range(count):
            city = self.take(lambda c: c not in chosen and accept(c))
            if city is not None:
                chosen.append(city)
        return chosen


def kind_rounds(forms: Sequence[SpokenForm], rng: random.Random) -> Iterator[SpokenForm]:
    """One form of each kind in turn (``KINDS`` order): register names first, then documented
    aliases, then others; a city not yet asked before one that was."""
    queues = {kind: [f for f in forms if f.kind == kind] for kind in KINDS}
    for queue in queues.values():
        queue.sort(key=lambda f: (f.rank, rng.random()))
    asked: set[str] = set()
    while any(queues.values()):
        for kind in KINDS:
            queue = queues[kind]
            if queue:
                form = next((f for f in queue if f.slug not in asked), queue[0])
                queue.remove(form)
                asked.add(form.slug)
                yield form


def cycle(items: Sequence[str], rng: random.Random) -> Iterator[str]:
    """Endless shuffled rounds over ``items`` (every item used before any repeats)."""
    while True:
        order = list(items)
        rng.shuffle(order)
        yield from order


def compare_owns(slug: str, subject: str) -> bool:
    """Whether the pair (city, data type) belongs to compare_multi rather than to a single-city
    category (routing_named, resource_key): a fixed half of the pairs, by hash, so no city is
    asked the same thing in two categories at any suite size."""
    return hashlib.sha256(f"{slug}|{subject}".encode()).digest()[0] % 2 == 0
