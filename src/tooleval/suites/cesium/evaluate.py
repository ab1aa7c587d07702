"""Layer 2 end to end: route each scenario, run it against a provider, build the report.

``preflight`` needs no network; ``run_live`` takes any ``Provider`` (the CLI builds one from
``--backend``). Runs go repetition-major (every scenario of run 1, then run 2 …). When the
request budget is exhausted the remaining runs are marked ``budget_exhausted`` without a call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tooleval.providers.base import Provider
from tooleval.records import Message
from tooleval.suites import tools_hash
from tooleval.suites.cesium.catalogue import Catalogue, load_catalogue
from tooleval.suites.cesium.loop import (
    DEFAULT_CONFIG,
    LoopConfig,
    RequestGate,
    ScenarioRun,
    Sleep,
    run_scenario,
)
from tooleval.suites.cesium.metrics import summarize_runs
from tooleval.suites.cesium.routing import Selection, route_original
from tooleval.suites.cesium.routing_improved import route_improved
from tooleval.suites.cesium.scenarios import Scenario, load_scenarios


@dataclass(frozen=True)
class Routed:
    scenario: Scenario
    selection: Selection

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(t for t in self.scenario.required_tools if t not in self.selection.tools)


def select_scenarios(case_ids: Sequence[str] | None) -> list[Scenario]:
    """The scenarios named (file order), or all; an unknown id is an error."""
    scenarios = list(load_scenarios())
    if not case_ids:
        return scenarios
    known = {s.id for s in scenarios}
    unknown = [c for c in case_ids if c not in known]
    if unknown:
        raise ValueError(f"unknown scenario id(s): {', '.join(unknown)}")
    return [s for s in scenarios if s.id in case_ids]


def preflight(scenarios: Sequence[Scenario], router: str = "original") -> list[Routed]:
    route = route_improved if router == "improved" else route_original
    return [Routed(s, route(s.prompt)) for s in scenarios]


def message_json(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.call_id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def run_json(run: ScenarioRun, catalogue: Catalogue) -> dict[str, Any]:
    return {
        "id": run.scenario.id,
        "locale": run.scenario.locale,
        "repetition": run.repetition,
        "outcome": run.outcome,
        "passed": run.passed,
        "workflowPassed": run.workflow_passed,
        "error": run.error,
        "rounds": run.rounds,
        "requests": run.requests,
        "requiredTools": list(run.scenario.required_tools),
        "validRequiredTools": list(run.valid_required),
        "routingMissingTools": list(run.routing_missing),
        "selectedToolsets": list(run.selection.toolsets),
        "selectedTools": list(run.selection.tools),
        "toolsHash": tools_hash(catalogue.specs(run.selection.tools)),
        "systemPrompt": run.system_prompt,
        "calls": [call_json(c) for c in run.calls],
        "steps": [{"tool": s.tool, "status": s.status, "call": s.call_index} for s in run.steps],
        "finalText": run.final_text,
        "usage": {"inputTokens": run.input_tokens, "outputTokens": run.output_tokens},
        "transcript": [message_json(m) for m in run.transcript],
    }


def call_json(call: Any) -> dict[str, Any]:
    return {
        "round": call.round,
        "id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "valid": call.valid,
        "issues": list(call.issues),
        "kind": call.kind,
        "destructive": call.destructive,
        "result": call.result,
    }


def _skipped(item: Routed, repetition: int, reason: str) -> ScenarioRun:
    run = ScenarioRun(item.scenario, repetition, item.selection, "")
    run.outcome, run.error = "budget_exhausted", reason
    return run


def run_live(
    routed: Sequence[Routed],
    provider: Provider,
    *,
    repeats: int = 1,
    config: LoopConfig = DEFAULT_CONFIG,
    gate: RequestGate | None = None,
    sleep: Sleep = time.sleep,
) -> list[ScenarioRun]:
    catalogue = load_catalogue()
    gate = gate or RequestGate(max_requests=24, sleep=sleep)
    runs: list[ScenarioRun] = []
    exhausted: str | None = None
    for repetition in range(1, repeats + 1):
        for item in routed:
            if exhausted is not None:
                runs.append(_skipped(item, repetition, exhausted))
                continue
            run = run_scenario(
                item.scenario, provider, selection=item.selection, catalogue=catalogue,
                gate=gate, config=config, repetition=repetition, sleep=sleep,
            )  # fmt: skip
            runs.append(run)
            if run.outcome == "budget_exhausted":
                exhausted = run.error
    return runs


def build_report(
    runs: Sequence[ScenarioRun], *, settings: dict[str, Any], request_count: int
) -> dict[str, Any]:
    catalogue = load_catalogue()
    return {
        "createdAt": datetime.now(UTC).isoformat(timespec="seconds"),
        "suite": "cesium",
        "suiteVersion": catalogue.version,
        "settings": settings,
        "requestCount": request_count,
        "summary": summarize_runs(runs),
        "results": [run_json(r, catalogue) for r in runs],
    }
