"""The InfraNode task generator: reproducible, verified against the API, varied."""

from __future__ import annotations

import collections
import json
from importlib import resources
from pathlib import Path

import pytest

from tooleval.cli import main
from tooleval.commands.generate import tasks_jsonl
from tooleval.suites.infranode import CATEGORIES, DEFAULT_COUNTS, SUITE_VERSION, load_tasks
from tooleval.suites.infranode.api import board_evas, resolve_slug
from tooleval.suites.infranode.api.facts import city_index
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.generator import GeneratorConfig, generate_tasks
from tooleval.suites.infranode.slugforms import display_alias, form_kind, is_plain
from tooleval.tasks import TaskFormatError, iter_jsonl_text, task_from_json

SHIPPED = resources.files("tooleval.suites.infranode").joinpath("tasks.jsonl")
HARD_FORMS = {"umlaut", "bracket", "short_form", "exonym", "multi_word"}


def test_default_output_is_the_shipped_file_byte_for_byte() -> None:
    assert tasks_jsonl(None, GeneratorConfig()) == SHIPPED.read_text(encoding="utf-8")


def test_cli_generate_reproduces_the_shipped_file(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    assert main(["generate", "--out", str(out)]) == 0
    assert out.read_bytes() == SHIPPED.read_bytes()


def test_seed_changes_the_tasks_but_not_their_counts() -> None:
    a = tasks_jsonl(None, GeneratorConfig(seed=1))
    assert a == tasks_jsonl(None, GeneratorConfig(seed=1))
    assert a != tasks_jsonl(None, GeneratorConfig(seed=0))
    assert a.count("\n") == 91


def test_default_counts_per_category_and_version() -> None:
    counts = collections.Counter(t.category for t in load_tasks())
    assert (
        dict(counts)
        == DEFAULT_COUNTS
        == {
            "routing_broad": 12,
            "routing_named": 12,
            "resource_key": 24,
            "slug_resolution": 8,
            "poi_type": 12,
            "compare_multi": 5,
            "not_covered": 12,
            "two_step": 6,
        }
    )
    assert len({t.id for t in load_tasks()}) == 91
    assert {t.suite_version for t in load_tasks()} == {SUITE_VERSION} == {"2.1.0"}


def test_no_question_text_appears_twice() -> None:
    questions = [t.question for t in load_tasks()]
    assert len(set(questions)) == len(questions)


def test_every_gold_call_answers_as_its_category_expects() -> None:
    transport = make_transport(None)
    for task in load_tasks():
        response = execute_tool(transport, task.gold.name, task.gold.arguments)
        expected = "not_covered" if task.category == "not_covered" else "ok"
        assert response.status == 200, task.id
        if task.gold.name == "compare":
            rows = response.body["data"]
            assert [r["source_status"] for r in rows] == ["ok"] * len(rows), task.id
        else:
            assert response.body["meta"]["source_status"] == expected, task.id
        assert task.provenance["source_status"] == expected
        assert task.provenance["request"].startswith("GET /api/v1/")


def test_not_covered_uses_every_partial_key_before_repeating_one() -> None:
    tasks = [t for t in load_tasks() if t.category == "not_covered"]
    keys = collections.Counter(t.gold.arguments["resource"] for t in tasks)
    assert len(keys) == 9  # every catalogue key the coverage map leaves partial
    assert max(keys.values()) - min(keys.values()) <= 1
    transport = make_transport(None)
    for task in tasks:
        meta = execute_tool(transport, task.gold.name, task.gold.arguments).body["meta"]
        assert task.gold.arguments["slug"] not in meta["covered_cities"]


def test_two_step_stations_are_off_the_board_and_listed_as_recorded() -> None:
    transport = make_transport(None)
    two_step = [t for t in load_tasks() if t.category == "two_step"]
    assert len({t.provenance["target_station"]["eva"] for t in two_step}) == len(two_step)
    for task in two_step:
        slug, target = task.gold.arguments["slug"], task.provenance["target_station"]
        assert target["eva"] not in board_evas(slug)
        assert target["name"] in task.question
        body = execute_tool(transport, "stations", {"slug": slug}).body
        listed = [s["name"] for s in body["data"]["payload"]["stations"]]
        assert target["listing"] == listed and target["name"] in listed
        assert task.alternatives == {}  # the stations rule replaces the list of accepted q


def test_outside_slug_resolution_every_city_is_plain_and_named() -> None:
    for task in load_tasks():
        if task.category == "slug_resolution":
            continue
        args = task.gold.arguments
        for slug in args.get("cities") or [args["slug"]]:
            city = city_index()[slug]
            assert is_plain(city.slug, city.name_de), (task.id, slug)
            assert city.name_de in task.question, task.id


def test_slug_resolution_covers_every_hard_form_and_gives_no_slug_away() -> None:
    tasks = [t for t in load_tasks() if t.category == "slug_resolution"]
    kinds = {t.provenance["slug_form"]["kind"] for t in tasks}
    assert kinds == HARD_FORMS
    for task in tasks:
        form, slug = task.provenance["slug_form"]["text"], task.gold.arguments["slug"]
        assert form in task.question and slug not in task.question.casefold()
        assert resolve_slug(form) == slug


def test_slug_forms_are_classified_by_what_makes_them_hard() -> None:
    assert form_kind("München", "München") == "umlaut"
    assert form_kind("Halle (Saale)", "Halle (Saale)") == "bracket"
    assert form_kind("Frankfurt", "Frankfurt am Main") == "short_form"
    assert form_kind("Cologne", "Köln") == "exonym"
    assert form_kind("Hanover", "Hannover") == "exonym"
    assert form_kind("Bergisch Gladbach", "Bergisch Gladbach") == "multi_word"
    assert form_kind("Gießen", "Gießen") == "eszett"
    assert form_kind("Berlin", "Berlin") is None
    assert display_alias("mülheim (ruhr)") == "Mülheim (Ruhr)"
    assert display_alias("halle an der saale") == "Halle an der Saale"
    assert display_alias("frankfurt a.m.") is None


def test_max_per_category_scales_the_suite_as_prefixes() -> None:
    transport = make_transport(None)
    small = generate_tasks(transport, GeneratorConfig(max_per_category=2))
    assert len(small) == 2 * len(CATEGORIES)
    large = generate_tasks(transport, GeneratorConfig(max_per_category=30))
    counts = collections.Counter(t.category for t in large)
    assert counts["resource_key"] == 30 and counts["routing_broad"] == 30
    assert counts["not_covered"] == 27  # 9 partial keys x 3 own phrasings
    for category in CATEGORIES:
        in_small = [t.question for t in small if t.category == category]
        in_large = [t.question for t in large if t.category == category]
        assert in_large[: len(in_small)] == in_small, category


def test_jsonl_rows_carry_the_phrasing_they_came_from() -> None:
    for line in SHIPPED.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        phrasing = row["provenance"]["phrasing"]
        assert phrasing["register"] in ("formal", "colloquial", "terse")
        assert "{" in phrasing["template"]


def test_malformed_task_line_names_file_and_line() -> None:
    text = '{"id": "a"}\n\n{not json}\n'
    with pytest.raises(TaskFormatError, match=r"my\.jsonl:3: invalid JSON"):
        list(iter_jsonl_text(text, "my.jsonl"))
    line, row = next(iter_jsonl_text(text, "my.jsonl"))
    with pytest.raises(TaskFormatError, match=r"my\.jsonl:1: field 'gold' must be a dict"):
        task_from_json(row, f"my.jsonl:{line}")


def test_suite_readme_states_version_changelog_and_capacities() -> None:
    readme = resources.files("tooleval.suites.infranode").joinpath("README.md").read_text("utf-8")
    assert f"version **{SUITE_VERSION}**" in readme
    assert f"\n- {SUITE_VERSION} (" in readme
    largest = generate_tasks(make_transport(None), GeneratorConfig(max_per_category=10_000))
    counts = collections.Counter(t.category for t in largest)
    stated = (
        f"at most {counts['routing_broad']} per city category ({counts['routing_named']} "
        f"routing_named), {counts['resource_key']} "
        f"resource_key, {counts['slug_resolution']} slug_resolution, {counts['not_covered']} "
        f"not_covered, {counts['two_step']} two_step"
    )
    assert stated in " ".join(readme.split())
    assert counts["routing_broad"] == counts["poi_type"] == counts["compare_multi"] == 62
