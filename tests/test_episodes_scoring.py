"""exec_match, the grounding check, result truncation and the episodes command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tooleval.cli import main
from tooleval.records import ToolCall
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.api.facts import city_index
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.facts import Shown, fact_base
from tooleval.suites.infranode.episodes.feedback import TRUNCATION_MARK, result_text, slim
from tooleval.suites.infranode.episodes.grounding import check_answer
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


def test_grounding_reads_numbers_times_and_names_about_their_entity() -> None:
    body = {
        "data": {
            "city_slug": "berlin",
            "payload": {
                "temperature_c": 23.24,
                "departures": [{"line": "RE8", "planned_time": "2026-07-22T14:05:00"}],
                "population": 335789,
            },
        }
    }
    base = fact_base([Shown(body, True)], 4000)
    good = check_answer("Um 14:05 fährt der RE8, es sind 23,2 Grad; 335.789 Einwohner.", base, "")
    assert (good.supported, good.contradicted, good.unsupported, good.grounded) == (4, 0, 0, True)
    bad = check_answer("Es sind 19 Grad um 09:30.", base, "")
    assert (bad.supported, bad.contradicted, bad.unsupported) == (0, 1, 1)
    neutral = check_answer("In 2026 ...", fact_base([Shown({}, True)], 4000), "Was war 2026?")
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


TEMPERATURE = next(
    t for t in SUITE.tasks if t.gold.name == "weather" and "Temperatur" in t.question
)
OTHER = next(t for t in SUITE.tasks if t.id != TEMPERATURE.id)


def write_script(path: Path, *lines: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def temperature_answer() -> tuple[str, int]:
    """A true answer to TEMPERATURE, and the result size at which its value ends."""
    slug = TEMPERATURE.gold.arguments["slug"]
    body = execute_tool(REPLICA, "weather", {"slug": slug}).body
    value = body["data"]["payload"]["temperature_c"]
    answer = f"In {city_index()[slug].name_de} sind es {str(value).replace('.', ',')} °C."
    field = f'"temperature_c":{value}'
    text = result_text(body, 10**6)
    return answer, text.index(field) + len(field)


@pytest.mark.parametrize(("shorter", "outcome"), [(0, "success"), (1, "ungrounded")])
def test_episode_answers_are_checked_against_what_the_model_was_shown(
    tmp_path: Path, shorter: int, outcome: str
) -> None:
    answer, end = temperature_answer()
    call = {"name": "weather", "arguments": TEMPERATURE.gold.arguments}
    script = write_script(tmp_path / "s.jsonl", {"text": json.dumps(call)}, {"text": answer})
    output = tmp_path / "out.json"
    cap = str(end - shorter)
    code = main(
        ["episodes", "--backend", "fake", "--script", str(script), "--case", TEMPERATURE.id,
         "--max-result-chars", cap, "--output", str(output)]
    )  # fmt: skip
    document = json.loads(output.read_text(encoding="utf-8"))
    assert code == 0 and document["outcomes"] == {outcome: 1}
    assert document["config"]["max_result_chars"] == int(cap)


def test_command_refuses_bad_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["episodes", "--backend", "fake", "--max-rounds", "0"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "tooleval episodes: argument --max-rounds: must be at least 1, got '0'"
    )


def judge_episodes(tmp_path: Path, *judge_flags: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """Two episodes with the fake backend: OTHER answers without a call (``no_call``, decided
    by the calls) and TEMPERATURE's answer is one the check cannot read (``answer_decided``
    0); then the judge flags. Returns the exit code and the items by task id."""
    call = {"name": "weather", "arguments": TEMPERATURE.gold.arguments}
    script = write_script(
        tmp_path / "script.jsonl",
        {"task_id": TEMPERATURE.id, "text": json.dumps(call)},
        {
            "match": "Ergebnis von weather",
            "text": "Angenehm, ein schöner Tag für einen Spaziergang.",
        },
        {"task_id": OTHER.id, "text": "Keine Ahnung."},
    )
    output = tmp_path / "out.json"
    code = main(
        ["episodes", "--backend", "fake", "--script", str(script), "--concurrency", "1",
         "--case", f"{TEMPERATURE.id},{OTHER.id}", "--output", str(output), *judge_flags]
    )  # fmt: skip
    document = json.loads(output.read_text(encoding="utf-8"))
    items = {item["task_id"]: item for item in document["items"]}
    return code, {"document": document, **items}


def test_judge_decides_what_the_check_cannot_and_is_stored(tmp_path: Path) -> None:
    reply = {"text": '{"verdict": "correct", "reason": "passt zu den Werten"}'}
    judge = write_script(tmp_path / "judge.jsonl", reply)
    code, found = judge_episodes(tmp_path, "--judge-backend", "fake", "--judge-script", str(judge))
    assert code == 0
    document = found["document"]
    assert document["judge"]["backend"] == "fake" and document["judge"]["every_answer"] is False
    undecided = found[TEMPERATURE.id]
    assert undecided["outcome"] == "ungrounded" and undecided["score"]["answer_decided"] == 0
    assert undecided["judge"]["verdict"] == "correct"
    prompt = undecided["judge"]["prompt"][1]["content"]
    assert "Ergebnis von weather" in prompt and "Spaziergang" in prompt
    assert TEMPERATURE.question in prompt
    assert found[OTHER.id]["outcome"] == "no_call"
    assert found[OTHER.id]["judge"] is None  # decided by the calls, no judge needed
    metrics = document["metrics"]
    assert (metrics["success"], metrics["success_with_judge"]) == (0.0, 0.5)
    assert metrics["judge_asked"] == 1


def test_judge_runs_on_the_shared_provider_path_with_its_key_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from servers import openai_server

    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-judge-secret")
    verdict = openai_server.text('{"verdict": "incorrect", "reason": "nichts gesagt"}')
    with openai_server.serve(verdict) as server:
        code, found = judge_episodes(
            tmp_path, "--judge-backend", "openai", "--judge-base-url", server.base_url,
            "--judge-model", "judge-model", "--judge-api-key-env", "JUDGE_TEST_KEY",
        )  # fmt: skip
    assert code == 0
    [request] = server.received
    assert request.header("authorization") == "Bearer sk-judge-secret"
    assert request.body["model"] == "judge-model"
    document = found["document"]
    assert "sk-judge-secret" not in json.dumps(document)
    assert document["judge"]["api_key_env"] == "JUDGE_TEST_KEY"
    assert found[TEMPERATURE.id]["judge"]["verdict"] == "incorrect"
    assert document["metrics"]["success_with_judge"] == 0.0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--judge-model", "m"], "--judge-model needs --judge-backend"),
        (["--judge-all"], "--judge-all needs --judge-backend"),
        (["--judge-backend", "openai"], "--judge-model is required for --judge-backend openai"),
        (["--judge-backend", "nope"], "unknown backend 'nope'"),
        (["--suite", "cesium", "--judge-backend", "fake"], "applies to the infranode suite"),
    ],
)
def test_bad_judge_flags_exit_2_with_one_line(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["episodes", "--backend", "fake", *flags])
    except SystemExit as exit_info:
        code = int(exit_info.code or 0)
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tooleval episodes: ") and message in err and "\n" not in err


def test_judge_reply_parsing() -> None:
    from tooleval.suites.infranode.episodes.judge import parse_verdict

    assert parse_verdict('Ergebnis: {"verdict": "Incorrect", "reason": "falsch"}') == (
        "incorrect",
        "falsch",
    )
    assert parse_verdict("weiß nicht")[0] == "unreadable"
    assert parse_verdict('{"verdict": "maybe"}')[0] == "unreadable"
