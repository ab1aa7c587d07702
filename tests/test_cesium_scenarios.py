"""Cesium scenarios through the shared multi-turn driver, with the scripted fake, and their
metrics: the original harness's nine, hand-computed on scripted runs (errors, a budget cut,
a routing miss, empty denominators), and tooleval's own beside them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake
from tooleval.providers.fake import FakeProvider
from tooleval.records import ConversationRecord
from tooleval.runner import run_conversations
from tooleval.runner.records import RunConfig
from tooleval.suites import load_suite
from tooleval.suites.cesium.metrics import (
    ORIGINAL_NAMES,
    original_metrics,
    original_record,
    summarize,
)
from tooleval.suites.cesium.routing import Selection
from tooleval.suites.cesium.scoring import ScenarioScore

SUITE = load_suite("cesium")
SCENARIOS = {s.id: s for s in SUITE.tasks}
GEO_MARKER = "multi-geocode-marker-en"
FC = {"address": "Forbidden City"}
MARKER = {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"}


def calls(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """A fake reply with native calls; a str argument is sent verbatim (may be invalid JSON)."""
    rendered = [
        {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)} for n, a in pairs
    ]
    return {"tool_calls": rendered, "usage": {"input_tokens": 10, "output_tokens": 5}}


def answer(text: str = "Done.") -> dict[str, Any]:
    return {"text": text, "usage": {"input_tokens": 10, "output_tokens": 3}}


def play(
    tmp_path: Path, cases: str | tuple[str, ...], *replies: dict[str, Any], **config: Any
) -> tuple[dict[str, Any], list[ConversationRecord], FakeProvider]:
    ids = (cases,) if isinstance(cases, str) else cases
    settings: dict[str, Any] = {
        "suite": "cesium", "backend": "fake", "mode": "native", "concurrency": 1,
        "max_tokens": 1024, "max_retries": 2, "task_ids": ids, "output": tmp_path / "r.json",
    }  # fmt: skip
    settings.update(config)
    fake = make_fake(*replies)
    records: list[ConversationRecord] = []
    document = run_conversations(RunConfig(**settings), fake, suite=SUITE, on_record=records.append)
    return document, records, fake


def one(tmp_path: Path, *replies: dict[str, Any], **config: Any) -> ConversationRecord:
    return play(tmp_path, GEO_MARKER, *replies, **config)[1][0]


def score(record: ConversationRecord) -> ScenarioScore:
    assert isinstance(record.score, ScenarioScore)
    return record.score


def test_correct_run_feeds_results_back_and_ends_with_the_answer(tmp_path: Path) -> None:
    replies = (calls(("geocode", FC)), calls(("addMarker", MARKER)), answer("Marker added."))
    _, (record,), fake = play(tmp_path, GEO_MARKER, *replies)
    assert (record.ending, record.rounds, record.final_answer) == ("answered", 3, "Marker added.")
    assert score(record).passed and score(record).workflow_passed
    second = fake.requests[1]
    assert len(second.tools) == 19 and second.messages[0].role == "system"
    assert "entity, view, geolocation" in (second.messages[0].content or "")
    assistant, tool = second.messages[2], second.messages[3]
    assert (
        assistant.tool_calls[0].name == "geocode" and assistant.tool_calls[0].call_id == "call_1_0"
    )
    assert tool.role == "tool" and tool.tool_call_id == "call_1_0"
    assert '"longitude":116.3972' in (tool.content or "")


def test_the_loop_goes_on_after_the_required_tools_until_the_model_stops(tmp_path: Path) -> None:
    replies = (calls(("geocode", FC)), calls(("addMarker", MARKER)), calls(("flyTo", MARKER)))
    record = one(tmp_path, *replies, max_rounds=4)
    assert (record.ending, record.rounds) == ("max_rounds", 4)  # the last reply repeats
    assert [c.name for c in record.calls] == ["geocode", "addMarker", "flyTo", "flyTo"]


def test_wrong_order_passes_upstream_but_not_the_workflow(tmp_path: Path) -> None:
    record = one(tmp_path, calls(("addMarker", MARKER)), calls(("geocode", FC)), answer())
    assert score(record).passed and not score(record).workflow_passed
    assert [s.status for s in score(record).steps] == ["matched", "order_violation"]


def test_invalid_arguments_are_reported_back_and_counted(tmp_path: Path) -> None:
    bad = {"longitude": 116.3972, "latitude": 39.9163, "name": "Forbidden City"}
    record = one(tmp_path, calls(("addMarker", bad), ("geocode", FC), ("clearAll", {})), answer())
    marker, geocode, clear = record.calls
    assert (marker.valid, marker.error) == (False, "invalid_arguments")
    assert "'name' was unexpected" in marker.result["error"] and geocode.valid
    assert (clear.error, score(record).call_kinds[2]) == ("not_offered", "not_sent")
    assert record.final_answer == "Done." and not score(record).passed


@pytest.mark.parametrize(
    ("arguments", "name", "error", "issue"),
    [
        ('{"address": ', "geocode", "unreadable_call", "arguments are not valid JSON"),
        ('{"address": NaN}', "geocode", "unreadable_call", "arguments are not valid JSON"),
        ("[1, 2]", "geocode", "unreadable_call", "arguments must decode to an object"),
        ("{}", "teleport", "not_offered", "tool was not in the selected tool set"),
    ],
)
def test_bad_calls_are_data_not_crashes(
    tmp_path: Path, arguments: str, name: str, error: str, issue: str
) -> None:
    record = one(tmp_path, calls((name, arguments)), answer())
    (call,) = record.calls
    assert (call.valid, call.error, call.call_id) == (False, error, "call_1_0")
    assert call.result["error"].startswith(issue) and record.ending == "answered"


def test_provider_error_keeps_the_partial_transcript(tmp_path: Path) -> None:
    record = one(tmp_path, calls(("geocode", FC)), {"error": "server_error"})
    assert (record.ending, record.error_class) == ("provider_error", "server_error")
    assert [c.name for c in record.calls] == ["geocode"] and len(record.transcript) == 4
    assert record.requests == 4 and record.score is None  # one success, then 3 tries


def test_routing_miss_never_calls_the_model(tmp_path: Path) -> None:
    suite = load_suite("cesium")
    assert suite.dialogue is not None
    suite.dialogue.selections["heatmap-en"] = Selection("x", "auto", (), (), ())  # type: ignore[attr-defined]
    config = RunConfig(suite="cesium", backend="fake", mode="native", task_ids=("heatmap-en",),
                       output=tmp_path / "r.json")  # fmt: skip
    fake = make_fake(answer())
    document = run_conversations(config, fake, suite=suite)
    (item,) = document["items"]
    assert (item["ending"], item["error_message"]) == ("blocked", "router omitted: addHeatmap")
    assert fake.requests == []
    assert document["original_metrics"]["routingRequiredToolRecall"] == 0.0
    assert document["original_metrics"]["argumentValidityRate"] is None  # no calls: null


def five_runs(tmp_path: Path) -> list[ConversationRecord]:
    """correct, wrong order, invalid arguments, a provider error, no tool call."""
    bad = {"longitude": 116.3972, "latitude": 39.9163, "name": "Forbidden City"}
    scripts = [
        (calls(("geocode", FC)), calls(("addMarker", MARKER)), answer()),
        (calls(("addMarker", MARKER)), calls(("geocode", FC)), answer()),
        (calls(("addMarker", bad), ("geocode", FC), ("clearAll", {})), answer()),
        ({"error": "client_error"},),
        (answer("The Forbidden City is in Beijing."),),
    ]
    return [one(tmp_path / str(i), *script) for i, script in enumerate(scripts)]


def test_the_nine_original_metrics_match_hand_computed_values(tmp_path: Path) -> None:
    runs = five_runs(tmp_path)
    scenario = SCENARIOS[GEO_MARKER]
    selection = SUITE.dialogue.selection(scenario)  # type: ignore[union-attr]
    m = original_metrics([original_record(scenario, selection, r) for r in runs])
    assert list(m) == list(ORIGINAL_NAMES)
    assert m["scenarioPassRate"] == pytest.approx(2 / 5)  # the error run counts, as a fail
    assert m["requiredToolRecall"] == pytest.approx((2 + 2 + 1 + 0 + 0) / 10)
    assert m["argumentValidityRate"] == pytest.approx(5 / 7)
    assert m["unexpectedToolCallRate"] == pytest.approx(1 / 7)  # clearAll
    assert m["noToolResponseRate"] == pytest.approx(2 / 5)  # the error run has no tool call
    assert m["providerErrorRate"] == pytest.approx(1 / 5)
    assert m["routingRequiredToolRecall"] == 1.0 and m["averageToolsSent"] == 19.0
    assert m["averageRounds"] == pytest.approx((3 + 3 + 2 + 0 + 1) / 5)  # error run: 0


def test_tooleval_metrics_keep_errors_out_of_model_quality(tmp_path: Path) -> None:
    runs = five_runs(tmp_path)
    scenario = SCENARIOS[GEO_MARKER]
    selection = SUITE.dialogue.selection(scenario)  # type: ignore[union-attr]
    ours = summarize([(scenario, selection, r) for r in runs])["metrics"]
    assert list(ours)[:2] == ["scenarioCorrectRate", "original_rule_pass_rate"]
    assert ours["scenarioCorrectRate"] == pytest.approx(1 / 4)  # over the 4 the model finished
    assert ours["original_rule_pass_rate"] == pytest.approx(2 / 4)
    assert ours["no_tool_response_rate"] == pytest.approx(1 / 4)
    assert ours["workflow_pass_rate"] == pytest.approx(1 / 4)
    assert ours["dependency_check_pass_rate"] == pytest.approx(1 / 4)
    assert ours["provider_error_rate"] == pytest.approx(1 / 5)
    assert ours["unexpected_call_rate"] == pytest.approx(1 / 7)


def test_empty_denominators_are_null_not_zero() -> None:
    assert set(original_metrics([]).values()) == {None}
    assert set(summarize([])["metrics"].values()) == {None}


def test_budget_exhaustion_counts_as_a_provider_error_in_the_original_rate(
    tmp_path: Path,
) -> None:
    cases = ("layer-basemap-en", "camera-orbit-en")
    replies = (calls(("setBasemap", {"basemap": "satellite"})), answer())
    document, records, fake = play(tmp_path, cases, *replies, repeats=2, max_requests=2)
    assert [r.ending for r in records] == ["answered"] + ["budget_exhausted"] * 3
    assert len(fake.requests) == 2 and document["stop_reason"].startswith("max_requests")
    assert document["original_metrics"]["providerErrorRate"] == pytest.approx(3 / 4)
    assert document["original_metrics"]["noToolResponseRate"] == pytest.approx(3 / 4)
    assert document["metrics"]["budget_exhausted_rate"] == pytest.approx(3 / 4)
    assert document["metrics"]["no_tool_response_rate"] == 0.0
    assert document["complete"] is False and document["endings"]["budget_exhausted"] == 3


def test_repeats_give_per_scenario_counts_and_pass_hat_k_of_the_headline(tmp_path: Path) -> None:
    cases = ("layer-basemap-en", "camera-orbit-en")
    basemap = calls(("setBasemap", {"basemap": "satellite"}))
    orbit, lazy_orbit = calls(("startOrbit", {"speed": 0.01})), calls(("startOrbit", {}))
    replies = (basemap, answer(), orbit, answer(), basemap, answer(), lazy_orbit, answer())
    document, _, _ = play(tmp_path, cases, *replies, repeats=2)
    per = document["per_scenario"]
    assert per["camera-orbit-en"] == {
        "runs": 2, "scored": 2, "correct": 1, "passed_original_rule": 2, "pass_at_k": 1.0,
    }  # fmt: skip
    # pass^k counts correct runs: the orbit without its speed passes only the original's rule
    assert document["pass_hat_k"] == {"k": 2, "metric": "success", "value": 0.5}


def test_retryable_errors_are_retried_honouring_retry_after(tmp_path: Path) -> None:
    limited = {"error": "rate_limited", "retry_after": 0.01}
    replies = (limited, calls(("setBasemap", {"basemap": "satellite"})), answer())
    _, (record,), _ = play(tmp_path, "layer-basemap-en", *replies)
    assert (record.ending, record.requests) == ("answered", 3)
    assert score(record).passed


def test_results_keep_transcripts_routing_and_tools_hash(tmp_path: Path) -> None:
    replies = (calls(("geocode", FC)), calls(("addMarker", MARKER)), answer())
    document, _, _ = play(tmp_path, GEO_MARKER, *replies)
    item = document["items"][0]
    assert item["transcript"][2]["tool_calls"][0]["name"] == "geocode"
    assert item["transcript"][0]["content"].startswith("You operate a CesiumJS globe")
    routing = document["routing"][GEO_MARKER]
    assert len(routing["tools_hash"]) == 16 and len(routing["tools"]) == 19
    assert document["original_counts"]["promptTokens"] == 30


def test_episodes_console_for_cesium_leads_with_the_headline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tooleval.cli import main

    script = tmp_path / "script.jsonl"
    replies = (calls(("startOrbit", {"speed": 0.01, "clockwise": False})), answer("Orbiting."))
    script.write_text("".join(json.dumps(r) + "\n" for r in replies), encoding="utf-8")
    code = main(["episodes", "--suite", "cesium", "--backend", "fake", "--script", str(script),
                 "--mode", "native", "--case", "camera-orbit-en",
                 "--output", str(tmp_path / "e.json")])  # fmt: skip
    rows = [line.split("│")[1].strip() for line in capsys.readouterr().out.splitlines()
            if "│" in line]  # fmt: skip
    assert code == 0
    assert rows[0].startswith("scenarioCorrectRate (headline) – tooleval: 0/1 runs correct")
    assert rows[1] == "scenarioPassRate – the original's rule (all runs)"
    assert not any(r.startswith(("scenarioCorrectRate", "scenarioPassRate")) for r in rows[2:])
