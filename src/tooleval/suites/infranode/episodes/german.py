"""Reading a German answer as a reader would: numbers, units, hedges, dates, clock times.

- number words become digits first (``text2num``'s German ``alpha2digit``: "zwölf" -> 12,
  "sechzig Prozent" -> "60 Prozent"); every offset below is into that normalised text;
- digit groups are read by Babel's German number parser (decimal comma, dot thousands; space
  and narrow-space thousands are accepted too). ``1.654`` has two readings, 1654 (German) and
  1.654 (a value copied from JSON);
- "Mio."/"Millionen", "Tsd."/"Tausend" and "Mrd." scale a number and make it approximate;
  "rund", "etwa", "ca." (approximate), "über"/"mehr als" (above), "knapp"/"unter"/"fast"
  (below) are hedges; "-"/"minus" make it negative;
- the unit after a number is mapped to a dimension (``UNITS``): "Cent" is 0.01 EUR, "m" is
  100 cm, "Prozent" and "%" are ``pct``, "Prozentpunkte" are ``pp`` (a different dimension);
- dates: ``01.01.2026``, ``1.1.``, ``1. Januar 2026`` (month names from Babel's German locale
  data) and ISO ``2026-01-01``; clock times: ``14:09``, ``14.09 Uhr``, ``14 Uhr``, ranges
  ``16 bis 23 Uhr``; "UTC"/"Z" or "MESZ"/"MEZ"/"Ortszeit" in the sentence fix the time zone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from babel.dates import get_month_names
from babel.numbers import NumberFormatError, parse_decimal
from text_to_num import alpha2digit

LOCALE = "de_DE"
NEGATORS = frozenset(
    {"nicht", "kein", "keine", "keinen", "keiner", "keines", "keinem", "ohne", "weder", "nie",
     "niemals", "nirgends", "nirgendwo"}
)  # fmt: skip
# unit spelling (case-folded) -> (dimension, factor into the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {
    "°c": ("degC", 1), "°": ("degC", 1), "grad": ("degC", 1), "celsius": ("degC", 1),
    "%": ("pct", 1), "prozent": ("pct", 1),
    "prozentpunkte": ("pp", 1), "prozentpunkten": ("pp", 1), "prozentpunkt": ("pp", 1),
    "pp": ("pp", 1), "%-punkte": ("pp", 1), "%-punkten": ("pp", 1),
    "km/h": ("kmh", 1), "kmh": ("kmh", 1), "stundenkilometer": ("kmh", 1), "m/s": ("kmh", 3.6),
    "€": ("eur", 1), "euro": ("eur", 1), "eur": ("eur", 1),
    "cent": ("eur", 0.01), "ct": ("eur", 0.01),
    "€/m²": ("eur", 1), "€/qm": ("eur", 1), "eur/m²": ("eur", 1), "€/l": ("eur", 1),
    "cm": ("cm", 1), "zentimeter": ("cm", 1), "m": ("cm", 100), "meter": ("cm", 100),
    "km": ("km", 1), "kilometer": ("km", 1),
    "km²": ("km2", 1), "qkm": ("km2", 1), "quadratkilometer": ("km2", 1),
    "mw": ("mw", 1), "megawatt": ("mw", 1), "gw": ("mw", 1000), "gigawatt": ("mw", 1000),
    "mwp": ("mwp", 1), "gwh": ("gwh", 1), "€/mwh": ("eur_mwh", 1), "eur/mwh": ("eur_mwh", 1),
    "kwh/m²": ("kwh_m2", 1), "kwh/kwp": ("kwh_kwp", 1),
    "µg/m³": ("ugm3", 1), "μg/m³": ("ugm3", 1), "ug/m3": ("ugm3", 1), "mikrogramm": ("ugm3", 1),
    "minuten": ("min", 1), "minute": ("min", 1), "min": ("min", 1), "min.": ("min", 1),
    "stunden": ("min", 60), "stunde": ("min", 60),
}  # fmt: skip
SCALES = {"mio": 1e6, "million": 1e6, "millionen": 1e6, "mrd": 1e9, "milliarde": 1e9,
          "milliarden": 1e9, "tsd": 1e3, "tausend": 1e3}  # fmt: skip
HEDGES = {"rund": "approx", "etwa": "approx", "ca": "approx", "circa": "approx",
          "zirka": "approx", "ungefähr": "approx", "annähernd": "approx", "rd": "approx",
          "gut": "approx", "grob": "approx", "~": "approx", "≈": "approx", "über": "over",
          "mehr als": "over", "knapp": "under", "fast": "under", "beinahe": "under",
          "unter": "under", "weniger als": "under", "um die": "approx"}  # fmt: skip
UTC_WORDS = ("utc", "gmt", "weltzeit")
LOCAL_WORDS = ("mesz", "mez", "cest", "cet", "ortszeit", "lokalzeit", "deutscher zeit",
               "deutsche zeit", "lokaler zeit", "sommerzeit")  # fmt: skip

_NUMBER = re.compile(
    r"(?<![\w.,:/])(\d{1,3}(?:[.\u00a0\u202f ]\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)?)(?!\w|[.,:]\d)"
)
_THOUSANDS = re.compile(r"^\d{1,3}(?:\.\d{3})+$")
_WORD = re.compile(r"[\w%°€µμ²³/.-]+|[~≈]")
_TIME_RANGE = re.compile(
    r"(?<![\d.:])([01]?\d|2[0-3])(?:[:.]([0-5]\d))?\s*(?:–|-|bis)\s*([01]?\d|2[0-3])"
    r"(?:[:.]([0-5]\d))?\s*Uhr",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"(?<![\d.:])([01]?\d|2[0-3]):([0-5]\d)(?::\d\d)?(Z?)(?![\d:])"
    r"|(?<![\d.:,])([01]?\d|2[0-3])\.([0-5]\d)\s*Uhr|(?<![\d.:,])([01]?\d|2[0-3])\s*Uhr",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:T[\d:]+(?:Z|[+-]\d\d:?\d\d)?)?")
_NUMERIC_DATE = re.compile(r"(?<![\d.,])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2}(?!\d))?")
_CLAUSE = re.compile(
    r",\s|;|\s(?:und|sowie|aber|während|wohingegen|jedoch|dagegen|hingegen)\s", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n+")
ABBREVIATIONS = frozenset(
    {"ca", "bzw", "mio", "tsd", "mrd", "nr", "str", "rd", "usw", "etc", "inkl", "ggf", "min",
     "std", "ct", "z.b", "d.h", "u.a", "bspw", "vgl", "evtl", "hbf", "st"}
)  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """One way to read a number: its value in the unit's base and the shown precision."""

    value: float
    step: float


