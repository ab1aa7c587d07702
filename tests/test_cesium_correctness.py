"""The headline correctness rule on the scripted test bed, played through tooleval's multi-turn
driver with the shipped fake, and the original's nine metrics beside it."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from cesium_scripted import (
    SCENARIOS,
    SUITE,
    ScriptedRun,
    load_scripted,
    original_metrics,
    play,
    play_bed,
    play_one,
    transcript_of,
)
from conftest import make_fake
from tooleval.records import ConversationRecord
from tooleval.runner import run_conversations
from tooleval.runner.records import RunConfig
from tooleval.suites.cesium.correctness import judge, scenario_correct_rate
from tooleval.suites.cesium.effects import NONE, effect_of
from tooleval.suites.cesium.metrics import ORIGINAL_NAMES
from tooleval.suites.cesium.scoring import ScenarioScore
from tooleval.suites.cesium.transcript import from_run

SCRIPTED = load_scripted()
CORRECT = [r for r in SCRIPTED if r.expect == "correct"]
WRONG = [r for r in SCRIPTED if r.expect == "wrong"]
BY_LABEL = {r.label: r for r in SCRIPTED}
Bed = dict[str, ConversationRecord]


@pytest.fixture(scope="module")
def bed(tmp_path_factory: pytest.TempPathFactory) -> Bed:
    """Every scripted run played through the driver once, by label."""
    return play_bed(SCRIPTED, tmp_path_factory.mktemp("bed"))


def score(record: ConversationRecord) -> ScenarioScore:
    assert isinstance(record.score, ScenarioScore)
    return record.score


def summary(records: list[ConversationRecord]) -> dict[str, Any]:
    """The Cesium dialogue's summary of ``records`` (what a results file holds)."""
    assert SUITE.dialogue is not None
    return SUITE.dialogue.summarize([(SCENARIOS[r.task_id], r) for r in records], ())


def decoded(arguments: Any) -> Any:
    """Scripted arguments as the driver records them ({} for text that is no JSON object)."""
    if not isinstance(arguments, str):
        return arguments
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def test_every_scenario_has_two_correct_and_two_wrong_runs() -> None:
    counts = Counter((r.scenario.id, r.expect) for r in SCRIPTED)
    for scenario_id in SCENARIOS:
        assert counts[(scenario_id, "correct")] >= 2, scenario_id
        assert counts[(scenario_id, "wrong")] >= 2, scenario_id
    labels = [r.label for r in SCRIPTED]
    assert len(labels) == len(set(labels))
    assert all(r.problem for r in WRONG), "every wrong run names the problem it must show"


@pytest.mark.parametrize("run", SCRIPTED, ids=lambda r: r.label)
def test_scripted_run_gets_the_expected_verdict(run: ScriptedRun, bed: Bed) -> None:
    record = bed[run.label]
    assert record.ending == ("max_rounds" if run.final is None else "answered")
    assert record.final_answer == run.final
    verdict = score(record).verdict
    assert verdict.correct is (run.expect == "correct"), (run.why, verdict.problems)
    assert score(record).success == int(verdict.correct)
    assert verdict == judge(transcript_of(run, record))  # stored = the rule over the record
    if run.problem:
        codes = {p.split(":", 1)[0] for p in verdict.problems}
        assert run.problem in codes, (run.why, verdict.problems)
        assert score(record).outcome in codes
    else:
        assert score(record).outcome == "correct"


def test_the_driver_plays_the_script_exactly(bed: Bed) -> None:
    """Each record holds the scripted calls, round by round, and one model turn per reply."""
    for run in SCRIPTED:
        transcript = transcript_of(run, bed[run.label])
        played = [[(c.name, c.arguments) for c in r] for r in transcript.rounds]
        expected = [[(n, decoded(a)) for n, a in r] for r in run.rounds]
        assert played == expected, run.label
        assert bed[run.label].rounds == len(run.rounds) + (run.final is not None)


