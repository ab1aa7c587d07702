"""The scripted-transcript test bed: load it, play it through tooleval's multi-turn driver with
the shipped fake, and score it the original's way.

Each file in tests/data/cesium_scripted/ holds the runs of one scenario: rounds of calls
(name + arguments, an object or raw JSON text) and the final answer text (``null``: the model
never answers, the run ends after its last round of calls), with ``expect`` (``correct`` /
``wrong``), why, and for wrong runs the problem code the headline must report.

``play`` runs every scripted run of one scenario as a repetition of one ``run_conversations``
call (one worker, so the fake's script is consumed run after run) and returns the driver's
records and the results document it wrote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest import make_fake
from tooleval.records import ConversationRecord
from tooleval.runner import run_conversations
from tooleval.runner.records import RunConfig
from tooleval.suites import load_suite
from tooleval.suites.cesium.routing import route_original
from tooleval.suites.cesium.scenarios import Scenario
from tooleval.suites.cesium.transcript import ScenarioTranscript, from_run

DATA = Path(__file__).parent / "data" / "cesium_scripted"
SUITE = load_suite("cesium")
SCENARIOS: dict[str, Scenario] = {s.id: s for s in SUITE.tasks}
Rounds = tuple[tuple[tuple[str, Any], ...], ...]


@dataclass(frozen=True)
class ScriptedRun:
    scenario: Scenario
    id: str
    expect: str  # correct | wrong
    why: str
    rounds: Rounds
    final: str | None
    problem: str | None

    @property
    def label(self) -> str:
        return f"{self.scenario.id}/{self.id}"


def _run(scenario: Scenario, raw: dict[str, Any], where: str) -> ScriptedRun:
    if raw.get("expect") not in ("correct", "wrong"):
        raise ValueError(f"{where}: expect must be 'correct' or 'wrong'")
    rounds = tuple(tuple((c["name"], c.get("arguments", {})) for c in r) for r in raw["rounds"])
    if not rounds and raw.get("final") is None:
        raise ValueError(f"{where}: a run needs a round of calls or a final answer")
    return ScriptedRun(scenario, raw["id"], raw["expect"], raw["why"], rounds, raw.get("final"),
                       raw.get("problem"))  # fmt: skip


def load_scripted() -> list[ScriptedRun]:
    runs: list[ScriptedRun] = []
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        scenario = SCENARIOS[doc["scenario"]]
        runs += [_run(scenario, r, f"{path.name}: runs[{i}]") for i, r in enumerate(doc["runs"])]
    return runs


def calls(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """A fake reply with native calls; a str argument is sent verbatim (may be invalid JSON)."""
    rendered = [
        {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)} for n, a in pairs
    ]
    return {"tool_calls": rendered, "usage": {"input_tokens": 10, "output_tokens": 5}}


def answer(text: str) -> dict[str, Any]:
    return {"text": text, "usage": {"input_tokens": 10, "output_tokens": 3}}


def script(rounds: Rounds, final: str | None) -> list[dict[str, Any]]:
    """The fake's replies for one run: its rounds of calls, then its final answer if any."""
    replies = [calls(*r) for r in rounds]
    return replies + ([answer(final)] if final is not None else [])


def play(
    scenario: Scenario,
    runs: Sequence[tuple[Rounds, str | None]],
    output: Path,
    max_rounds: int | None = None,
) -> tuple[list[ConversationRecord], dict[str, Any]]:
    """Every run as one repetition of ``scenario`` (``max_rounds``: the longest script). A run
    without a final answer must be the only one, with ``max_rounds`` its number of rounds:
    that is what ends it."""
    scripts = [script(rounds, final) for rounds, final in runs]
    config = RunConfig(
        suite="cesium", backend="fake", model="scripted", mode="native", concurrency=1,
        max_retries=0, repeats=len(runs), max_rounds=max_rounds or max(map(len, scripts)),
        task_ids=(scenario.id,), output=output,
    )  # fmt: skip
    records: list[ConversationRecord] = []
    fake = make_fake(*(reply for s in scripts for reply in s))
    document = run_conversations(config, fake, suite=SUITE, on_record=records.append)
    return sorted(records, key=lambda r: r.repeat), document


def play_one(
    scenario_id: str, rounds: Rounds, final: str | None, output: Path
) -> ConversationRecord:
    """One run through the driver; without a final answer it ends after its last round."""
    limit = len(rounds) + (final is not None)
    (record,), _ = play(SCENARIOS[scenario_id], [(rounds, final)], output, limit)
    return record


def play_bed(runs: Sequence[ScriptedRun], folder: Path) -> dict[str, ConversationRecord]:
    """Every scripted run through the driver, by label (one driver run per scenario and per
    kind of ending)."""
    out: dict[str, ConversationRecord] = {}
    groups: dict[tuple[str, bool], list[ScriptedRun]] = {}
    for run in runs:
        groups.setdefault((run.scenario.id, run.final is None), []).append(run)
    for (scenario_id, no_final), group in groups.items():
        path = folder / f"{scenario_id}{'-no-final' if no_final else ''}.json"
        if no_final:  # each its own driver run: the number of rounds is what ends it
            records = [play_one(scenario_id, r.rounds, None, path) for r in group]
        else:
            records = play(SCENARIOS[scenario_id], [(r.rounds, r.final) for r in group], path)[0]
        out.update({run.label: record for run, record in zip(group, records, strict=True)})
    return out


def transcript_of(run: ScriptedRun, record: ConversationRecord) -> ScenarioTranscript:
    return from_run(run.scenario, record)


def original_metrics(transcripts: Sequence[ScenarioTranscript]) -> dict[str, float]:
    """The original's nine metrics by its own definitions, computed here from the transcripts
    (every run pooled; the tools a scenario expects are its requiredTools; the tools sent are
    what the original router sends; a model turn is a round of calls or the final answer; no
    provider errors in scripted runs)."""
    required = sent = valid_required = routing_missing = calls_made = valid = unexpected = 0
    passed = no_tool = rounds = 0
    for t in transcripts:
        need, tools = t.scenario.required_tools, route_original(t.scenario.prompt).tools
        made = [at.call for at in t.calls()]
        good = {c.name for c in made if c.valid} & set(need)
        missing = [name for name in need if name not in tools]
        required, sent = required + len(need), sent + len(tools)
        valid_required, routing_missing = valid_required + len(good), routing_missing + len(missing)
        calls_made, valid = calls_made + len(made), valid + sum(c.valid for c in made)
        unexpected += sum(c.name not in need for c in made)
        passed += not missing and len(good) == len(need)
        no_tool += not made
        rounds += len(t.rounds) + (t.final_text is not None)
    runs = len(transcripts)
    return {
        "scenarioPassRate": passed / runs,
        "requiredToolRecall": valid_required / required,
        "argumentValidityRate": valid / calls_made,
        "unexpectedToolCallRate": unexpected / calls_made,
        "noToolResponseRate": no_tool / runs,
        "providerErrorRate": 0.0,
        "routingRequiredToolRecall": (required - routing_missing) / required,
        "averageToolsSent": sent / runs,
        "averageRounds": rounds / runs,
    }
