"""SFT and RL exports validate against their packaged schemas; the RL env and example run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake
from tooleval.cli import main
from tooleval.export import (
    InfraNodeEnv,
    episode_examples,
    gold_examples,
    load_schema,
    rl_prompts,
    schema_errors,
)
from tooleval.records import Task
from tooleval.runner import run_conversations
from tooleval.runner.records import RunConfig
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.api.facts import city_index
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.feedback import result_text

ROOT = Path(__file__).resolve().parents[1]
SUITE = load_suite()
TASKS = {task.id: task for task in SUITE.tasks}
REPLICA = make_transport(None)


def test_gold_sft_examples_are_verified_and_valid() -> None:
    examples = list(gold_examples(SUITE, REPLICA))
    assert len(examples) == len(SUITE.tasks)
    for example in examples:
        assert schema_errors("sft", example) == []
        assert example["suite_version"] == SUITE.version
        call = example["messages"][2]["tool_calls"][0]["function"]
        task = TASKS[example["task_id"]]
        assert (call["name"], json.loads(call["arguments"])) == (
            task.gold.name,
            task.gold.arguments,
        )
        assert example["provenance"]["verified"]["status"] == 200


def test_schema_rejects_a_broken_example() -> None:
    example = next(gold_examples(SUITE, REPLICA))
    del example["messages"][2]["tool_calls"]
    example["suite_version"] = "one"
    errors = schema_errors("sft", example)
    assert any(e.startswith("suite_version:") for e in errors)
    assert any(e.startswith("messages/2:") for e in errors)


TWO_STEP = next(
    t
    for t in SUITE.tasks
    if t.category == "two_step" and t.provenance["target_station"]["board"] == "departures"
)
STATION = TWO_STEP.provenance["target_station"]
NOT_COVERED = next(t for t in SUITE.tasks if t.category == "not_covered")
SLUG_TASK = next(t for t in SUITE.tasks if t.category == "slug_resolution")


def episode_document(final: str, out: Path) -> dict[str, Any]:
    board = {"name": "station_board_departures", "arguments": {"eva": STATION["eva"]}}
    replies = [
        {"text": json.dumps({"name": "stations", "arguments": TWO_STEP.gold.arguments})},
        {"text": json.dumps(board)},
        {"text": final},
    ]
    config = RunConfig(backend="fake", concurrency=1, task_ids=(TWO_STEP.id,), output=out)
    return run_conversations(config, make_fake(*replies), suite=SUITE)


def test_successful_episode_becomes_an_sft_example_with_final_answer(tmp_path: Path) -> None:
    board = execute_tool(REPLICA, "station_board_departures", {"eva": STATION["eva"]}).body
    answer = f"Abfahrten ab {STATION['name']}: {board['data']['payload']['departures'][0]['line']}."
    document = json.loads(json.dumps(episode_document(answer, tmp_path / "a.json")))
    assert document["outcomes"] == {"success": 1}
    (example,) = episode_examples(SUITE, document, REPLICA)
    assert schema_errors("sft", example) == []
    roles = [m["role"] for m in example["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert example["messages"][-1]["content"] == answer
    failed = json.loads(json.dumps(episode_document("Es fahren 4711 Züge.", tmp_path / "b.json")))
    assert list(episode_examples(SUITE, failed, REPLICA)) == []


def test_sft_export_scores_episodes_again_under_the_cap_they_were_shown(tmp_path: Path) -> None:
    board = execute_tool(REPLICA, "station_board_departures", {"eva": STATION["eva"]}).body
    first = board["data"]["payload"]["departures"][0]
    wrong = f"Der {first['line']} fährt um {first['planned_time'][11:16]} Uhr von Gleis 99."
    document = json.loads(json.dumps(episode_document(wrong, tmp_path / "a.json")))
    assert document["outcomes"] == {"contradicted": 1}
    item = document["items"][0]  # as an older, laxer scorer wrote it
    item["outcome"], item["score"]["outcome"], item["score"]["success"] = "success", "success", 1
    assert list(episode_examples(SUITE, document, REPLICA)) == []
    right = f"Der {first['line']} fährt um {first['planned_time'][11:16]} Uhr."
    good = json.loads(json.dumps(episode_document(right, tmp_path / "b.json")))
    assert len(list(episode_examples(SUITE, good, REPLICA))) == 1
    shown = result_text(board, 10**6)
    good["config"]["max_result_chars"] = shown.index('"line"')  # no departure shown
    assert list(episode_examples(SUITE, good, REPLICA)) == []


def weather_cut() -> tuple[Task, str, int]:
    """A temperature question, a true answer, and the result size at which its value ends."""
    task = next(t for t in SUITE.tasks if t.gold.name == "weather" and "Temperatur" in t.question)
    slug = task.gold.arguments["slug"]
    body = execute_tool(REPLICA, "weather", {"slug": slug}).body
    value = body["data"]["payload"]["temperature_c"]
    answer = f"In {city_index()[slug].name_de} sind es {str(value).replace('.', ',')} °C."
    text = result_text(body, 10**6)
    field = f'"temperature_c":{value}'
    return task, answer, text.index(field) + len(field)


def test_env_scores_the_answer_under_its_result_cap() -> None:
    task, answer, end = weather_cut()
    for cap, reward, outcome in ((end, 1.0, "success"), (end - 1, 0.0, "ungrounded")):
        env = InfraNodeEnv(max_result_chars=cap)
        env.reset(task.id)
        env.step(task.gold)
        final = env.step(answer)
        assert (final.reward, final.info["outcome"]) == (reward, outcome)


def test_rl_prompts_are_valid() -> None:
    prompts = list(rl_prompts(SUITE))
    assert len(prompts) == len(SUITE.tasks)
    assert all(schema_errors("rl", p) == [] for p in prompts)
    assert load_schema("rl")["title"].startswith("tooleval RL prompt")


def test_env_rewards_success_and_failure() -> None:
    env = InfraNodeEnv()
    obs = env.reset(NOT_COVERED.id)
    assert obs.messages[1]["content"] == obs.question and len(obs.tools) == 12
    step = env.step(NOT_COVERED.gold)
    assert (step.done, step.reward) == (False, 0.0) and "not_covered" in step.observation
    final = env.step("Dafür liegen leider keine Daten vor.")
    assert (final.done, final.reward, final.info["outcome"]) == (True, 1.0, "success")
    env.reset(NOT_COVERED.id)
    wrong = env.step("Dort sind es genau 52.000.")
    assert (wrong.done, wrong.reward, wrong.info["outcome"]) == (True, 0.0, "no_call")
    with pytest.raises(RuntimeError, match="reset"):
        env.step("noch etwas")


def test_export_command_writes_valid_jsonl(tmp_path: Path) -> None:
    for kind in ("sft", "rl"):
        output = tmp_path / f"{kind}.jsonl"
        assert main(["export", "--format", kind, "--output", str(output)]) == 0
        lines = output.read_text(encoding="utf-8").splitlines()
        assert len(lines) == len(SUITE.tasks)
        assert all(schema_errors(kind, json.loads(line)) == [] for line in lines)


def test_export_command_rejects_a_foreign_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "results.json"
    bogus.write_text('{"format": "tooleval-results/1"}', encoding="utf-8")
    argv = ["export", "--format", "sft", "--episodes", str(bogus), "--output", str(tmp_path / "x")]
    assert main(argv) == 2
    assert "not a tooleval episodes results file" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_rl_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_loop.py"), "--episodes", "4"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "two_step-001 " in result.stdout and "reward=1.0" in result.stdout
    assert "mean reward" in result.stdout


def test_env_accepts_a_text_call_and_shows_its_result() -> None:
    env = InfraNodeEnv()
    env.reset(SLUG_TASK.id)
    step = env.step(
        json.dumps({"name": SLUG_TASK.gold.name, "arguments": SLUG_TASK.gold.arguments})
    )
    assert not step.done and step.observation.startswith(f"Ergebnis von {SLUG_TASK.gold.name}: {{")