@dataclass(frozen=True)
class Quantity:
    """A number in the answer with what belongs to it."""

    start: int
    end: int
    readings: tuple[Reading, ...]
    unit: str | None  # a dimension of UNITS, or None
    hedge: str | None  # "approx", "over", "under" or None
    approximate: bool  # hedged or scaled (Mio., Tsd.): rounding to the shown digits allowed


@dataclass(frozen=True)
class ClockTime:
    start: int
    end: int
    hour: int
    minute: int
    zone: str | None  # "utc", "local" or None (either)


@dataclass(frozen=True)
class CalendarDate:
    start: int
    end: int
    year: int | None
    month: int
    day: int


def normalise(text: str) -> str:
    """NFC, plain spaces and minus signs, number words as digits."""
    text = unicodedata.normalize("NFC", text).replace("\u2212", "-")
    text = text.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ")
    try:
        return str(alpha2digit(text, "de"))
    except Exception:  # text2num is strict about odd input; the digits are still read
        return text


def fold(text: str) -> str:
    """Case-folded text with umlauts as ae/oe/ue (for name lookups)."""
    table = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
    return unicodedata.normalize("NFC", text).casefold().translate(table)


def find_phrase(text: str, phrase: str) -> list[tuple[int, int]]:
    """Whole-word, case-insensitive occurrences of ``phrase`` (spans into ``text``)."""
    if not phrase.strip():
        return []
    pattern = r"(?<![\w])" + re.escape(phrase.strip()) + r"(?![\w])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text, re.IGNORECASE)]


def words(text: str) -> list[tuple[int, int, str]]:
    """Word tokens with spans (case-folded), trailing sentence dots stripped."""
    out = []
    for match in _WORD.finditer(text):
        token = match.group().rstrip(".") if not match.group().endswith("min.") else "min."
        if token:
            out.append((match.start(), match.start() + len(token), token.casefold()))
    return out


