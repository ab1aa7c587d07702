"""The scripted-transcript test bed: load it, replay it, and score it the original's way.

Each file in tests/data/cesium_scripted/ holds the runs of one scenario: rounds of calls
(name + arguments, an object or raw JSON text) and the final answer text, with ``expect``
(``correct`` / ``wrong``), why, and for wrong runs the problem code the headline must report.
The files do not depend on any loop: ``replay`` executes them on the simulator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.suites.cesium import load_catalogue
from tooleval.suites.cesium.loop import CallRecord, ScenarioRun, classify
from tooleval.suites.cesium.routing import Selection, route_original
from tooleval.suites.cesium.scenarios import ExecutedCall, Scenario, load_scenarios
from tooleval.suites.cesium.transcript import ScenarioTranscript, replay
from tooleval.suites.cesium.workflow import check_workflow

DATA = Path(__file__).parent / "data" / "cesium_scripted"
SCENARIOS = {s.id: s for s in load_scenarios()}


@dataclass(frozen=True)
class ScriptedRun:
    scenario: Scenario
    id: str
    expect: str  # correct | wrong
    why: str
    rounds: tuple[tuple[tuple[str, Any], ...], ...]
    final: str | None
    problem: str | None

    @property
    def label(self) -> str:
        return f"{self.scenario.id}/{self.id}"

    def transcript(self) -> ScenarioTranscript:
        return replay(self.scenario, self.rounds, self.final)


def _run(scenario: Scenario, raw: dict[str, Any], where: str) -> ScriptedRun:
    if raw.get("expect") not in ("correct", "wrong"):
        raise ValueError(f"{where}: expect must be 'correct' or 'wrong'")
    rounds = tuple(tuple((c["name"], c.get("arguments", {})) for c in r) for r in raw["rounds"])
    return ScriptedRun(scenario, raw["id"], raw["expect"], raw["why"], rounds, raw.get("final"),
                       raw.get("problem"))  # fmt: skip


def load_scripted() -> list[ScriptedRun]:
    runs: list[ScriptedRun] = []
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        scenario = SCENARIOS[doc["scenario"]]
        runs += [_run(scenario, r, f"{path.name}: runs[{i}]") for i, r in enumerate(doc["runs"])]
    return runs


def selection_for(scenario: Scenario) -> Selection:
    return route_original(scenario.prompt)


def model_rounds(transcript: ScenarioTranscript) -> int:
    """Model turns: one per round of calls, plus the turn that gave the final answer."""
    return len(transcript.rounds) + (transcript.final_text is not None)


def to_scenario_run(transcript: ScenarioTranscript) -> ScenarioRun:
    """Today's run record (loop.ScenarioRun) for a replayed transcript, for metrics.py."""
    catalogue = load_catalogue()
    scenario, selection = transcript.scenario, selection_for(transcript.scenario)
    run = ScenarioRun(scenario, 1, selection, "")
    for at in transcript.calls():
        call = at.call
        tool = catalogue.by_name().get(call.name)
        run.calls.append(
            CallRecord(
                at.round, at.index, f"eval-{at.round}-{at.index + 1}", call.name,
                json.dumps(call.arguments), call.valid, (), classify(call.name, scenario,
                selection, catalogue), bool(tool and tool.annotations.get("destructiveHint")),
                dict(call.result),
            )
        )  # fmt: skip
    run.rounds, run.final_text = model_rounds(transcript), transcript.final_text
    executed = [
        ExecutedCall(at.index, at.call.name, at.call.arguments, at.call.result)
        for at in transcript.calls()
        if at.call.valid
    ]
    run.steps = check_workflow(scenario, executed)
    return run


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def original_metrics(transcripts: list[ScenarioTranscript]) -> dict[str, float]:
    """The original's nine metrics by its own definitions (every run pooled; the tools a
    scenario expects are its requiredTools; no provider errors in scripted runs)."""
    required = sent = valid_required = routing_missing = calls = valid = unexpected = 0
    passed = no_tool = rounds = 0
    for t in transcripts:
        need, tools = t.scenario.required_tools, selection_for(t.scenario).tools
        made = [at.call for at in t.calls()]
        good = {c.name for c in made if c.valid} & set(need)
        missing = [name for name in need if name not in tools]
        required, sent = required + len(need), sent + len(tools)
        valid_required, routing_missing = valid_required + len(good), routing_missing + len(missing)
        calls, valid = calls + len(made), valid + sum(c.valid for c in made)
        unexpected += sum(c.name not in need for c in made)
        passed += not missing and len(good) == len(need)
        no_tool += not made
        rounds += model_rounds(t)
    runs = len(transcripts)
    return {
        "scenarioPassRate": ratio(passed, runs),
        "requiredToolRecall": ratio(valid_required, required),
        "argumentValidityRate": ratio(valid, calls),
        "unexpectedToolCallRate": ratio(unexpected, calls),
        "noToolResponseRate": ratio(no_tool, runs),
        "providerErrorRate": 0.0,
        "routingRequiredToolRecall": ratio(required - routing_missing, required),
        "averageToolsSent": ratio(sent, runs),
        "averageRounds": ratio(rounds, runs),
    }