@pytest.mark.parametrize(("group", "value"), [("correct", 1.0), ("wrong", 0.0)])
def test_headline_is_one_on_correct_runs_and_zero_on_wrong_runs(
    bed: Bed, group: str, value: float
) -> None:
    runs = [r for r in SCRIPTED if r.expect == group]
    result = summary([bed[r.label] for r in runs])
    headline = result["headline"]
    assert (headline["metric"], headline["value"]) == ("scenarioCorrectRate", value)
    assert result["metrics"]["scenarioCorrectRate"] == value
    assert headline["judged"] == len(runs) and headline["correct"] == value * len(runs)
    assert set(headline["problems"]) >= {r.problem for r in runs if r.problem}
    assert (group == "correct") is (headline["problems"] == {})
    beside = headline["beside"]
    assert beside["metric"] == "scenarioPassRate" and "original's rule" in beside["label"]
    assert beside["value"] == result["original_metrics"]["scenarioPassRate"]
    if group == "wrong":  # the original's rule cannot tell them apart: it passes most
        assert beside["value"] > 0.5
    assert scenario_correct_rate([]) is None


@pytest.mark.parametrize("group", ["correct", "wrong", "all"])
def test_original_nine_metrics_equal_the_original_definitions(bed: Bed, group: str) -> None:
    chosen = [r for r in SCRIPTED if group in ("all", r.expect)]
    computed = summary([bed[r.label] for r in chosen])["original_metrics"]
    expected = original_metrics([transcript_of(r, bed[r.label]) for r in chosen])
    assert list(computed) == list(ORIGINAL_NAMES) == list(expected)
    for name, value in expected.items():
        assert math.isclose(computed[name], value, abs_tol=1e-12), (name, computed[name], value)


def test_original_unexpected_rate_ignores_allowed_tools_tooleval_variant_uses_them(
    bed: Bed,
) -> None:
    """unexpectedToolCallRate is the original's (expected = requiredTools); tooleval's own
    unexpected_call_rate counts against the scenarios' allowedTools."""
    run = BY_LABEL["view-instant-en/flyto-duration-0"]  # flyTo: allowed, not required
    result = summary([bed[run.label]])
    assert result["original_metrics"]["unexpectedToolCallRate"] == 1.0
    assert result["metrics"]["unexpected_call_rate"] == 0.0


def test_geolocation_answer_is_measured_now_that_the_loop_runs_on(tmp_path: Path) -> None:
    """The driver runs until the model stops, so geolocation-zh's answer is in the record."""
    geocode = ((("geocode", {"address": "上海外滩"}),),)
    said = play_one("geolocation-zh", geocode, "东经 121.4903°，北纬 31.2397°。", tmp_path / "a")
    silent = play_one("geolocation-zh", geocode, None, tmp_path / "b")
    vague = play_one("geolocation-zh", geocode, "已为您找到上海外滩。", tmp_path / "c")
    assert (said.ending, said.rounds, score(said).verdict.correct) == ("answered", 2, True)
    assert score(silent).outcome == "answer_missing" and silent.ending == "max_rounds"
    assert score(vague).outcome == "answer_wrong"
    assert all(score(r).passed for r in (said, silent, vague))  # the original's rule: all pass


def test_results_file_leads_with_the_headline_and_keeps_verdicts_per_run(
    tmp_path: Path,
) -> None:
    runs = [BY_LABEL[f"geolocation-zh/{i}"] for i in ("chinese-address", "wrong-numbers")]
    _, written = play(SCENARIOS["geolocation-zh"], [(r.rounds, r.final) for r in runs],
                      tmp_path / "r.json")  # fmt: skip
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert document == json.loads(json.dumps(written))
    sections = [k for k in document if k in ("headline", "metrics", "original_metrics")]
    assert sections == ["headline", "metrics", "original_metrics"]
    assert next(iter(document["metrics"])) == "scenarioCorrectRate"
    assert document["headline"]["value"] == 0.5
    assert document["headline"]["problems"] == {"answer_wrong": 1}
    good, bad = (item["score"] for item in document["items"])
    assert (good["correct"], good["problems"], good["success"]) == (True, [], 1)
    assert (bad["correct"], bad["success"], bad["passed"]) == (False, 0, True)
    assert bad["problems"][0].startswith("answer_wrong: ")
    assert [i["outcome"] for i in document["items"]] == ["correct", "answer_wrong"]
    assert document["per_scenario"]["geolocation-zh"]["correct"] == 1
    assert document["per_scenario"]["geolocation-zh"]["passed_original_rule"] == 2


