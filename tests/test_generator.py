"""The InfraNode task generator: reproducible, verified against the API, varied."""

from __future__ import annotations

import collections
import json
from importlib import resources
from pathlib import Path

import pytest

from tooleval.cli import main
from tooleval.commands.generate import tasks_jsonl
from tooleval.suites.infranode import CATEGORIES, DEFAULT_COUNTS, load_tasks
from tooleval.suites.infranode.api import board_evas
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.generator import GeneratorConfig, fold_name
from tooleval.tasks import TaskFormatError, iter_jsonl_text, task_from_json

SHIPPED = resources.files("tooleval.suites.infranode").joinpath("tasks.jsonl")


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


def test_default_counts_per_category() -> None:
    counts = collections.Counter(t.category for t in load_tasks())
    assert dict(counts) == DEFAULT_COUNTS
    assert sum(counts.values()) == 91
    assert len({t.id for t in load_tasks()}) == 91


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


def test_not_covered_answers_name_the_covered_cities() -> None:
    transport = make_transport(None)
    for task in (t for t in load_tasks() if t.category == "not_covered"):
        meta = execute_tool(transport, task.gold.name, task.gold.arguments).body["meta"]
        assert task.gold.arguments["slug"] not in meta["covered_cities"]
        assert meta["covered_cities"] == sorted(meta["covered_cities"])


def test_two_step_stations_are_off_the_city_board_and_in_every_accepted_listing() -> None:
    transport = make_transport(None)
    two_step = [t for t in load_tasks() if t.category == "two_step"]
    assert len({t.provenance["target_station"]["eva"] for t in two_step}) == len(two_step)
    for task in two_step:
        slug, eva = task.gold.arguments["slug"], task.provenance["target_station"]["eva"]
        assert eva not in board_evas(slug)
        for q in task.alternatives["q"]:
            args = {"slug": slug} if q is None else {"slug": slug, "q": q}
            stations = execute_tool(transport, "stations", args).body["data"]["payload"]
            assert eva in {s["eva"] for s in stations["stations"]}, (task.id, q)


def test_slug_resolution_is_the_only_category_with_non_trivial_city_names() -> None:
    for task in load_tasks():
        slug = task.gold.arguments.get("slug")
        if task.category in ("routing_broad", "routing_named", "resource_key", "poi_type"):
            assert slug is not None and slug.capitalize() in task.question, task.id
        if task.category == "slug_resolution":
            assert slug is not None and slug.capitalize() not in task.question, task.id


def test_phrasings_vary_within_each_category() -> None:
    for category in CATEGORIES:
        questions = [t.question for t in load_tasks() if t.category == category]
        openings = {" ".join(q.split()[:2]) for q in questions}
        assert len(openings) >= min(3, len(questions)), (category, openings)


def test_max_per_category_scales_the_suite() -> None:
    small = tasks_jsonl(None, GeneratorConfig(max_per_category=2))
    assert small.count("\n") == 2 * len(CATEGORIES)
    large = [
        json.loads(line)
        for line in tasks_jsonl(None, GeneratorConfig(max_per_category=30)).splitlines()
    ]
    counts = collections.Counter(row["category"] for row in large)
    assert counts["resource_key"] == 30 and counts["routing_broad"] == 30
    assert len(large) > 91


def test_fold_name_follows_the_slug_rules() -> None:
    assert fold_name("München") == "muenchen"
    assert fold_name("Halle (Saale)") == "halle-saale"
    assert fold_name("Frankfurt am Main") == "frankfurt-am-main"
    assert fold_name("Gießen") == "giessen"


def test_malformed_task_line_names_file_and_line() -> None:
    text = '{"id": "a"}\n\n{not json}\n'
    with pytest.raises(TaskFormatError, match=r"my\.jsonl:3: invalid JSON"):
        list(iter_jsonl_text(text, "my.jsonl"))
    line, row = next(iter_jsonl_text(text, "my.jsonl"))
    with pytest.raises(TaskFormatError, match=r"my\.jsonl:1: field 'gold' must be a dict"):
        task_from_json(row, f"my.jsonl:{line}")
