"""Folding German names for tolerant comparison: one rule for the replica and the scorer.

The InfraNode API matches names regardless of case, umlaut spelling (ä, ae or a), ß/ss and
separators (space, hyphen, brackets). The offline replica resolves slugs and filters station
names with these functions, and the scorer's stations rule uses the same ones, so a ``q`` the
scorer accepts is a ``q`` the replica answers with the same stations.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_UMLAUT_E = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_UMLAUT_PLAIN = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss"})
_SEPARATORS = re.compile(r"[\s_/.,()\[\]'’-]+")


def _ascii(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if ch.isascii() and not unicodedata.combining(ch))


def _hyphenate(text: str) -> str:
    return _SEPARATORS.sub("-", text).strip("-")


@lru_cache(maxsize=8192)
def fold_variants(name: str) -> tuple[str, ...]:
    """The lookup keys of a name: umlauts as ae/oe/ue and as plain vowels, hyphenated ASCII."""
    base = unicodedata.normalize("NFC", name.strip()).casefold()
    keys = (
        _hyphenate(_ascii(base.translate(_UMLAUT_E))),
        _hyphenate(_ascii(base.translate(_UMLAUT_PLAIN))),
    )
    return tuple(dict.fromkeys(key for key in keys if key))


def name_matches(query: str, name: str) -> bool:
    """Umlaut-tolerant substring match (``munchen`` and ``muenchen`` both hit "München Hbf")."""
    query_keys = fold_variants(query)
    name_keys = fold_variants(name)
    return any(q in n for q in query_keys for n in name_keys)
