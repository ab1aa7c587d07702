"""The confusables table: which German words name which InfraNode data, and what they exclude.

``data/confusables.json`` lists a *subject* per catalogue key, POI type (``poi:<type>``) and
tool (``overview``, ``stations``, …) with the German names that point to it, the subjects a
reader could take instead, the words its payload cannot answer, and whether any question may
ask for it. Names under ``shared`` fit several subjects ("Hochwasser": flood or water-level).
``city_words`` are city names that are also everyday German words ("Essen"): a question names
such a city only where nothing but a place fits (``unclear_city_names``).

A part of a question *reads as* the subjects that every name found in it fits (the longest
match wins where names overlap, so "Hochwasserwarnung" is not also "Hochwasser"), plus every
subject of a *literal* name, which no other word can rule out ("Baustellen" stays a reading of
``construction`` even next to "Innenstadt"). A question is defensible for its gold subject when
each part that names something reads as exactly that subject.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from tooleval.records import ToolCall
from tooleval.suites.infranode.api.facts import read_data

TABLE_FILE = "confusables.json"
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_NON_WORD = re.compile(r"[^a-z0-9]+")
MASK = "#"


def fold(text: str) -> str:
    """Lower-case ASCII with umlauts as ae/oe/ue, ß as ss, and every non-word run as a space."""
    folded = unicodedata.normalize("NFKD", text.casefold().translate(_UMLAUTS))
    ascii_text = "".join(ch for ch in folded if ch.isascii() and not unicodedata.combining(ch))
    return _NON_WORD.sub(" ", ascii_text)


def fold_question(text: str) -> str:
    """The folded question, padded so that names marked with word boundaries match at the ends."""
    return f" {' '.join(fold(text).split())} "


@dataclass(frozen=True)
class Subject:
    id: str
    call: str
    asked: bool
    why_not_asked: str | None
    names: tuple[str, ...]
    confusable_with: tuple[str, ...]
    unanswerable: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """One name found in a question: its span in the folded text and the subjects it fits."""

    start: int
    end: int
    name: str
    subjects: frozenset[str]
    literal: bool = False


@dataclass(frozen=True)
class Reading:
    """What a question's wording points to."""

    matches: tuple[Match, ...]

    @property
    def subjects(self) -> frozenset[str]:
        """The subjects every found name fits, plus those of literal names (empty when the
        names contradict each other)."""
        if not self.matches:
            return frozenset()
        common = frozenset.intersection(*(m.subjects for m in self.matches))
        return common.union(*(m.subjects for m in self.matches if m.literal))

    @property
    def mentioned(self) -> frozenset[str]:
        """Every subject some found name fits."""
        return frozenset().union(*(m.subjects for m in self.matches))


@dataclass(frozen=True)
class ConfusablesTable:
    subjects: Mapping[str, Subject]
    names: Mapping[str, frozenset[str]]  # folded name -> subjects it fits
    same_as: Mapping[str, str]
    literal: frozenset[str] = frozenset()  # folded names that name each of their subjects
    city_words: Mapping[str, str] = field(default_factory=dict)  # city name -> its other sense

    def canonical(self, subject: str) -> str:
        return self.same_as.get(subject, subject)

    def confusable(self, subject: str) -> frozenset[str]:
        """Declared confusables plus every subject that shares a name with ``subject``."""
        own = self.subjects[subject].confusable_with if subject in self.subjects else ()
        shared = {s for subjects in self.names.values() if subject in subjects for s in subjects}
        return frozenset(own) | frozenset(shared) - {subject}

    def read(self, text: str) -> Reading:
        """The names found in ``text`` (already masked), longest matches only."""
        folded = fold_question(text)
        found = [
            Match(start, start + len(name), name, subjects, name in self.literal)
            for name, subjects in self.names.items()
            for start in _occurrences(folded, name)
        ]
        return Reading(tuple(sorted(_maximal(found), key=lambda m: (m.start, m.name))))

    def unanswerable(self, subject: str, text: str) -> tuple[str, ...]:
        """Words of ``text`` that ask for more than ``subject``'s payload holds."""
        entry = self.subjects.get(self.canonical(subject))
        folded = fold_question(text)
        words = entry.unanswerable if entry else ()
        return tuple(w for w in words if fold_name(w) in folded)