def _to_decimal(token: str) -> Decimal | None:
    grouped = re.sub(r"(?<=\d)[ ](?=\d{3}\b)", ".", token)
    try:
        return parse_decimal(grouped, locale=LOCALE, strict=True)
    except NumberFormatError:
        return None


def readings(token: str) -> list[Reading]:
    """Readings of a digit token: German first, then a JSON-style decimal point."""
    out: list[Reading] = []
    german = _to_decimal(token)
    if german is not None:
        exponent = german.as_tuple().exponent
        decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        out.append(Reading(float(german), 10.0**-decimals))
    if re.fullmatch(r"\d+\.\d+", token):
        decimals = len(token.split(".")[1])
        out.append(Reading(float(token), 10.0**-decimals))
    return out


def coarse_step(reading: Reading) -> float:
    """The precision of a rounded integer: 41000 -> 1000, 30 -> 10, 1361 -> 1."""
    if reading.step < 1 or reading.value == 0:
        return reading.step
    digits = str(int(abs(reading.value)))
    zeros = len(digits) - len(digits.rstrip("0"))
    return float(10 ** min(zeros, len(digits) - 1))


def _words_before(text: str, start: int, count: int) -> str:
    return " ".join(w for _, _, w in words(text[max(0, start - 40) : start])[-count:])


def _hedge(text: str, start: int) -> str | None:
    before = _words_before(text, start, 2)
    for phrase, kind in HEDGES.items():
        if before == phrase or before.endswith(" " + phrase) or before.endswith(phrase + " ~"):
            return kind
    return None


def _negative(text: str, start: int) -> bool:
    if start > 0 and text[start - 1] in "-–" and (start < 2 or not text[start - 2].isalnum()):
        return True
    return _words_before(text, start, 1) == "minus"


def _unit_after(text: str, end: int) -> tuple[str | None, float, float, int]:
    """(dimension, factor, scale, end) for the words right after a number."""
    rest = words(text[end : end + 40])
    scale, index = 1.0, 0
    if rest and rest[0][2].rstrip(".") in SCALES:
        scale, index = SCALES[rest[0][2].rstrip(".")], 1
    if index < len(rest):
        token = rest[index][2]
        for candidate in (token, token.rstrip(".,;:)"), token.split("/")[0]):
            if candidate in UNITS:
                dim, factor = UNITS[candidate]
                return dim, factor, scale, end + rest[index][1]
    if rest and text[end : end + 1] == "%":
        return "pct", 1.0, 1.0, end + 1
    last = end + rest[index - 1][1] if index else end
    return None, 1.0, scale, last


def quantities(text: str, skip: Sequence[tuple[int, int]] = ()) -> list[Quantity]:
    """Every number in ``text`` outside the ``skip`` spans (dates, times, matched names)."""
    found: list[Quantity] = []
    for match in _NUMBER.finditer(text):
        if any(a <= match.start() < b for a, b in skip):
            continue
        base = readings(match.group(1))
        if not base:
            continue
        dim, factor, scale, end = _unit_after(text, match.end())
        sign = -1.0 if _negative(text, match.start()) else 1.0
        hedge = _hedge(text, match.start())
        approximate = hedge is not None or scale != 1.0
        values = tuple(
            Reading(sign * r.value * scale * factor, r.step * scale * factor) for r in base
        )
        found.append(Quantity(match.start(), end, values, dim, hedge, approximate))
    return found


def _zone(sentence: str) -> str | None:
    folded = sentence.casefold()
    if any(find_phrase(folded, w) for w in UTC_WORDS):
        return "utc"
    if any(find_phrase(folded, w) for w in LOCAL_WORDS):
        return "local"
    return None


def clock_times(text: str) -> list[ClockTime]:
    """Clock times with the time zone their sentence names (if any)."""
    found: list[ClockTime] = []
    taken: list[tuple[int, int]] = []
    for a, b in sentence_spans(text):
        sentence = text[a:b]
        zone = _zone(sentence)
        for m in _TIME_RANGE.finditer(sentence):
            taken.append((a + m.start(), a + m.end()))
            for hour, minute in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
                found.append(
                    ClockTime(a + m.start(), a + m.end(), int(hour), int(minute or 0), zone)
                )
        for m in _TIME.finditer(sentence):
            if any(s <= a + m.start() < e for s, e in taken):
                continue
            hour = m.group(1) or m.group(4) or m.group(6)
            minute = m.group(2) or m.group(5) or "0"
            own = "utc" if m.group(3) else zone
            found.append(ClockTime(a + m.start(), a + m.end(), int(hour), int(minute), own))
    return found


