"""The simulated geocoder and CSS colours: every name of a place or colour, honest failures."""

from __future__ import annotations

import re

import matplotlib.colors
import pytest

from tooleval.suites.cesium.css_color import named_colors, parse_css_color, same_color
from tooleval.suites.cesium.gazetteer import Found, display_name, geocode, places
from tooleval.suites.cesium.routing_eval import load_routing_cases
from tooleval.suites.cesium.scenarios import load_scenarios


def place_of(address: str, country: str | None = None) -> str | None:
    found = geocode(address, country).place
    return found.id if found else None


@pytest.mark.parametrize(
    ("addresses", "place"),
    [
        (["上海外滩", "外滩", "The Bund, Shanghai", "Bund, Shanghai, China", "Shanghai Bund",
          "the bund", "Waitan", "外滩，上海市黄浦区"], "the-bund"),
        (["Tokyo Tower", "東京タワー", "东京塔", "Tokyo Tower, Minato City, Tokyo, Japan"],
         "tokyo-tower"),
        (["Eiffel Tower", "La Tour Eiffel, Paris", "埃菲尔铁塔", "Eiffel Tower, Champ de Mars"],
         "eiffel-tower"),
        (["Forbidden City", "故宫", "紫禁城", "Palace Museum (Forbidden City), Beijing",
          "the Forbidden City, Beijing, China"], "forbidden-city"),
        (["Musée du Louvre", "musee du louvre", "卢浮宫"], "louvre"),
        (["1 Market Street, San Francisco", "1 Market St, San Francisco, CA 94105"],
         "1-market-street"),
        (["北京市东城区", "Dongcheng District, Beijing"], "dongcheng"),
        (["Tokyo", "Tokyo, Japan", "東京都"], "tokyo"),
        (["北京", "Beijing", "北京市", "Beijing City"], "beijing"),
    ],
)  # fmt: skip
def test_every_name_and_language_finds_the_same_place(addresses: list[str], place: str) -> None:
    assert {a: place_of(a) for a in addresses} == dict.fromkeys(addresses, place)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("Atlantis", "no place found"),
        ("Eiffel Tower, Beijing", "do not nest"),  # contradictory names
        ("Forbidden City and Tiananmen", "do not nest"),  # two places at once
        ("500 Market Street, San Francisco", "is unknown"),  # not the city centre
        ("Shanghai Zoo", "is unknown"),
        ("上海动物园", "is unknown"),
        ("Golden Gate Park", "no place found"),
        ("the stadium", "no place found"),
        ("Paris Hilton", "is unknown"),
    ],
)
def test_unknown_places_fail_honestly(address: str, reason: str) -> None:
    found = geocode(address)
    assert found.place is None and reason in found.reason


def test_country_code_must_agree() -> None:
    assert place_of("外滩", "cn") == "the-bund"
    found = geocode("外滩", "JP")
    assert found == Found(None, "The Bund is not in country 'JP'")


def test_display_names_name_the_city() -> None:
    names = {p: display_name(places()[p]) for p in ("the-bund", "beijing", "dongcheng")}
    assert names == {
        "the-bund": "The Bund, Shanghai",
        "beijing": "Beijing, China",
        "dongcheng": "Dongcheng District, Beijing",
    }


def test_places_named_by_scenarios_and_routing_prompts_resolve() -> None:
    prompts = {s.prompt for s in load_scenarios()} | {c.prompt for c in load_routing_cases()}
    named = {
        "Tokyo": "tokyo", "北京": "beijing", "Forbidden City": "forbidden-city",
        "Shibuya Station": "shibuya-station", "东方明珠": "oriental-pearl",
        "天安门": "tiananmen", "北京市东城区": "dongcheng", "上海外滩": "the-bund",
        "1 Market Street, San Francisco": "1-market-street",
    }  # fmt: skip
    for name, place in named.items():
        assert any(name in p for p in prompts), name
        assert place_of(name) == place


def test_place_data_is_consistent() -> None:
    table = places()
    for place in table.values():
        assert -180 <= place.longitude <= 180 and -90 <= place.latitude <= 90, place.id
        assert place.aliases, place.id
    aliases = [(a.casefold(), p.id) for p in table.values() for a in p.aliases]
    owners: dict[str, set[str]] = {}
    for alias, owner in aliases:
        owners.setdefault(alias, set()).add(owner)
    assert {a: o for a, o in owners.items() if len(o) > 1} == {}


def test_css_named_colours_are_the_148_css_names() -> None:
    expected = {k: v.lower() for k, v in matplotlib.colors.CSS4_COLORS.items()}
    assert named_colors() == expected


@pytest.mark.parametrize(
    "form",
    ["yellow", "YELLOW", " #ff0 ", "#FFFF00", "#ffff00cc", "#FF0F", "rgb(255,255,0)",
     "rgba(255, 255, 0, 0.5)", "rgb(255 255 0 / 50%)", "rgb(100%, 100%, 0%)",
     "hsl(60, 100%, 50%)", "hsla(60deg 100% 50% / .3)", "hsl(0.1666667turn, 100%, 50%)",
     "hsl(1.0472rad 100% 50%)", "hsl(66.6667grad, 100%, 50%)"],
)  # fmt: skip
def test_every_css_form_of_yellow_is_yellow(form: str) -> None:
    assert same_color(form, "yellow")


@pytest.mark.parametrize(
    "value", ["gold", "rgba(255, 255, 0, 0)", "transparent", "#ff00", "rgb(255,255)", "yelow",
              "hsl(60, 100%)", "rgb(255, 255, 0) extra", 16776960, None, "#ggg"],
)  # fmt: skip
def test_other_colours_and_non_colours_are_not_yellow(value: object) -> None:
    assert not same_color(value, "yellow")


def test_parsed_channels() -> None:
    assert parse_css_color("hsl(120, 100%, 25%)") == (0, 128, 0, 1.0)
    assert parse_css_color("rgb(300, -5, 127.6)") == (255, 0, 128, 1.0)  # clamped, rounded
    assert parse_css_color("#0000ff80") == (0, 0, 255, 128 / 255)
    assert all(re.fullmatch(r"#[0-9a-f]{6}", v) for v in named_colors().values())