def _occurrences(text: str, name: str) -> Iterable[int]:
    start = text.find(name)
    while start >= 0:
        yield start
        start = text.find(name, start + 1)


def _maximal(found: list[Match]) -> list[Match]:
    """Drop matches inside a longer one; merge the subjects of matches with the same span."""
    merged: dict[tuple[int, int], Match] = {}
    for m in found:
        key = (m.start, m.end)
        prev = merged.get(key)
        merged[key] = (
            m
            if prev is None
            else Match(
                m.start, m.end, m.name, prev.subjects | m.subjects, prev.literal or m.literal
            )
        )
    spans = list(merged.values())
    return [
        m
        for m in spans
        if not any(
            o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)
            for o in spans
        )
    ]


def fold_name(name: str) -> str:
    """A table name as it is searched: folded, with '|' as a word boundary (a space)."""
    return fold(name.replace("|", " "))


def _subject(subject_id: str, row: Mapping[str, Any]) -> Subject:
    return Subject(
        id=subject_id,
        call=str(row["call"]),
        asked=bool(row["asked"]),
        why_not_asked=row.get("why_not_asked"),
        names=tuple(row.get("names") or ()),
        confusable_with=tuple(row.get("confusable_with") or ()),
        unanswerable=tuple(row.get("unanswerable") or ()),
    )


def table_from_json(data: Mapping[str, Any], source: str = TABLE_FILE) -> ConfusablesTable:
    """Build the table, naming ``source`` and the subject on any inconsistency."""
    subjects = {sid: _subject(sid, row) for sid, row in data["subjects"].items()}
    names: dict[str, set[str]] = {}
    literal: set[str] = set()
    for subject in subjects.values():
        for name in subject.names:
            names.setdefault(fold_name(name), set()).add(subject.id)
    for index, group in enumerate(data.get("shared") or ()):
        unknown = [s for s in group["subjects"] if s not in subjects]
        if unknown:
            raise ValueError(f"{source}: shared[{index}] names unknown subjects {unknown}")
        for name in group["names"]:
            names.setdefault(fold_name(name), set()).update(group["subjects"])
            if group.get("literal"):
                literal.add(fold_name(name))
    for subject in subjects.values():
        unknown = [s for s in subject.confusable_with if s not in subjects]
        if unknown:
            raise ValueError(f"{source}: {subject.id}: confusable_with names unknown {unknown}")
    if "" in names or " " in names:
        raise ValueError(f"{source}: a name folds to nothing")
    same_as = {str(k): str(v) for k, v in (data.get("same_as") or {}).items()}
    frozen = {k: frozenset(v) for k, v in names.items()}
    city_words = {str(k): str(v) for k, v in (data.get("city_words") or {}).items()}
    return ConfusablesTable(subjects, frozen, same_as, frozenset(literal), city_words)


@cache
def load_table() -> ConfusablesTable:
    """The packaged confusables table."""
    return table_from_json(read_data(TABLE_FILE))


def mask(text: str, names: Iterable[str]) -> str:
    """``text`` with every exact-case occurrence of ``names`` (longest first) replaced by #.

    Case-sensitive on purpose: the city "Essen" is masked, the verb in "essen gehen" is not.
    """
    for name in sorted(set(names), key=len, reverse=True):
        if name:
            text = text.replace(name, MASK)
    return text


TOOL_SUBJECTS = {
    "weather": "weather",
    "air_quality": "air-uba",
    "get_city_overview": "overview",
    "get_city": "base",
    "stations": "stations",
    "list_cities": "cities",
    "sources": "sources",
    "station_board_departures": "station-board",
    "station_board_arrivals": "station-board",
}
KEYED_TOOLS = {"get_city_data": "resource", "compare": "resource", "pois": "type"}


