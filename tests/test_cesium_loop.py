"""The multi-turn loop and its metrics, with a scripted fake provider (no network)."""

from __future__ import annotations

from typing import Any

import pytest

from cesium_helpers import ScriptedProvider, answer, calls
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.records import GenerationResponse, NativeToolCall
from tooleval.suites.cesium import load_catalogue
from tooleval.suites.cesium.evaluate import Routed, build_report, preflight, run_live
from tooleval.suites.cesium.loop import LoopConfig, RequestGate, ScenarioRun, run_scenario
from tooleval.suites.cesium.metrics import summarize_runs
from tooleval.suites.cesium.routing import Selection
from tooleval.suites.cesium.scenarios import load_scenarios

CAT = load_catalogue()
SCENARIOS = {s.id: s for s in load_scenarios()}
GEO_MARKER = preflight([SCENARIOS["multi-geocode-marker-en"]])[0]
FC = {"address": "Forbidden City"}
MARKER = {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"}


def play(
    item: Routed, *script: Any, max_rounds: int = 4, gate: RequestGate | None = None
) -> ScenarioRun:
    provider = ScriptedProvider(list(script))
    return run_scenario(
        item.scenario, provider, selection=item.selection, catalogue=CAT,
        gate=gate or RequestGate(100), config=LoopConfig(max_rounds=max_rounds),
        sleep=lambda _s: None,
    )  # fmt: skip


def correct() -> ScenarioRun:
    return play(GEO_MARKER, calls(("geocode", FC)), calls(("addMarker", MARKER)))


def wrong_order() -> ScenarioRun:
    return play(GEO_MARKER, calls(("addMarker", MARKER)), calls(("geocode", FC)))


def invalid_args() -> ScenarioRun:
    bad = {"longitude": 116.3972, "latitude": 39.9163, "name": "Forbidden City"}
    first = calls(("addMarker", bad), ("geocode", FC), ("clearAll", {}))
    return play(GEO_MARKER, first, answer("I added it."))


def provider_error() -> ScenarioRun:
    return play(GEO_MARKER, ProviderError(ErrorClass.CLIENT_ERROR, "bad request", status=400))


def no_tool() -> ScenarioRun:
    return play(GEO_MARKER, answer("The Forbidden City is in Beijing."))


def test_correct_run_completes_and_feeds_results_back() -> None:
    provider = ScriptedProvider([calls(("geocode", FC)), calls(("addMarker", MARKER))])
    run = run_scenario(GEO_MARKER.scenario, provider, selection=GEO_MARKER.selection,
                       catalogue=CAT, gate=RequestGate(10))  # fmt: skip
    assert (run.outcome, run.passed, run.workflow_passed, run.rounds) == (
        "completed",
        True,
        True,
        2,
    )
    second = provider.requests[1]
    assert len(second.tools) == 19 and second.messages[0].role == "system"
    assert "entity, view, geolocation" in (second.messages[0].content or "")
    assistant, tool = second.messages[2], second.messages[3]
    assert assistant.tool_calls[0].name == "geocode"
    assert tool.role == "tool" and tool.tool_call_id == assistant.tool_calls[0].call_id
    assert '"longitude":116.3972' in (tool.content or "")


def test_wrong_order_passes_upstream_but_not_the_workflow() -> None:
    run = wrong_order()
    assert run.passed and not run.workflow_passed
    assert [s.status for s in run.steps] == ["matched", "order_violation"]


def test_invalid_arguments_are_reported_back_and_counted() -> None:
    run = invalid_args()
    assert run.outcome == "completed" and not run.passed
    marker, geocode, clear = run.calls
    assert not marker.valid and "'name' was unexpected" in marker.issues[0]
    assert marker.result["success"] is False and geocode.valid
    assert (clear.kind, clear.valid, clear.unexpected) == ("not_sent", False, True)
    assert run.final_text == "I added it."


def test_provider_error_keeps_the_partial_transcript() -> None:
    run = play(GEO_MARKER, calls(("geocode", FC)), ProviderError(ErrorClass.SERVER_ERROR, "boom"))
    assert run.outcome == "provider_error" and run.error == "server_error: boom"
    assert [c.name for c in run.calls] == ["geocode"] and len(run.transcript) == 4
    assert run.requests == 4  # one success, then three tries of the failing round


def test_metrics_match_hand_computed_values() -> None:
    runs = [correct(), wrong_order(), invalid_args(), provider_error(), no_tool()]
    s = summarize_runs(runs)
    assert s["outcomes"] == {"completed": 4, "routing_miss": 0, "provider_error": 1,
                             "budget_exhausted": 0, "max_rounds": 0}  # fmt: skip
    assert (s["runs"], s["scoredRuns"], s["passedRuns"]) == (5, 4, 2)
    assert s["scenarioPassRate"] == 0.5
    assert s["requiredToolRecall"] == 0.625  # (2 + 2 + 1 + 0) / 8
    assert s["argumentValidityRate"] == round(5 / 7, 6)
    assert s["unexpectedToolCallRate"] == round(1 / 7, 6)
    assert s["noToolResponseRate"] == 0.25  # the provider error is not a no-tool response
    assert s["providerErrorRate"] == 0.2
    assert s["routingRequiredToolRecall"] == 1.0 and s["averageToolsSent"] == 19.0
    assert s["averageRounds"] == 1.75  # (2 + 2 + 2 + 1) / 4
    assert s["workflowPassRate"] == 0.25 and s["dependencyCheckPassRate"] == 0.25


def test_retryable_errors_are_retried_honouring_retry_after() -> None:
    slept: list[float] = []
    item = preflight([SCENARIOS["layer-basemap-en"]])[0]
    provider = ScriptedProvider([
        ProviderError(ErrorClass.RATE_LIMITED, "slow down", status=429, retry_after=3.0),
        calls(("setBasemap", {"basemap": "satellite"})),
    ])  # fmt: skip
    gate = RequestGate(10)
    run = run_scenario(item.scenario, provider, selection=item.selection, catalogue=CAT,
                       gate=gate, sleep=slept.append)  # fmt: skip
    assert (run.outcome, run.passed, run.requests, slept) == ("completed", True, 2, [3.0])


def test_budget_exhaustion_stops_the_whole_run() -> None:
    routed = preflight([SCENARIOS["layer-basemap-en"], SCENARIOS["camera-orbit-en"]])
    provider = ScriptedProvider([calls(("setBasemap", {"basemap": "satellite"}))])
    runs = run_live(routed, provider, repeats=2, gate=RequestGate(1), sleep=lambda _s: None)
    assert [r.outcome for r in runs] == ["completed"] + ["budget_exhausted"] * 3
    assert len(provider.requests) == 1
    summary = summarize_runs(runs)
    assert summary["budgetExhaustedRate"] == 0.75 and summary["noToolResponseRate"] == 0.0


def test_repeats_give_pass_counts_and_pass_hat_k() -> None:
    routed = preflight([SCENARIOS["layer-basemap-en"], SCENARIOS["camera-orbit-en"]])
    script = [calls(("setBasemap", {"basemap": "satellite"})),
              calls(("startOrbit", {"speed": 0.01})),
              calls(("setBasemap", {"basemap": "satellite"})), answer("Orbiting now.")]  # fmt: skip
    runs = run_live(routed, ScriptedProvider(script), repeats=2, sleep=lambda _s: None)
    stability = summarize_runs(runs)["stability"]
    assert isinstance(stability, dict)
    assert stability["perScenario"]["camera-orbit-en"] == {"runs": 2, "scored": 2, "passed": 1}
    assert (stability["k"], stability["passAtK"], stability["passHatK"]) == (2, 1.0, 0.5)


def test_max_rounds_and_pacing() -> None:
    item = preflight([SCENARIOS["camera-orbit-en"]])[0]
    clock = iter([0.0, 0.5, 2.0])  # first start, second check, second start
    slept: list[float] = []
    gate = RequestGate(10, delay_s=2.0, sleep=slept.append, clock=lambda: next(clock))
    run = play(item, calls(("getView", {})), max_rounds=2, gate=gate)
    assert run.outcome == "max_rounds" and run.rounds == 2 and run.scored
    assert slept == [1.5] and all(c.kind == "unexpected" for c in run.calls)


def test_routing_miss_never_calls_the_model() -> None:
    empty = Routed(SCENARIOS["heatmap-en"], Selection("x", "auto", (), (), ()))
    provider = ScriptedProvider([answer()])
    run = run_scenario(empty.scenario, provider, selection=empty.selection, catalogue=CAT,
                       gate=RequestGate(5))  # fmt: skip
    assert run.outcome == "routing_miss" and run.error == "router omitted: addHeatmap"
    assert provider.requests == [] and summarize_runs([run])["routingRequiredToolRecall"] == 0.0


@pytest.mark.parametrize(
    ("call", "kind", "issue"),
    [
        (NativeToolCall("geocode", '{"address": ', None), "required", "arguments are not valid"),
        (NativeToolCall("geocode", '{"address": NaN}', None), "required", "arguments are not"),
        (NativeToolCall("teleport", "{}", None), "hallucinated", "tool was not in the selected"),
        (NativeToolCall("", "{}", None), "hallucinated", "missing function name"),
    ],
)  # fmt: skip
def test_bad_calls_are_data_not_crashes(call: NativeToolCall, kind: str, issue: str) -> None:
    run = play(GEO_MARKER, GenerationResponse(text=None, tool_calls=(call,)), answer())
    record = run.calls[0]
    assert (record.kind, record.valid) == (kind, False) and record.issues[0].startswith(issue)
    assert record.call_id == "eval-1-1" and run.outcome == "completed"


def test_report_keeps_transcripts_prompt_and_tools_hash() -> None:
    report = build_report([correct(), provider_error()], settings={"model": "m"}, request_count=3)
    first = report["results"][0]
    assert first["transcript"][2]["tool_calls"][0]["name"] == "geocode"
    assert first["systemPrompt"].startswith("You operate a CesiumJS globe")
    assert len(first["toolsHash"]) == 16 and len(first["selectedTools"]) == 19
    assert report["results"][1]["outcome"] == "provider_error"
    assert report["summary"]["scoredRuns"] == 1
