"""``tooleval audit``: the shipped suite and every generated size are free of defects, and each
defect the review of suite 1.0.0 named is found in the 1.0.0 tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval.cli import main
from tooleval.records import Task
from tooleval.suites import tool_specs_from_json
from tooleval.suites.infranode import CATEGORIES, SUITE_VERSION, load_tasks, load_tools
from tooleval.suites.infranode.audit import AuditReport, audit_tasks, available_kinds, suite_defects
from tooleval.suites.infranode.audit_items import AuditContext, Defect
from tooleval.suites.infranode.client import MemoTransport, make_transport
from tooleval.suites.infranode.generator import GeneratorConfig, generate_tasks
from tooleval.tasks import iter_jsonl_text, task_from_json

OLD = Path(__file__).parent / "data" / "infranode_1_0_0"
REPLICA = MemoTransport(make_transport(None))


def read_old_tasks() -> list[Task]:
    text = (OLD / "tasks.jsonl").read_text(encoding="utf-8")
    return [task_from_json(row, f"1.0.0:{line}") for line, row in iter_jsonl_text(text, "1.0.0")]


@pytest.fixture(scope="module")
def old_report() -> AuditReport:
    """The 1.0.0 tasks, audited as the model saw them then (the 1.0.0 tools.json)."""
    tools = tool_specs_from_json(json.loads((OLD / "tools.json").read_text("utf-8")), "1.0.0")
    return audit_tasks(read_old_tasks(), tools, CATEGORIES, "1.0.0", "1.0.0", REPLICA)


@pytest.fixture(scope="module")
def largest() -> list[Task]:
    """The largest suite the API's coverage allows (every category at its capacity)."""
    return generate_tasks(REPLICA, GeneratorConfig(max_per_category=10_000))


