"""not_covered answers: is the gap reported, and is anything claimed about the phenomenon?

A clause *reports the gap* when it negates the availability of data — a negation ("keine",
"nicht", "nichts", "fehlt") together with a data noun ("Daten", "Angaben", "Hochwasserdaten",
"Bodenrichtwerte"), a word for the service ("InfraNode", "ich", "mir") or an availability
predicate ("verfügbar", "abgedeckt", "erfasst", "liegen … vor") — or when it restricts the
data type to covered cities by name ("nur für Köln, München und Düsseldorf"; names as written,
with umlauts and several words). The report must be about the asked city (a clause naming only
another uncovered city does not count) and the asked data type (a clause naming only another
data type does not count).

A clause that negates the phenomenon itself ("In Mannheim gibt es keine Hochwassergefahr") is
a *claim*, not a gap report: the results hold no such fact, so it is invented. So is a leading
"Ja"/"Nein" outside a gap report.
"""

from __future__ import annotations

from collections.abc import Sequence

from tooleval.suites.infranode.api.facts import cities
from tooleval.suites.infranode.episodes import german
from tooleval.suites.infranode.episodes.entities import city_names, place_spans
from tooleval.suites.infranode.episodes.vocabulary import (
    AVAILABILITY,
    DATA_NOUNS,
    RESOURCE_WORDS,
    RESTRICTION,
    SERVICE_WORDS,
    stem_matches,
)

NEGATIONS = german.NEGATORS | {"nichts", "fehlt", "fehlen", "noch"}


def _folded_words(text: str) -> list[str]:
    return [german.fold(word) for _, _, word in german.words(text)]


def _is_data_word(word: str) -> bool:
    return any(noun in word for noun in DATA_NOUNS)


def cities_named(text: str) -> set[str]:
    return {
        city.slug
        for city in cities()
        if any(place_spans(text, name) for name in city_names(city.slug))
    }


def resources_named(words: Sequence[str]) -> set[str]:
    return {
        key
        for key, stems in RESOURCE_WORDS.items()
        if any(stem_matches(w, s) or (len(s) >= 6 and s in w) for w in words for s in stems)
    }


def is_gap_clause(clause: str, covered: Sequence[str]) -> bool:
    words = _folded_words(clause)
    negation = any(w in NEGATIONS for w in words) or any(w.startswith("fehl") for w in words)
    about_data = (
        any(_is_data_word(w) for w in words)
        or any(w in SERVICE_WORDS for w in words)
        or any(stem_matches(w, s) for w in words for s in AVAILABILITY)
    )
    return (negation and about_data) or restricts(clause, covered)


def restricts(clause: str, covered: Sequence[str]) -> bool:
    """ "nur für Köln, München …": the data type limited to covered cities, by name."""
    words = _folded_words(clause)
    return any(w in RESTRICTION for w in words) and bool(cities_named(clause) & set(covered))


def _clauses(text: str) -> list[tuple[str, str]]:
    """(clause, its sentence) pairs."""
    out = []
    for a, b in german.sentence_spans(text):
        for c, d in german.clause_spans(text, a, b):
            out.append((text[c:d], text[a:b]))
    return out


def gap_reported(answer: str, city: str, resource: str, covered: Sequence[str]) -> bool:
    """Whether some clause reports the gap for ``city`` and ``resource`` (module docstring)."""
    text = german.normalise(answer)
    for clause, sentence in _clauses(text):
        if not is_gap_clause(clause, covered):
            continue
        named = cities_named(clause) or cities_named(sentence)
        if named and city not in named and not restricts(sentence, covered):
            continue
        types = resources_named(_folded_words(clause))
        if types and resource not in types:
            continue
        return True
    return False


def phenomenon_claims(answer: str, resource: str, covered: Sequence[str]) -> list[str]:
    """Clauses that state something about the phenomenon itself (invented for a gap)."""
    text = german.normalise(answer)
    stems = RESOURCE_WORDS.get(resource, ())
    found = []
    for clause, _ in _clauses(text):
        words = _folded_words(clause)
        about = any(
            (stem_matches(w, s) or (len(s) >= 6 and s in w)) and not _is_data_word(w)
            for w in words
            for s in stems
        )
        negation = any(w in german.NEGATORS for w in words)
        if about and negation and not is_gap_clause(clause, covered):
            found.append(clause.strip())
    words = _folded_words(text)
    first = german.sentence_spans(text)[:1]
    if words and words[0] in ("ja", "nein") and first:
        a, b = first[0]
        if not any(is_gap_clause(c, covered) for c, _ in _clauses(text[a:b])):
            found.append(text[a:b].strip())
    return found
