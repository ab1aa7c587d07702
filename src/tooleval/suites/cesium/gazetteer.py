"""The simulated geocoder: well-known places by any of their names, and honest failures.

``places.json`` lists countries, regions, cities, districts, landmarks and addresses, each with
a parent, approximate coordinates and aliases in several languages ("The Bund", "Bund",
"Waitan", "外滩" are one place). ``geocode(address)`` finds every alias in the address (Latin
aliases as whole words, CJK aliases as substrings; case, accents and punctuation ignored;
longer aliases win where two overlap) and answers with the most specific place found, so
"Tokyo Tower" is the tower, not Tokyo, and "Bund, Shanghai, China" is the Bund.

It fails, as a real geocoder would, when
- nothing is recognised ("Atlantis");
- the names found do not nest ("Eiffel Tower, Beijing": the tower is not in Beijing);
- only an area is recognised and the rest of the address names something unknown inside it
  ("500 Market Street, San Francisco", "Shanghai Zoo"): answering with the city centre would
  be a wrong place, not an answer;
- ``countryCode`` names another country than the place's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from tooleval.suites.cesium.catalogue import read_data

SPECIFIC_KINDS = ("landmark", "address")
_PUNCTUATION = re.compile(r"[\s,;:.!?()\[\]{}\"'/\\\-_·・、，。；：（）“”‘’《》「」]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
# Words that add nothing to an area name ("Shanghai City", "北京市", a postal code).
GENERIC_WORDS = frozenset(
    {
        "the", "of", "in", "at", "near", "city", "district", "ward", "province", "prefecture",
        "state", "county", "region", "area", "downtown", "centre", "center", "municipality",
        "capital", "metropolis",
    }
)  # fmt: skip
GENERIC_CJK = ("市中心", "中心", "市", "区", "省", "县", "都", "府", "的", "附近")


@dataclass(frozen=True)
class Place:
    id: str
    kind: str  # country | region | city | district | landmark | address
    parent: str | None
    name: str
    longitude: float
    latitude: float
    aliases: tuple[str, ...]
    country_code: str | None = None

    @property
    def specific(self) -> bool:
        return self.kind in SPECIFIC_KINDS


@dataclass(frozen=True)
class Found:
    """A geocoding answer: the place, or None with the reason."""

    place: Place | None
    reason: str = ""


def normalize(text: str) -> str:
    """Case, accents and punctuation folded; runs of separators become one space."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " " + _PUNCTUATION.sub(" ", unicodedata.normalize("NFC", bare)).strip() + " "


@cache
def places() -> dict[str, Place]:
    doc = read_data("places.json")
    table: dict[str, Place] = {}
    for index, raw in enumerate(doc["places"]):
        try:
            place = Place(
                raw["id"], raw["kind"], raw["parent"], raw["name"], float(raw["longitude"]),
                float(raw["latitude"]), tuple(raw["aliases"]), raw.get("countryCode"),
            )  # fmt: skip
        except KeyError as exc:
            raise ValueError(f"places.json: places[{index}] lacks {exc.args[0]!r}") from exc
        table[place.id] = place
    for place in table.values():
        if place.parent is not None and place.parent not in table:
            raise ValueError(f"places.json: {place.id!r} has unknown parent {place.parent!r}")
    return table


def ancestors(place: Place) -> Iterator[Place]:
    table = places()
    while place.parent is not None:
        place = table[place.parent]
        yield place


def country_code(place: Place) -> str | None:
    for node in (place, *ancestors(place)):
        if node.country_code:
            return node.country_code
    return None


def display_name(place: Place) -> str:
    """``"The Bund, Shanghai"``: the place and its city, or a city or area and its country."""
    outer = list(ancestors(place))
    wanted = "city" if place.kind in ("district", *SPECIFIC_KINDS) else "country"
    context = next((p.name for p in outer if p.kind == wanted), None)
    return f"{place.name}, {context}" if context else place.name


@cache
def _alias_patterns() -> tuple[tuple[re.Pattern[str], Place], ...]:
    patterns: list[tuple[int, re.Pattern[str], Place]] = []
    for place in places().values():
        for alias in place.aliases:
            text = normalize(alias).strip()
            body = re.escape(text)
            pattern = body if _CJK.search(text) else rf"(?<![0-9a-z]){body}(?![0-9a-z])"
            patterns.append((len(text), re.compile(pattern), place))
    patterns.sort(key=lambda item: -item[0])  # longer aliases claim their span first
    return tuple((pattern, place) for _, pattern, place in patterns)


def _matches(text: str) -> tuple[list[Place], str]:
    """Places named in ``text`` (longest alias first, no overlaps) and the text left over."""
    taken = [False] * len(text)
    found: list[Place] = []
    for pattern, place in _alias_patterns():
        for hit in pattern.finditer(text):
            if any(taken[hit.start() : hit.end()]):
                continue
            taken[hit.start() : hit.end()] = [True] * (hit.end() - hit.start())
            if place not in found:
                found.append(place)
    rest = "".join(" " if used else ch for ch, used in zip(text, taken, strict=True))
    return found, rest


def _unknown_words(rest: str) -> list[str]:
    unknown: list[str] = []
    for token in rest.split():
        if token.isdigit() or token in GENERIC_WORDS:
            continue
        if _CJK.search(token):
            for word in GENERIC_CJK:
                token = token.replace(word, "")
            if not token.strip():
                continue
        unknown.append(token)
    return unknown


def _most_specific(found: list[Place]) -> Place | None:
    """The one place every other found place contains, if there is one."""
    for place in found:
        outer = {p.id for p in ancestors(place)} | {place.id}
        if all(other.id in outer for other in found):
            return place
    return None


def places_in(text: str) -> list[Place]:
    """Every known place a text names (for checking prompts, not for geocoding)."""
    return _matches(normalize(text))[0]


def geocode(address: str, country: str | None = None) -> Found:
    found, rest = _matches(normalize(address))
    if not found:
        return Found(None, f"no place found for {address!r}")
    place = _most_specific(found)
    if place is None:
        names = ", ".join(p.name for p in found)
        return Found(None, f"{address!r} names places that do not nest: {names}")
    unknown = _unknown_words(rest)
    if unknown and not place.specific:
        return Found(None, f"no place found for {address!r} ({' '.join(unknown)!r} is unknown)")
    if country and (country_code(place) or "").upper() != country.upper():
        return Found(None, f"{place.name} is not in country {country.upper()!r}")
    return Found(place)
