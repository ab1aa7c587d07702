"""Who a claim is about: the cities and named records an answer mentions, and which one a
stated value belongs to.

Cities are recognised by every name a reader uses (the register's German name with umlauts,
"Frankfurt" for "Frankfurt am Main", the slug's words, the register's exonyms), records by
their names (a line "RE8", a destination, a party, a station) and by clock times of their
own (a departure at 14:09). Matching is whole-word and case-insensitive; a longer mention
("Düsseldorf Flughafen") hides the shorter ones inside it ("Düsseldorf"). A city name that is
also an everyday word (the confusables table's ``city_words``: Essen, Siegen, Münster, Halle)
names the city only where it is written as a name and no article or contracted preposition
makes it the word: "essen gehen", "das Essen", "zum Essen", "in der Halle" name no city.

A value belongs to the record its clause names best (most names of one record, then the
nearest, the preceding one on a tie); else to the nearest preceding mention in its sentence,
else the nearest following; else to what the previous sentences were about; else to the
entities the question asks about. After "bzw." the values go to the mentions in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from tooleval.suites.infranode.api.facts import aliases, cities
from tooleval.suites.infranode.confusables import load_table
from tooleval.suites.infranode.episodes.facts import FactBase
from tooleval.suites.infranode.episodes.german import find_phrase, fold


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    records: frozenset[int]  # empty: a city the results say nothing about
    city: str | None  # the city slug, for city mentions


@cache
def _city_names() -> dict[str, tuple[str, ...]]:
    names: dict[str, list[str]] = {}
    all_names = [c.name_de for c in cities()]
    for city in cities():
        forms = [city.name_de, city.slug.replace("-", " "), city.slug]
        for cut in (" (", " am ", " an der ", " im ", " in "):
            short = city.name_de.split(cut)[0]
            if cut in city.name_de and sum(n.startswith(short) for n in all_names) == 1:
                forms.append(short)
        names[city.slug] = forms
    for alias in aliases():
        names.setdefault(alias.slug, []).append(alias.alias)
    return {slug: tuple(dict.fromkeys(forms)) for slug, forms in names.items()}


def city_names(slug: str) -> tuple[str, ...]:
    """The names a reader may use for a city (German name first)."""
    return _city_names().get(slug, (slug,))


def display_name(slug: str) -> str:
    return city_names(slug)[0]


def city_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` names a city (any of its names), whole words."""
    return [
        span
        for slug in _city_names()
        for name in city_names(slug)
        for span in place_spans(text, name)
    ]


def _spans(text: str, name: str) -> list[tuple[int, int]]:
    spans = find_phrase(text, name)
    if fold(name) != name.casefold():
        spans += find_phrase(text, fold(name))
    return spans


WORD_MAKERS = frozenset(
    [
        "der",
        "die",
        "das",
        "dem",
        "den",
        "des",
        "ein",
        "eine",
        "einem",
        "einen",
        "einer",
        "eines",
        "kein",
        "keine",
        "keinem",
        "keinen",
        "zum",
        "zur",
        "beim",
        "vom",
        "im",
        "am",
        "ins",
        "gutes",
        "gutem",
        "gute",
        "leckeres",
        "leckere",
        "warmes",
        "warme",
    ]
)
"""Words after which a city name that is also a word is the word ("das Essen", "zum Essen",
"in der Halle", "im Münster")."""


@cache
def _city_words() -> frozenset[str]:
    return frozenset(fold(word) for word in load_table().city_words)


def names_the_place(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, a city's name, names the city: always, unless the name is
    also an everyday word and is written in lower case, follows a word in ``WORD_MAKERS`` or
    is followed by "gehen" ("Essen gehen")."""
    if fold(text[start:end]) not in _city_words():
        return True
    before = text[:start].split()
    after = text[end:].split()
    return not (
        text[start].islower()
        or (before and before[-1].casefold() in WORD_MAKERS)
        or (after and after[0].casefold().strip(".,;:!?") == "gehen")
    )


def place_spans(text: str, name: str) -> list[tuple[int, int]]:
    """Where ``text`` names the city by ``name`` (whole words, see ``names_the_place``)."""
    return [(a, b) for a, b in _spans(text, name) if names_the_place(text, a, b)]


def _top_records(base: FactBase, slug: str) -> frozenset[int]:
    return frozenset(
        r.rid
        for r in base.records
        if r.city == slug and (r.parent is None or base.records[r.parent].city != slug)
    )


def mentions(text: str, base: FactBase, hidden: Sequence[tuple[int, int]] = ()) -> list[Mention]:
    """City and record mentions in ``text`` (longest first wins; ``hidden`` spans skipped)."""
    found: list[Mention] = []
    for slug in _city_names():
        for name in city_names(slug):
            for a, b in place_spans(text, name):
                found.append(Mention(a, b, _top_records(base, slug), slug))
    by_name: dict[str, set[int]] = {}
    for record in base.records:
        for name in record.names:
            if len(name) >= 2 and name.strip():
                by_name.setdefault(name, set()).add(record.rid)
    for name, rids in by_name.items():
        for a, b in _spans(text, name):
            found.append(Mention(a, b, frozenset(rids), None))
    return _longest(found, hidden)


def _longest(found: list[Mention], hidden: Sequence[tuple[int, int]]) -> list[Mention]:
    kept: list[Mention] = []
    for mention in sorted(found, key=lambda m: (-(m.end - m.start), m.start)):
        inside_hidden = any(a <= mention.start and mention.end <= b for a, b in hidden)
        overlaps = any(m.start < mention.end and mention.start < m.end for m in kept)
        if not overlaps and not inside_hidden:
            kept.append(mention)
        elif overlaps and mention.records:
            kept = [_merge(m, mention) for m in kept]
    return sorted(kept, key=lambda m: m.start)


def _merge(kept: Mention, shorter: Mention) -> Mention:
    """A longer mention that is also a record's name keeps that record's identity."""
    if kept.start <= shorter.start and shorter.end <= kept.end and kept.city and not kept.records:
        return Mention(kept.start, kept.end, shorter.records, kept.city)
    return kept


@dataclass(frozen=True)
class Resolver:
    """Resolves the records a value at some position belongs to."""

    mentions: tuple[Mention, ...]
    default: frozenset[int]

    def best_in(self, start: int, end: int, position: int) -> Mention | None:
        inside = [m for m in self.mentions if start <= m.start and m.end <= end]
        if not inside:
            return None
        counts: dict[int, int] = {}
        for mention in inside:
            for rid in mention.records:
                counts[rid] = counts.get(rid, 0) + 1

        def rank(m: Mention) -> tuple[int, int, int]:
            weight = max((counts[r] for r in m.records), default=0)
            before = m.end <= position
            distance = position - m.end if before else m.start - position
            return (-weight, distance, 0 if before else 1)

        return min(inside, key=rank)

    def preceding(self, start: int, position: int) -> Mention | None:
        before = [m for m in self.mentions if start <= m.start and m.end <= position]
        return before[-1] if before else None


def narrowed(mention: Mention, counts_from: Sequence[Mention]) -> frozenset[int]:
    """The records of ``mention`` that the most mentions in ``counts_from`` also name."""
    if len(mention.records) <= 1:
        return mention.records
    score = {r: sum(r in m.records for m in counts_from) for r in mention.records}
    top = max(score.values())
    return frozenset(r for r, s in score.items() if s == top)