def call_subject(call: ToolCall, table: ConfusablesTable | None = None) -> str | None:
    """The subject a call asks for: its catalogue key, ``poi:<type>``, or its tool's subject."""
    table = table or load_table()
    argument = KEYED_TOOLS.get(call.name)
    if argument is None:
        return TOOL_SUBJECTS.get(call.name)
    value = call.arguments.get(argument)
    if not isinstance(value, str):
        return None
    return table.canonical(f"poi:{value}" if call.name == "pois" else value)


PART_BREAK = re.compile(r"[?!;:]|[.,](?=\s|$)|\s[-–—]\s")


def question_parts(question: str) -> list[str]:
    """The separate asks of a question: split at sentence ends, colons, commas and dashes."""
    return [part for part in PART_BREAK.split(question) if part.strip()]


def wording_problems(
    question: str, subject: str, accepted: frozenset[str] = frozenset()
) -> list[str]:
    """Why ``question`` (city names masked) is not defensible for ``subject``; empty if it is.

    Every part of the question that names something must read as ``subject`` alone (or as
    one of ``accepted``, the task's alternatives), so a second ask cannot point elsewhere.
    """
    table = load_table()
    entry = table.subjects.get(subject)
    if entry is None:
        return [f"subject {subject!r} is not in the confusables table"]
    problems = [] if entry.asked else [f"{subject} is never asked: {entry.why_not_asked}"]
    readings = [table.read(part) for part in question_parts(question)]
    readings = [r for r in readings if r.matches]
    if not readings:
        problems.append(f"no word names {subject} (no name of the confusables table)")
    for reading in readings:
        problem = reading_problem(reading, subject, accepted)
        if problem:
            problems.append(problem)
    beyond = table.unanswerable(subject, question)
    if beyond:
        problems.append(f"asks for more than {subject} holds: {', '.join(beyond)}")
    return problems


def reading_problem(reading: Reading, subject: str, accepted: frozenset[str]) -> str | None:
    """What is wrong with one part's reading for ``subject``, or None."""
    names = ", ".join(
        f"'{m.name.strip()}' ({'/'.join(sorted(m.subjects))})" for m in reading.matches
    )
    fits = reading.subjects
    if subject not in fits:
        return f"the wording points elsewhere, not to {subject}: {names}"
    if fits - {subject} - accepted:
        return f"the wording also fits {', '.join(sorted(fits - {subject} - accepted))}: {names}"
    return None


# Words after which a name can only be a place: "in Essen", "nach Siegen", "die Stadt Essen",
# "der Städte Essen und Ulm".
PLACE_WORDS = frozenset({"in", "nach", "aus", "bei", "um", "ab", "stadt", "städte"})


def unclear_city_names(
    question: str, names: Iterable[str], table: ConfusablesTable | None = None
) -> list[str]:
    """Where ``question`` names a city that is also an everyday word ("Überblick über Essen?")
    so that the other sense fits too. Such a name must follow a place word (``PLACE_WORDS``),
    directly or through an enumeration of the question's places ("in Ulm, Essen oder Kiel"),
    or carry its bracket ("Halle (Saale)")."""
    table = table or load_table()
    spoken = sorted({n for n in names if n}, key=len, reverse=True)
    if not spoken:
        return []
    listed = re.compile(rf"(?:{'|'.join(map(re.escape, spoken))})(?:\s*,\s*|\s+(?:und|oder)\s+)$")
    problems = []
    for word, sense in table.city_words.items():
        for found in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-]|\s*\()", question):
            before = question[: found.start()]
            while (item := listed.search(before)) is not None:
                before = before[: item.start()]
            last = before.split()[-1].casefold() if before.split() else ""
            if last not in PLACE_WORDS:
                problems.append(f"'{word}' reads as {sense} here; name it as a place ('in {word}')")
    return problems
