"""Tolerant slug resolution and the "Meintest du ...?" hint of the InfraNode replica."""

from __future__ import annotations

import pytest

from tooleval.suites.infranode.api import InfraNodeReplica, nearest_slug, resolve_slug
from tooleval.suites.infranode.api.facts import cities
from tooleval.suites.infranode.api.slugs import name_matches


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("München", "muenchen"),
        ("münchen", "muenchen"),
        ("munich", "muenchen"),
        ("munchen", "muenchen"),
        ("MUENCHEN", "muenchen"),
        ("cologne", "koeln"),
        ("Köln", "koeln"),
        ("koln", "koeln"),
        ("frankfurt", "frankfurt-am-main"),
        ("Frankfurt am Main", "frankfurt-am-main"),
        ("Frankfurt (Main)", "frankfurt-am-main"),
        ("Düsseldorf", "duesseldorf"),
        ("dusseldorf", "duesseldorf"),
        ("Halle (Saale)", "halle-saale"),
        ("Mülheim an der Ruhr", "muelheim-an-der-ruhr"),
        ("nuremberg", "nuernberg"),
        ("  Bergisch Gladbach ", "bergisch-gladbach"),
        ("Freiburg im Breisgau", "freiburg-im-breisgau"),
        ("Osnabrück", "osnabrueck"),
    ],
)
def test_documented_and_derived_forms_resolve(name: str, slug: str) -> None:
    assert resolve_slug(name) == slug


def test_every_register_slug_and_name_resolves_to_itself() -> None:
    for city in cities():
        assert resolve_slug(city.slug) == city.slug
        assert resolve_slug(city.name_de) == city.slug
        assert resolve_slug(city.name_de.upper()) == city.slug


@pytest.mark.parametrize(
    "name", ["Konstanz", "Tübingen", "Frankfurt (Oder)", "Weimar", "atlantis", "", "berlin-x"]
)
def test_cities_outside_the_register_do_not_resolve(name: str) -> None:
    assert resolve_slug(name) is None


def test_nearest_slug_suggests_a_close_register_slug() -> None:
    assert nearest_slug("Muenchn") == "muenchen"
    assert nearest_slug("Frankfurt (Oder)") == "frankfurt-am-main"
    assert nearest_slug("Dusseldorff") == "duesseldorf"
    assert nearest_slug("") is None


def test_unknown_city_404_carries_meintest_du_hint() -> None:
    response = InfraNodeReplica().get("/api/v1/cities/Muenchn/weather")
    assert response.status == 404
    error = response.body["error"]
    assert error["code"] == "not_found"
    assert "Muenchn" in error["message"]
    assert error["hint"].startswith("Meintest du 'muenchen'?")
    assert "/api/v1/cities" in error["hint"]


def test_data_type_used_as_city_gets_its_own_hint() -> None:
    response = InfraNodeReplica().get("/api/v1/cities/weather")
    assert response.status == 404
    assert "Datenart" in response.body["error"]["hint"]
    assert "/api/v1/cities/berlin/weather" in response.body["error"]["hint"]


def test_alias_in_path_answers_for_the_canonical_city() -> None:
    replica = InfraNodeReplica()
    by_alias = replica.get("/api/v1/cities/M%C3%BCnchen/weather").body["data"]
    by_slug = replica.get("/api/v1/cities/muenchen/weather").body["data"]
    assert by_alias == by_slug
    assert by_alias["city_slug"] == "muenchen"


@pytest.mark.parametrize(
    ("query", "name", "expected"),
    [
        ("munchen", "München Hbf", True),
        ("muenchen", "München Hbf", True),
        ("ostkreuz", "Berlin Ostkreuz", True),
        ("Berlin Friedrichstraße", "Berlin-Friedrichstraße", True),
        ("friedrichstrasse", "Berlin-Friedrichstraße", True),
        ("hamburg", "Berlin Ostkreuz", False),
    ],
)
def test_station_name_filter_is_umlaut_tolerant(query: str, name: str, expected: bool) -> None:
    assert name_matches(query, name) is expected
