"""Tolerant city-slug resolution as documented in the 2026-07-22 contract.

A name resolves when, after folding, it equals a canonical slug, a register name (with
umlauts as ae/oe/ue or as plain vowels), or a listed exonym/short form. Fuzzy matches never
resolve; they only feed the "Meintest du ...?" hint of the 404.
"""

from __future__ import annotations

import unicodedata
from difflib import SequenceMatcher
from functools import cache

from tooleval.namefold import fold_variants, name_matches
from tooleval.suites.infranode.api.facts import aliases, cities

__all__ = ["fold_variants", "name_matches", "nearest_slug", "resolve_slug"]


@cache
def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for city in cities():
        for source in (city.slug, city.name_de):
            for key in fold_variants(source):
                table.setdefault(key, city.slug)
    for alias in aliases():
        for key in fold_variants(alias.alias):
            table.setdefault(key, alias.slug)
    return table


def resolve_slug(name: str) -> str | None:
    """The canonical slug for a slug, name, exonym or short form; None when unknown."""
    slugs = {city.slug for city in cities()}
    folded = unicodedata.normalize("NFC", name.strip()).casefold()
    if folded in slugs:
        return folded
    table = _alias_table()
    for key in fold_variants(name):
        if key in table:
            return table[key]
    return None


HINT_MAX_CHARS = 100  # no city name is longer; comparing a megabyte name would take seconds


def nearest_slug(name: str) -> str | None:
    """The closest canonical slug by sequence similarity over slugs and aliases (hint only;
    none for a name longer than ``HINT_MAX_CHARS``)."""
    if len(name) > HINT_MAX_CHARS:
        return None
    keys = fold_variants(name)
    if not keys:
        return None
    best_slug, best_score = None, -1.0
    for alias_key, slug in _alias_table().items():
        score = max(SequenceMatcher(None, key, alias_key).ratio() for key in keys)
        if score > best_score:
            best_slug, best_score = slug, score
    return best_slug
