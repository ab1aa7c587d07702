"""How people write the names of cities whose slug is not simply the lower-case name.

A *spoken form* is a way to name a register city in a question ("München", "Halle (Saale)",
"Frankfurt", "Munich"), classified by what makes its slug hard to derive. Forms come from the
register names and the API's documented aliases; the generator asks for each kind in turn and
verifies that the API resolves every form it uses to the gold slug.

The slug rule the tool descriptions state (``slug_rule``): the slug is the city's full official
name, lower-case, with ä/ö/ü as ae/oe/ue, ß as ss, the bracket characters dropped (their content
kept) and spaces as hyphens. A form is *derivable* when that rule gives the gold slug from what
the question writes: the rule applied to the form itself, or, for a short form (the first words
of exactly one register name) or an exonym ("Munich"), to the one official name it denotes.
"Freiburg (Breisgau)" is not derivable (the rule gives ``freiburg-breisgau``; the official name
is "Freiburg im Breisgau"), so no question uses it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tooleval.suites.infranode.confusables import fold

# In the order slug_resolution asks for them (a kind without forms is skipped).
KINDS = ("umlaut", "bracket", "short_form", "exonym", "multi_word", "eszett")
PARTICLES = frozenset({"am", "an", "der", "im", "in", "ob", "bei", "vor", "auf"})
_SLUG_LETTERS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "(": "", ")": ""})


@dataclass(frozen=True)
class CityName:
    slug: str
    name: str


@dataclass(frozen=True)
class SpokenForm:
    text: str
    slug: str
    kind: str
    rank: (
        int  # 0: the register name, 1: a documented alias, 2: another alias, 3: one that adds words
    )


def slug_rule(name: str) -> str:
    """The slug the tool descriptions' rule makes of an official name ("Halle (Saale)" ->
    "halle-saale")."""
    return "-".join(name.lower().translate(_SLUG_LETTERS).split())


def denoted_slugs(
    text: str, kind: str, cities: Sequence[CityName], exonyms: Iterable[str]
) -> set[str]:
    """The register slugs a written name leads to by the slug rule: the rule applied to the name
    itself, or, for a short form or an exonym, applied to the official name(s) it denotes."""
    slugs = {c.slug for c in cities if slug_rule(text) == c.slug}
    if kind == "short_form":
        words = fold_words(text)
        slugs |= {
            slug_rule(c.name)
            for c in cities
            if len(fold_words(c.name)) > len(words) and fold_words(c.name)[: len(words)] == words
        }
    if kind == "exonym":
        slugs |= {slug for slug in exonyms if slug in {c.slug for c in cities}}
    return slugs


def derivable(form: SpokenForm, cities: Sequence[CityName], exonyms: Iterable[str] = ()) -> bool:
    """Whether the slug rule leads from ``form`` to its slug and to no other city's
    (``exonyms``: the slugs the form names as an exonym)."""
    return denoted_slugs(form.text, form.kind, cities, exonyms) == {form.slug}


def fold_words(text: str) -> list[str]:
    return fold(text).split()


def is_plain(slug: str, name: str) -> bool:
    """A city whose slug is just its lower-case name (no umlaut, ß, space or bracket)."""
    return slug == name.lower()


def display_alias(alias: str) -> str | None:
    """An alias as written in a sentence ("mülheim (ruhr)" -> "Mülheim (Ruhr)").

    None for abbreviations and slashes ("frankfurt a.m.", "frankfurt/main"), which have no
    single accepted capitalisation.
    """
    if "." in alias or "/" in alias:
        return None
    words = []
    for word in alias.split(" "):
        bracket = word.startswith("(")
        core = word.lstrip("(")
        core = core if core in PARTICLES else core[:1].upper() + core[1:]
        words.append(("(" if bracket else "") + core)
    return " ".join(words)


def form_kind(text: str, city_name: str) -> str | None:
    """What makes ``text`` (a name of ``city_name``) hard to turn into the slug; None if plain."""
    words, city_words = fold_words(text), fold_words(city_name)
    if words and city_words and not city_words[0].startswith(words[0]):
        return "exonym"
    if len(words) < len(city_words) and city_words[: len(words)] == words:
        return "short_form"
    if "(" in text:
        return "bracket"
    if "ß" in text:
        return "eszett"
    if " " in text:
        return "multi_word"
    if any(ch in text for ch in "äöüÄÖÜ"):
        return "umlaut"
    return None


def alias_rank(text: str, city_name: str, kind: str, documented: bool) -> int:
    """How readily people write an alias: documented ones first, then those that only reuse
    words of the register name ("Frankfurt (Main)"), then those adding words ("Münster (Westf)")."""
    if documented:
        return 1
    reused = set(fold_words(text)) <= set(fold_words(city_name))
    return 2 if kind == "exonym" or reused else 3


def spoken_forms(
    cities: Sequence[CityName], aliases: Iterable[tuple[str, str, bool]]
) -> list[SpokenForm]:
    """Every hard, derivable form: the register names that are not plain, then the aliases given
    as (alias, slug, documented) from which the slug rule leads to their slug alone."""
    names = {c.slug: c.name for c in cities}
    aliases = list(aliases)
    forms: list[SpokenForm] = []
    for city in cities:
        kind = form_kind(city.name, city.name) if not is_plain(city.slug, city.name) else None
        if kind is not None and derivable(SpokenForm(city.name, city.slug, kind, 0), cities):
            forms.append(SpokenForm(city.name, city.slug, kind, 0))
    for alias, slug, documented in aliases:
        text = display_alias(alias)
        if text is None or slug not in names or text == names[slug]:
            continue
        kind = form_kind(text, names[slug])
        form = SpokenForm(text, slug, kind or "", 0)
        same = {other for text_, other, _ in aliases if text_.casefold() == alias.casefold()}
        if kind is not None and derivable(form, cities, same):
            forms.append(
                SpokenForm(text, slug, kind, alias_rank(text, names[slug], kind, documented))
            )
    return forms
