"""exec_match, the grounding check, result truncation and the episodes command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooleval.cli import main
from tooleval.records import ToolCall
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.client import make_transport
from tooleval.suites.infranode.episodes.feedback import TRUNCATION_MARK, result_text, slim
from tooleval.suites.infranode.episodes.grounding import check_answer, evidence
from tooleval.suites.infranode.execmatch import exec_match

SUITE = load_suite()
TASKS = {task.id: task for task in SUITE.tasks}
REPLICA = make_transport(None)
SLUG_TASK = next(
    t for t in SUITE.tasks if t.category == "slug_resolution" and t.gold.name == "weather"
)
SLUG = SLUG_TASK.gold.arguments["slug"]
WRITTEN = SLUG_TASK.provenance["slug_form"]["text"]
OTHER_SLUG = "koeln" if SLUG != "koeln" else "bonn"
COMPARE = next(t for t in SUITE.tasks if t.category == "compare_multi")
COMPARE_NAMES = [c.capitalize() for c in reversed(COMPARE.gold.arguments["cities"])]
FIRST_SLUG = next(t for t in SUITE.tasks if t.category == "slug_resolution")
NOT_COVERED = next(t for t in SUITE.tasks if t.category == "not_covered")
NC_ARGS = NOT_COVERED.gold.arguments
NC_OTHER = next(
    t.gold.arguments["slug"]
    for t in SUITE.tasks
    if t.category != "not_covered" and t.gold.arguments.get("slug") not in (None, NC_ARGS["slug"])
)


def test_every_gold_call_is_exec_equivalent_to_itself() -> None:
    assert all(exec_match(task, task.gold, REPLICA) == 1 for task in SUITE.tasks)


@pytest.mark.parametrize(
    ("task_id", "call", "expected"),
    [
        (SLUG_TASK.id, ToolCall("weather", {"slug": WRITTEN}), 1),
        (SLUG_TASK.id, ToolCall("weather", {"slug": SLUG.upper()}), 1),
        (SLUG_TASK.id, ToolCall("weather", {"slug": OTHER_SLUG}), 0),
        (SLUG_TASK.id, ToolCall("air_quality", {"slug": SLUG}), 0),
        (COMPARE.id, ToolCall("compare", {"cities": COMPARE_NAMES,
                                          "resource": COMPARE.gold.arguments["resource"]}), 1),
        (NOT_COVERED.id, ToolCall("get_city_data", {"slug": NC_ARGS["slug"].capitalize(),
                                                      "resource": NC_ARGS["resource"]}), 1),
        (NOT_COVERED.id, ToolCall("get_city_data", {"slug": NC_OTHER,
                                                      "resource": NC_ARGS["resource"]}), 0),
        (SLUG_TASK.id, ToolCall("weather", {}), 0),
        (SLUG_TASK.id, None, 0),
    ],
)  # fmt: skip
def test_exec_match(task_id: str, call: ToolCall | None, expected: int) -> None:
    assert exec_match(TASKS[task_id], call, REPLICA) == expected


def test_grounding_numbers_times_and_strings() -> None:
    found = evidence([{"t": 23.24, "when": "2026-07-22T14:05:00Z", "line": "RE8", "n": 335789}])
    good = check_answer("Um 14:05 fährt der RE8, es sind 23,2 Grad; 335.789 Leute.", found, "")
    assert (good.supported, good.unsupported, good.grounded) == (4, 0, True)
    bad = check_answer("Es sind 19 Grad um 09:30.", found, "")
    assert (bad.supported, bad.unsupported, bad.grounded) == (0, 2, False)
    neutral = check_answer("In 2026 ...", evidence([{}]), "Was war 2026?")
    assert (neutral.supported, neutral.unsupported) == (0, 0)


def test_result_text_is_slim_and_cut_deterministically() -> None:
    body = {"data": {"record_id": "x", "payload": {"v": "a" * 100}}, "meta": {"correlation_id": 1}}
    assert slim(body) == {"data": {"payload": {"v": "a" * 100}}, "meta": {}}
    text = result_text(body, 40)
    full = json.dumps(slim(body), ensure_ascii=False, separators=(",", ":"))
    assert text == full[:40] + TRUNCATION_MARK.format(shown=40, total=len(full))
    assert result_text(body, 40) == text


def test_command_writes_results(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    lines = [
        {
            "text": json.dumps(
                {"name": FIRST_SLUG.gold.name, "arguments": FIRST_SLUG.gold.arguments}
            )
        },
        {"text": "Weiß ich nicht genau."},
    ]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    output = tmp_path / "out.json"
    code = main(
        ["episodes", "--backend", "fake", "--script", str(script), "--category",
         "slug_resolution", "--limit", "1", "--concurrency", "1", "--output", str(output)]
    )  # fmt: skip
    assert code == 0
    document = json.loads(output.read_text(encoding="utf-8"))
    assert (document["format"], document["kind"]) == ("tooleval-results/2", "multi_turn")
    assert document["outcomes"] == {"ungrounded": 1}
    assert document["first_call"]["call_match"] == 1.0
    item = document["items"][0]
    assert item["task_id"] == FIRST_SLUG.id and item["calls"][0]["valid"] is True
    assert [m["role"] for m in item["transcript"]] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_command_refuses_bad_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["episodes", "--backend", "fake", "--max-rounds", "0"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "tooleval episodes: argument --max-rounds: must be at least 1, got '0'"
    )