def test_shipped_suite_has_no_defect(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit"]) == 0
    assert "0 defects" in capsys.readouterr().out


def test_json_report_lists_categories_and_no_defects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["defects"] == []
    assert report["version"] == SUITE_VERSION and report["tasks"] == len(load_tasks())
    stats = {c["category"]: c for c in report["categories"]}
    assert set(stats) == set(CATEGORIES)
    assert stats["slug_resolution"]["kinds"].keys() >= {"umlaut", "bracket", "exonym"}


def test_largest_generated_suite_has_no_item_defect(largest: list[Task]) -> None:
    assert len(largest) > 400
    report = audit_tasks(largest, load_tools(), CATEGORIES, SUITE_VERSION, "largest", REPLICA)
    assert report.defects == ()


def test_every_max_per_category_size_has_no_suite_defect(largest: list[Task]) -> None:
    """Sizes are prefixes of the largest suite, so the per-item audit above covers their items;
    what changes with the size is variety and duplication, checked here for every size."""
    context = AuditContext(load_tools(), (), REPLICA, SUITE_VERSION)
    available = available_kinds(context)
    by_category = {c: [t for t in largest if t.category == c] for c in CATEGORIES}
    for size in range(1, max(len(v) for v in by_category.values()) + 1):
        tasks = [t for c in CATEGORIES for t in by_category[c][:size]]
        assert suite_defects(tasks, CATEGORIES, available) == [], size


def test_another_seed_is_defect_free_at_every_size() -> None:
    """The rules are general: a different seed draws other cities, templates and keys."""
    tasks = generate_tasks(REPLICA, GeneratorConfig(seed=1, max_per_category=10_000))
    report = audit_tasks(tasks, load_tools(), CATEGORIES, SUITE_VERSION, "seed 1", REPLICA)
    assert report.defects == ()
    available = available_kinds(AuditContext(load_tools(), (), REPLICA, SUITE_VERSION))
    by_category = {c: [t for t in tasks if t.category == c] for c in CATEGORIES}
    for size in range(1, max(len(v) for v in by_category.values()) + 1):
        sized = [t for c in CATEGORIES for t in by_category[c][:size]]
        assert suite_defects(sized, CATEGORIES, available) == [], size


def test_a_defect_makes_the_command_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = (Path(__file__).parents[1] / "src/tooleval/suites/infranode/tasks.jsonl").read_text(
        encoding="utf-8"
    )
    first = shipped.splitlines()[0]
    twice = tmp_path / "twice.jsonl"
    twice.write_text(shipped + first.replace('"routing_broad-001"', '"copy-1"') + "\n", "utf-8")
    assert main(["audit", "--tasks", str(twice)]) == 1
    assert "duplicate_question" in capsys.readouterr().out


def test_bad_tasks_file_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["audit", "--tasks", str(bad)]) == 2
    assert f"{bad}:1: field 'gold'" in capsys.readouterr().err
    assert main(["audit", "--tasks", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.startswith("tooleval audit: cannot read ")


def test_a_suite_without_an_audit_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["audit", "--suite", "cesium"])
    assert stop.value.code == 2
    assert "invalid choice: 'cesium'" in capsys.readouterr().err


def found(report: AuditReport, task_id: str | None, check: str, text: str) -> list[Defect]:
    return [
        d for d in report.defects if d.task_id == task_id and d.check == check and text in d.message
    ]


@pytest.mark.parametrize(
    ("task_id", "check", "text"),
    [
        # a second defensible key, given only the tool descriptions
        ("not_covered-007", "wording", "also fits construction, traffic"),
        ("not_covered-003", "wording", "also fits water-level"),
        ("resource_key-012", "wording", "solar-roofs"),
        ("resource_key-006", "wording", "solar"),
        ("poi_type-005", "wording", "education"),
        ("poi_type-010", "wording", "education"),
        # asking for more than the payload holds
        ("resource_key-014", "wording", "Schulferien"),
        ("resource_key-008", "wording", "nationwide"),
        # answers printed in the prompt
        ("slug_resolution-002", "prompt_leak", "'muenchen'"),
        ("slug_resolution-007", "prompt_leak", "'frankfurt-am-main'"),
        # slug conversion outside slug_resolution
        ("two_step-001", "slug_rule", "duesseldorf"),
        ("two_step-004", "slug_rule", "frankfurt-am-main"),
        # unnatural German
        ("compare_multi-003", "either_or", "'oder'"),
        ("compare_multi-004", "one_sentence", "one sentence"),
        ("routing_broad-006", "city_word", "'Essen' reads as das Essen"),
        # suite-wide: slug_resolution coverage, copied templates, thin variety
        (None, "kind_variety", "slug_resolution: 2 distinct of 5"),
        (None, "template_shared", "routing_named, slug_resolution"),
        (None, "template_shared", "not_covered, resource_key"),
        (None, "kind_variety", "not_covered: 8 distinct"),
        (None, "variety", "routing_named: 7 of 12 questions open with 'wie'"),
        (None, "variety", "resource_key: 12 of 24 questions open with 'wie'"),
    ],
)
def test_each_defect_of_suite_1_0_0_is_found(
    old_report: AuditReport, task_id: str | None, check: str, text: str
) -> None:
    assert found(old_report, task_id, check, text), [
        d for d in old_report.defects if d.check == check
    ]


def test_the_second_review_of_2_0_0_is_enforced() -> None:
    """A city that is also a word is named as a place; no template asks for a forecast, a
    rating or a panorama; the unnatural templates of the first 2.0.0 draft are gone."""
    from tooleval.suites.infranode import phrasing, phrasing_keys
    from tooleval.suites.infranode.audit_items import item_defects

    shipped = next(t for t in load_tasks() if t.gold.arguments.get("slug") == "essen")
    topic = Task(shipped.id, shipped.category, "Überblick über Essen?", shipped.gold, "2.0.0")
    context = AuditContext(load_tools(), (), REPLICA, SUITE_VERSION)
    assert [d.check for d in item_defects(topic, context, ("city_word",))] == ["city_word"]
    banks = [phrasing.OVERVIEW, phrasing.WEATHER, phrasing.POI_GENERIC, phrasing.SLUG_WEATHER]
    banks += [*phrasing.POI_SPECIFIC.values(), *phrasing_keys.RESOURCE_PHRASES.values()]
    texts = {p.text for bank in banks for p in bank}
    assert not texts & {
        "Rundumblick auf {city}, bitte.",
        "Mit wie viel Wind muss man in {city} gerade rechnen?",
        "Wo kann man in {city} gut essen gehen?",
        "Ich bin gerade in {city} und suche {one}. Wo gibt's da welche?",
        "Welche Temperatur hat es momentan in {city}?",
        "Sucht {city} gerade Firmen für öffentliche Aufträge? Was ist ausgeschrieben?",
    }


def test_the_reviewed_unnatural_questions_are_gone_from_the_phrase_bank() -> None:
    from tooleval.suites.infranode import phrasing, phrasing_keys

    texts = {p.text for bank in phrasing_keys.RESOURCE_PHRASES.values() for p in bank}
    texts |= {p.text for bank in phrasing.COMPARE_PHRASES.values() for p in bank}
    old = {
        "Wie viele Übernachtungen zählt der Tourismus in {city}?",
        "Wo ist die Luft gerade besser: {cities}?",
        "Gibt es in {cities} gerade Unwetterwarnungen? Bitte im Vergleich.",
    }
    assert not texts & old


def test_a_two_step_item_states_the_board_its_question_asks_for() -> None:
    """Each shipped two_step item says departures or arrivals, matching its template's bank;
    an item without it is a defect (the episode scorer accepts only the stated board)."""
    from tooleval.suites.infranode import phrasing
    from tooleval.suites.infranode.audit_items import item_defects

    banks = {"departures": phrasing.DEPARTURES, "arrivals": phrasing.ARRIVALS}
    two_step = [t for t in load_tasks() if t.category == "two_step"]
    for task in two_step:
        target = task.provenance["target_station"]
        template = task.provenance["phrasing"]["template"]
        assert template in {p.text for p in banks[target["board"]]}, task.id
    assert {t.provenance["target_station"]["board"] for t in two_step} == set(banks)
    shipped = two_step[0]
    target = {k: v for k, v in shipped.provenance["target_station"].items() if k != "board"}
    unstated = Task(
        shipped.id, "two_step", shipped.question, shipped.gold, "2.0.0", {},
        {**shipped.provenance, "target_station": target},
    )  # fmt: skip
    context = AuditContext(load_tools(), (), REPLICA, SUITE_VERSION)
    assert [d.message for d in item_defects(unstated, context, ("two_step_target",))] == [
        "target_station.board is not 'departures' or 'arrivals'"
    ]
    assert item_defects(shipped, context, ("two_step_target",)) == []
