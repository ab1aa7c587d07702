"""The confusables table and the wording rule the generator and the audit share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tooleval.suites.infranode import phrasing, phrasing_keys
from tooleval.suites.infranode.api.facts import catalog, poi_types
from tooleval.suites.infranode.confusables import (
    load_table,
    mask,
    question_parts,
    table_from_json,
    unclear_city_names,
    wording_problems,
)
from tooleval.suites.infranode.phrasing import Phrase

TABLE = load_table()


def test_table_covers_every_catalogue_key_and_poi_type() -> None:
    subjects = set(TABLE.subjects)
    assert {entry.key for entry in catalog()} <= subjects
    assert {f"poi:{t}" for t in poi_types()} <= subjects
    for subject in TABLE.subjects.values():
        assert subject.asked or subject.why_not_asked, subject.id
        if subject.asked:
            assert subject.names or subject.id in TABLE.same_as, subject.id


def test_keys_a_second_tool_answers_are_never_asked() -> None:
    never = {s.id for s in TABLE.subjects.values() if not s.asked}
    assert {"health", "hospitals-atlas", "education", "poi:hospital", "poi:school"} <= never
    assert {"power-load", "power-price", "geo", "population-density"} <= never


def filled(text: str) -> str:
    """A template with places masked the way the generator masks them."""
    return (
        text.replace("{cities_and}", "#, # und #")
        .replace("{cities_or}", "# oder #")
        .replace("{city}", "#")
        .replace("{station}", "#")
    )


def bank_questions() -> Iterator[tuple[str, str]]:
    """(question, subject) for every template of every bank, POI nouns filled in."""
    simple: list[tuple[tuple[Phrase, ...], str]] = [
        (phrasing.OVERVIEW, "overview"),
        (phrasing.SLUG_OVERVIEW, "overview"),
        (phrasing.EXONYM_OVERVIEW, "overview"),
        (phrasing.WEATHER, "weather"),
        (phrasing.SLUG_WEATHER, "weather"),
        (phrasing.EXONYM_WEATHER, "weather"),
        (phrasing.AIR, "air-uba"),
        (phrasing.SLUG_AIR, "air-uba"),
        (phrasing.EXONYM_AIR, "air-uba"),
    ]
    simple += [(bank, key) for key, bank in phrasing_keys.RESOURCE_PHRASES.items()]
    simple += [(bank, key) for key, bank in phrasing_keys.NOT_COVERED_PHRASES.items()]
    simple += [(bank, TABLE.canonical(key)) for key, bank in phrasing.COMPARE_PHRASES.items()]
    for bank, subject in simple:
        for phrase in bank:
            yield filled(phrase.text), subject
    for poi, nouns in phrasing.POI_NOUNS.items():
        for phrase in phrasing.POI_GENERIC + phrasing.POI_SPECIFIC.get(poi, ()):
            for plural in nouns.plurals:
                for one in nouns.ones:
                    text = filled(phrase.text).replace("{plural}", plural).replace("{one}", one)
                    yield text, f"poi:{poi}"


def test_every_template_points_to_its_key_alone() -> None:
    problems = [(q, s, wording_problems(q, s)) for q, s in bank_questions()]
    assert [p for p in problems if p[2]] == []
    assert len(problems) > 350


def test_resource_and_not_covered_phrasings_differ() -> None:
    resource = {p.text for bank in phrasing_keys.RESOURCE_PHRASES.values() for p in bank}
    covered = {p.text for bank in phrasing_keys.NOT_COVERED_PHRASES.values() for p in bank}
    assert not resource & covered
    assert set(phrasing_keys.NOT_COVERED_PHRASES) <= set(phrasing_keys.RESOURCE_PHRASES)


def test_every_bank_has_three_registers() -> None:
    for key, bank in phrasing_keys.RESOURCE_PHRASES.items():
        assert {p.register for p in bank} == set(phrasing.REGISTERS), key
    for bank in (phrasing.OVERVIEW, phrasing.WEATHER, phrasing.AIR, phrasing.POI_GENERIC):
        assert {p.register for p in bank} == set(phrasing.REGISTERS)


@pytest.mark.parametrize(
    ("question", "subject", "problem"),
    [
        ("Gibt es für # eine Hochwasserwarnung?", "flood", None),
        ("Droht in # Hochwasser?", "flood", "also fits water-level"),
        ("Straßenbaustellen in #?", "road-events", None),
        ("Baustellen in #?", "road-events", "also fits construction, traffic"),
        ("Welche Baustellen gibt es in der Innenstadt von #?", "road-events", "construction"),
        ("Sperrungen im Stadtgebiet von #?", "road-events", None),
        ("Vollsperrungen in #?", "road-events", "also fits traffic"),
        ("Geeignete Dachflächen für Solaranlagen in #?", "solar-roofs", None),
        ("Kaufkraft und Altersstruktur in #?", "indicators", "also fits demographics"),
        ("Wie viele Dächer in # eignen sich für Photovoltaik?", "solar-roofs", None),
        ("Wie viel Sonne bekommt #, was bringt dort Photovoltaik?", "solar", "also fits"),
        ("Wie warm ist es in #? Und wie ist die Luft?", "weather", "points elsewhere"),
        ("Welche Feiertage und Schulferien hat #?", "holidays", "Schulferien"),
        ("Wie geht es #?", "overview", "no word names overview"),
        ("Wo finde ich in # die nächste Apotheke?", "poi:pharmacy", "nächste"),
        ("Wo kann man in # gut essen gehen?", "poi:restaurant", "gut essen"),
        ("Wo kann man in # essen gehen?", "poi:restaurant", None),
        ("Rundumblick auf #, bitte.", "overview", "no word names overview"),
    ],
)
def test_wording_rule(question: str, subject: str, problem: str | None) -> None:
    problems = wording_problems(question, subject)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_masking_is_case_sensitive_and_parts_split_at_asks() -> None:
    assert mask("Wo kann man in Essen gut essen gehen?", ["Essen"]) == (
        "Wo kann man in # gut essen gehen?"
    )
    assert question_parts("PM2,5 in #? Und, wie warm ist es: heute?") == [
        "PM2,5 in #",
        " Und",
        " wie warm ist es",
        " heute",
    ]


def test_broken_table_names_the_file_and_the_subject() -> None:
    row = {"call": "x", "asked": True, "names": ["A"], "confusable_with": ["nope"]}
    with pytest.raises(ValueError, match=r"t\.json: a: confusable_with names unknown"):
        table_from_json({"subjects": {"a": row}}, "t.json")
    good = {**row, "confusable_with": []}
    bad_shared = {"subjects": {"a": good}, "shared": [{"names": ["b"], "subjects": ["zz"]}]}
    with pytest.raises(ValueError, match=r"t\.json: shared\[0\] names unknown subjects"):
        table_from_json(bad_shared, "t.json")


@pytest.mark.parametrize(
    ("question", "names", "word"),
    [
        ("Überblick über Essen?", ["Essen"], "Essen"),
        ("Essen im Überblick, bitte.", ["Essen"], "Essen"),
        ("Wer versorgt Essen mit Fernwärme?", ["Essen"], "Essen"),
        ("Wie unterscheiden sich Essen und Ulm bei der Kaufkraft?", ["Essen", "Ulm"], "Essen"),
        ("Was weißt du alles über Siegen?", ["Siegen"], "Siegen"),
        ("Alles Wissenswerte zu Münster?", ["Münster"], "Münster"),
        ("Ist die Luft in Essen grad okay?", ["Essen"], None),
        ("Ich zieh bald nach Siegen. Was sollte ich wissen?", ["Siegen"], None),
        ("Wo ist es am wärmsten: in Ulm, Essen oder Siegen?", ["Ulm", "Essen", "Siegen"], None),
        ("Welche Aufträge schreibt die Stadt Essen aus?", ["Essen"], None),
        ("Fass mir das Wichtigste zu Halle (Saale) zusammen.", ["Halle (Saale)"], None),
        ("Wo kann man in Essen essen gehen?", ["Essen"], None),
        ("Abfahrten ab Essen-Steele?", ["Essen-Steele"], None),
    ],
)
def test_a_city_that_is_an_everyday_word_is_named_as_a_place(
    question: str, names: list[str], word: str | None
) -> None:
    problems = unclear_city_names(question, names)
    if word is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(f"'{word}' reads as ")