def test_runs_the_model_did_not_finish_are_not_judged(tmp_path: Path) -> None:
    good = BY_LABEL["layer-basemap-en/satellite"]
    replies = [{"tool_calls": [{"name": n, "arguments": a} for n, a in good.rounds[0]]},
               {"text": good.final}, {"error": "client_error"}]  # fmt: skip
    config = RunConfig(
        suite="cesium", backend="fake", mode="native", concurrency=1, repeats=2, max_retries=0,
        task_ids=("layer-basemap-en",), output=tmp_path / "r.json",
    )  # fmt: skip
    document = run_conversations(config, make_fake(*replies), suite=SUITE)
    assert [i["ending"] for i in document["items"]] == ["answered", "provider_error"]
    headline = document["headline"]
    assert (headline["value"], headline["judged"], headline["correct"]) == (1.0, 1, 1)
    assert headline["beside"]["value"] == 0.5  # the original pools the error run as a fail
    assert document["items"][1]["score"] is None


def test_invalid_calls_never_count_even_with_a_success_result(bed: Bed) -> None:
    run = BY_LABEL["layer-basemap-en/satellite"]
    good = transcript_of(run, bed[run.label])
    forged = replace(good.rounds[0][0], valid=False)
    assert judge(good).correct and not judge(replace(good, rounds=((forged,),))).correct


def test_a_refused_call_is_in_the_transcript_as_not_valid(tmp_path: Path) -> None:
    rounds = ((("setBasemap", '{"basemap": '),), (("setBasemap", {"basemap": "satellite"}),))
    record = play_one("layer-basemap-en", rounds, "Satellite imagery is on.", tmp_path / "r.json")
    transcript = from_run(SCENARIOS["layer-basemap-en"], record)
    first, second = (at.call for at in transcript.calls())
    assert (first.valid, dict(first.arguments), first.result["success"]) == (False, {}, False)
    assert second.valid and score(record).verdict.correct  # the retry counts


def test_effects_of_calls() -> None:
    ok = {"success": True}
    marker = effect_of("addMarker", {"longitude": 1}, {"success": True,
                       "data": {"entityId": "m"}}, 0)  # fmt: skip
    assert (marker.target, marker.mode) == ("entity:m", "set")
    assert effect_of("addMarker", {}, {"success": False, "error": "x"}, 1) == NONE
    assert effect_of("screenshot", {}, ok, 2) == NONE  # read-only
    assert effect_of("removeEntity", {"entityId": "m"}, ok, 3).removes("entity:m")
    assert effect_of("clearAll", {}, ok, 4).removes("layer:a")
    assert not effect_of("clearAll", {}, ok, 4).removes("camera")
    clear = effect_of("highlight", {"clear": True}, ok, 5)
    assert clear.removes("highlight:important-area") and not clear.removes("layer:important-area")
    update = effect_of("updateEntity", {"entityId": "m", "position": {"longitude": 2,
                       "latitude": 3}}, ok, 6)  # fmt: skip
    assert (update.target, update.mode, dict(update.values)) == (
        "entity:m",
        "merge",
        {"longitude": 2, "latitude": 3},
    )
    first, second = (effect_of("measure", {"mode": "distance"}, ok, i) for i in (7, 8))
    assert first.target != second.target  # two measurements, neither replaces the other


def test_removing_the_created_object_undoes_the_step(tmp_path: Path) -> None:
    marker = {"longitude": 116.3972, "latitude": 39.9163, "label": "起点", "color": "red"}
    line = {"coordinates": [[116.3972, 39.9163], [116.4074, 39.9042], [116.417, 39.91]],
            "color": "blue"}  # fmt: skip
    done = (("addMarker", marker), ("addPolyline", line))
    kept = play_one("entity-route-zh", (done,), "好", tmp_path / "a")
    assert score(kept).verdict.correct
    removed = ("removeEntity", {"entityId": "marker-1"})
    undone = play_one("entity-route-zh", (done, (removed,)), "好", tmp_path / "b")
    assert score(undone).verdict.problems == (
        "undone: step 1 (addMarker): addMarker in round 1 was undone by removeEntity in round 2",
    )


def test_readme_table_matches_the_test_bed(bed: Bed) -> None:
    readme = resources.files("tooleval.suites.cesium").joinpath("README.md").read_text("utf-8")
    for name, group in (("correct", CORRECT), ("wrong", WRONG)):
        result = summary([bed[r.label] for r in group])
        cells = [f"{len(group)} {name}", f"{result['headline']['value']:.3f}"]
        cells.append(f"{result['metrics']['workflow_pass_rate']:.3f}")
        cells.append(f"{result['original_metrics']['scenarioPassRate']:.3f}")
        assert "| " + " | ".join(cells) + " |" in readme, cells
    assert (
        f"holds {len(SCRIPTED)}\nscripted runs: {len(CORRECT)} correct and {len(WRONG)} wrong"
        in readme
    )
