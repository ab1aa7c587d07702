"""Suite 2.1.0: each defect the item review of 2.0.0 found is fixed by a general rule, and the
audit finds it in the 2.0.0 tasks (as the model saw them then: the 2.0.0 tools.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval.records import Task, ToolCall
from tooleval.scoring import listing_target, score_call
from tooleval.suites import tool_specs_from_json
from tooleval.suites.infranode import (
    CATEGORIES,
    SUITE_VERSION,
    load_tasks,
    load_tools,
    replica_exec_match,
)
from tooleval.suites.infranode.api.facts import cities, local_features
from tooleval.suites.infranode.audit import AuditReport, audit_tasks
from tooleval.suites.infranode.audit_given import check_gloss, check_slug_derivable, glosses
from tooleval.suites.infranode.audit_items import AuditContext
from tooleval.suites.infranode.client import MemoTransport, execute_tool, make_transport
from tooleval.suites.infranode.confusables import call_subject, load_table
from tooleval.suites.infranode.generator import GeneratorConfig, generate_tasks
from tooleval.suites.infranode.slugforms import SpokenForm, slug_rule
from tooleval.tasks import iter_jsonl_text, task_from_json

V2 = Path(__file__).parent / "data" / "infranode_2_0_0"
REPLICA = MemoTransport(make_transport(None))
BOARDS = {"station_board_departures", "station_board_arrivals"}


def read_v2_tasks() -> list[Task]:
    text = (V2 / "tasks.jsonl").read_text(encoding="utf-8")
    return [task_from_json(row, f"2.0.0:{line}") for line, row in iter_jsonl_text(text, "2.0.0")]


@pytest.fixture(scope="module")
def v2_report() -> AuditReport:
    tools = tool_specs_from_json(json.loads((V2 / "tools.json").read_text("utf-8")), "2.0.0")
    return audit_tasks(read_v2_tasks(), tools, CATEGORIES, "2.0.0", "2.0.0", REPLICA)


@pytest.fixture(scope="module")
def largest() -> list[Task]:
    return generate_tasks(REPLICA, GeneratorConfig(max_per_category=10_000))


@pytest.mark.parametrize(
    ("task_id", "check", "text"),
    [
        # D2: a bracket alias whose slug the stated rule does not give
        ("slug_resolution-007", "slug_derivable", "'freiburg-breisgau'"),
        # D4: the asked board is not recorded, so a direct board call could not be credited
        ("two_step-003", "two_step_target", "target_station.board"),
        # D5: the German gloss of the gold POI type is in the tool text
        ("poi_type-002", "gloss", "'apotheke'"),
        ("poi_type-003", "gloss", "'polizei'"),
        ("poi_type-004", "gloss", "'kita'"),
        ("poi_type-004", "wording", "education"),  # kindergartens are in education too
        # D6: a gauge in a city without one
        ("resource_key-015", "gold_executes", "no_data"),
        # D9: a city asked the same in two categories; keys shared by two categories
        ("compare_multi-004", "repeated_pair", "hamburg unemployment"),
        ("compare_multi-002", "repeated_pair", "magdeburg weather"),
        (None, "shared_key", "flood"),
        (None, "shared_key", "tree-cadastre"),
    ],
)
def test_each_defect_of_suite_2_0_0_is_found(
    v2_report: AuditReport, task_id: str | None, check: str, text: str
) -> None:
    hits = [
        d
        for d in v2_report.defects
        if d.task_id == task_id and d.check == check and text in d.message
    ]
    assert hits, [d for d in v2_report.defects if d.check == check]


# -- D2/D3: the slug rule is stated, holds for the register, and decides every item --------


def test_the_slug_rule_gives_every_register_slug_from_its_official_name() -> None:
    assert len(cities()) == 84
    assert [(c.name_de, c.slug) for c in cities() if slug_rule(c.name_de) != c.slug] == []


def test_every_slug_description_states_the_rule_in_full() -> None:
    texts = [
        text
        for tool in load_tools()
        for text in json.dumps(tool.parameters, ensure_ascii=False).split('"description": ')
        if text.startswith('"Kanonischer Slug')
    ]
    assert len(texts) == 8  # seven slug arguments and the items of compare.cities
    for text in texts:
        for part in ("vollständigen amtlichen Namen", "'am …'", "Zusatz in Klammern"):
            assert part in text
        for part in ("ae/oe/ue", "ß zu ss", "Klammerzeichen entfallen (ihr Inhalt bleibt)"):
            assert part in text


def test_only_forms_the_rule_decides_are_asked(largest: list[Task]) -> None:
    forms = {t.provenance["slug_form"]["text"] for t in largest if t.category == "slug_resolution"}
    underivable = {
        "Freiburg (Breisgau)",
        "Mülheim (Ruhr)",
        "Frankfurt (Main)",
        "Münster (Westf)",
        "Halle an der Saale",
    }
    assert not forms & underivable
    # short forms and exonyms that name one official name of the register stay
    assert {"Frankfurt", "Freiburg", "Offenbach", "Munich", "Cologne", "Halle (Saale)"} <= forms


def test_slug_derivable_rejects_a_form_the_rule_does_not_decide() -> None:
    context = AuditContext(load_tools(), (), REPLICA, SUITE_VERSION)
    gold = ToolCall("weather", {"slug": "muenster"})

    def item(text: str) -> Task:
        form = SpokenForm(text, "muenster", "bracket", 3)
        provenance = {"slug_form": {"text": form.text, "kind": form.kind}}
        return Task(
            "slug_resolution-1", "slug_resolution", f"Wetter in {text}?", gold, "x", {}, provenance
        )

    assert "'muenster-westf'" in check_slug_derivable(item("Münster (Westf)"), context)[0]
    assert check_slug_derivable(item("Münster"), context) == []


# -- D4: a direct board call with the station's EVA number gives what was asked ------------


def two_step_tasks() -> list[Task]:
    return [t for t in load_tasks() if t.category == "two_step"]


@pytest.mark.parametrize("item", two_step_tasks(), ids=lambda t: t.id)
def test_the_asked_board_with_the_station_eva_scores_like_the_gold(item: Task) -> None:
    target = listing_target(item)
    assert target is not None and target.board in BOARDS and target.eva
    for eva in (target.eva, f"  {target.eva} ", int(target.eva)):
        direct = ToolCall(target.board, {"eva": eva})
        assert score_call(item, direct).call_match == 1
        assert replica_exec_match(item, direct) == 1
    other_board = (BOARDS - {target.board}).pop()
    wrong = [
        ToolCall(other_board, {"eva": target.eva}),  # the other direction
        ToolCall(target.board, {"eva": "8011160"}),  # another station
        ToolCall(target.board, {"eva": target.eva, "slug": item.gold.arguments["slug"]}),
    ]
    for call in wrong:
        assert score_call(item, call).call_match == 0, call
    assert replica_exec_match(item, wrong[0]) == 0
    assert replica_exec_match(item, wrong[1]) == 0


# -- D5: nothing given away in the POI type ------------------------------------------------


def test_no_enum_value_is_glossed_in_german_where_a_question_asks_it() -> None:
    pois = next(t for t in load_tools() if t.name == "pois")
    assert glosses(pois.parameters["properties"]["type"]["description"], "pharmacy") == []
    assert glosses("POI-Typ: pharmacy (Apotheke), police (Polizei).", "pharmacy") == ["apotheke"]
    context = AuditContext(load_tools(), (), REPLICA, SUITE_VERSION)
    assert [t.id for t in load_tasks() if check_gloss(t, context)] == []


def test_kindergartens_are_not_asked_as_a_poi_type(largest: list[Task]) -> None:
    assert not load_table().subjects["poi:kindergarten"].asked
    types = {t.gold.arguments.get("type") for t in largest if t.category == "poi_type"}
    assert types == {"pharmacy", "restaurant", "police"}


# -- D6: a gauge only where there is one ---------------------------------------------------


def test_water_level_is_asked_only_where_a_gauge_is(largest: list[Task]) -> None:
    gauges = local_features()["water-level"]
    bochum = execute_tool(REPLICA, "get_city_data", {"slug": "bochum", "resource": "water-level"})
    assert bochum.body["meta"]["source_status"] == "no_data"
    koeln = execute_tool(REPLICA, "get_city_data", {"slug": "koeln", "resource": "water-level"})
    assert koeln.body["data"]["payload"]["water"] == gauges["koeln"] == "Rhein"
    asked = [t for t in largest if t.gold.arguments.get("resource") == "water-level"]
    assert asked and all(t.gold.arguments["slug"] in gauges for t in asked)


# -- D9: no city asked the same twice; resource_key leaves the partial keys alone ----------


def test_no_city_is_asked_the_same_in_two_categories(largest: list[Task]) -> None:
    first: dict[tuple[str, str], str] = {}
    for task in largest:
        subject = call_subject(task.gold)
        if subject is None or task.category == "two_step":
            continue
        args = task.gold.arguments
        for slug in args.get("cities") or [args["slug"]]:
            category = first.setdefault((slug, subject), task.category)
            assert category == task.category, (slug, subject, category, task.id)


def test_resource_key_and_not_covered_share_no_key(largest: list[Task]) -> None:
    def keys(category: str) -> set[str]:
        return {str(t.gold.arguments["resource"]) for t in largest if t.category == category}

    assert keys("resource_key") and keys("not_covered")
    assert not keys("resource_key") & keys("not_covered")


# -- D10: the reviewed phrasings are gone --------------------------------------------------


def test_the_reviewed_overview_phrasings_are_gone() -> None:
    from tooleval.suites.infranode import phrasing

    texts = {p.text for p in phrasing.OVERVIEW}
    assert "Ein Gesamtbild von {city}, bitte." not in texts
    assert not any(t.startswith("Mich interessiert ein Gesamteindruck") for t in texts)


def test_routing_named_stays_balanced_between_weather_and_air() -> None:
    """Leaving pairs to compare_multi must not tilt routing_named towards one tool."""
    tools = [t.gold.name for t in load_tasks() if t.category == "routing_named"]
    assert tools.count("weather") == tools.count("air_quality") == 6