@cache
def month_numbers() -> dict[str, int]:
    """German month names and abbreviations (Babel's locale data) -> month number."""
    names: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for number, name in get_month_names(width, locale=LOCALE).items():
            names[name.casefold().rstrip(".")] = number
    names.update({"sept": 9, "jänner": 1})
    return names


def _named_dates(text: str) -> Iterator[CalendarDate]:
    alternatives = "|".join(sorted(map(re.escape, month_numbers()), key=len, reverse=True))
    pattern = re.compile(
        rf"(?<![\d.])(\d{{1,2}})\.\s*({alternatives})\.?(?!\w)(?:\s+(\d{{4}}))?", re.IGNORECASE
    )
    for m in pattern.finditer(text):
        month = month_numbers()[m.group(2).casefold()]
        year = int(m.group(3)) if m.group(3) else None
        yield CalendarDate(m.start(), m.end(), year, month, int(m.group(1)))


def calendar_dates(text: str) -> list[CalendarDate]:
    """Dates written as ``01.01.2026``, ``1.1.``, ``1. Januar 2026`` or ``2026-01-01``."""
    found = [
        CalendarDate(m.start(), m.end(), int(m.group(1)), int(m.group(2)), int(m.group(3)))
        for m in _ISO_DATE.finditer(text)
    ]
    for m in _NUMERIC_DATE.finditer(text):
        day, month = int(m.group(1)), int(m.group(2))
        if not (1 <= day <= 31 and 1 <= month <= 12) or re.match(r"\s*Uhr", text[m.end() :]):
            continue
        year = m.group(3)
        full = None if year is None else int(year) + (2000 if len(year) == 2 else 0)
        found.append(CalendarDate(m.start(), m.end(), full, month, day))
    found.extend(_named_dates(text))
    return found


SENTENCE_OPENERS = frozenset(
    {"in", "im", "am", "an", "auf", "aus", "bei", "für", "mit", "nach", "von", "vom", "zum",
     "zur", "der", "die", "das", "den", "dem", "des", "ein", "eine", "es", "er", "sie", "wir",
     "ich", "dort", "da", "hier", "und", "aber", "außerdem", "zudem", "insgesamt", "damit"}
)  # fmt: skip
"""Words that start a sentence when capitalised: after an abbreviation ("0,32 Mio. In
Remscheid …") they show that its dot also ends the sentence (German nouns are capitalised,
so a capital letter alone does not)."""


def _ends_sentence(text: str, position: int, length: int = 1) -> bool:
    if text[position] == "\n" or text[position : position + length].count(".") > 1:
        return True  # "… 0,32 Mio.. In …": the abbreviation's dot, then the sentence's
    before = text[:position].rstrip()
    word = before.split()[-1].casefold() if before.split() else ""
    if before[-1:].isdigit():  # "1. Januar" is a date, "98.733. In Erfurt" a sentence end
        following = text[position + 1 :].split()
        return not following or following[0].casefold().rstrip(".") not in month_numbers()
    if (len(word) == 1 and word.isalpha()) or word in ABBREVIATIONS:
        following = text[position + length :].split()
        opener = following[0] if following else ""
        return opener[:1].isupper() and opener.casefold() in SENTENCE_OPENERS
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans; a dot after a digit or an abbreviation does not end a sentence."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if not _ends_sentence(text, match.start(), len(match.group())):
            continue
        if text[start : match.start()].strip():
            spans.append((start, match.end()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def clause_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Clauses of one sentence: split at ", ", ";" and at und/sowie/aber/während/…"""
    spans, cursor = [], start
    for match in _CLAUSE.finditer(text, start, end):
        spans.append((cursor, match.start()))
        cursor = match.end()
    spans.append((cursor, end))
    return [(a, b) for a, b in spans if b > a]


def negated(text: str, start: int, end: int, clause: tuple[int, int]) -> bool:
    """Whether a term at ``start:end`` is negated inside its clause (3 words either side)."""
    before = [w for _, _, w in words(text[clause[0] : start])][-3:]
    after = [w for _, _, w in words(text[end : clause[1]])][:3]
    return any(w in NEGATORS for w in before) or "nicht" in after or "nie" in after
