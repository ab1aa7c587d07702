"""The Cesium suite's multi-turn rules: each scenario's prompt is routed once (the original or
the improved router), the routed tools are offered natively, calls run on a fresh simulated
globe per run, and each result goes back as a ``tool`` message (compact JSON). A scenario
whose required tools were not routed is blocked (a routing miss, never charged to the model).

The conversation runs until the model answers without a tool call or the rounds run out, not
until the required tools have been seen (the upstream harness stopped there), so recovery and
the final answer are part of the transcript.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tooleval.records import ConversationRecord, JSONObject, Message, Mode, ToolSpec
from tooleval.suites.base import Environment, tools_hash
from tooleval.suites.cesium.catalogue import Catalogue
from tooleval.suites.cesium.environment import (
    ISSUES,
    SceneEnvironment,
    issue_body,
    unreadable_issue,
)
from tooleval.suites.cesium.metrics import routing_missing, summarize
from tooleval.suites.cesium.routing import Selection
from tooleval.suites.cesium.scenarios import Scenario
from tooleval.suites.cesium.scoring import ScenarioScore, score_scenario

MAX_CALLS_PER_ROUND = 64


class CesiumDialogue:
    """The ``Dialogue`` of the Cesium suite (see ``tooleval.suites.base``)."""

    modes: tuple[Mode, ...] = ("native",)
    text_calls = False
    max_calls_per_round = MAX_CALLS_PER_ROUND

    def __init__(self, catalogue: Catalogue, selections: dict[str, Selection]) -> None:
        self.catalogue = catalogue
        self.selections = selections

    def selection(self, task: Scenario) -> Selection:
        return self.selections[task.id]

    def tools(self, task: Scenario) -> tuple[ToolSpec, ...]:
        return self.catalogue.specs(self.selection(task).tools)

    def blocked(self, task: Scenario) -> str | None:
        missing = routing_missing(task, self.selection(task))
        return "router omitted: " + ", ".join(missing) if missing else None

    def environment(self, task: Scenario) -> Environment:
        return SceneEnvironment(self.selection(task).tools, self.catalogue)

    def result_text(self, body: JSONObject) -> str:
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"))

    def prompt_feedback(self, results: Sequence[tuple[str, str]]) -> Message:
        raise ValueError("the Cesium scenarios run in native mode only")

    def refusal(self, code: str, detail: str) -> JSONObject:
        issue = unreadable_issue(detail) if code == "unreadable_call" else ISSUES.get(code, code)
        return issue_body([issue])

    def score(
        self, task: Scenario, record: ConversationRecord, environment: Environment
    ) -> ScenarioScore:
        return score_scenario(task, self.selection(task).tools, record, self.catalogue)

    def summarize(
        self, runs: Sequence[tuple[Scenario, ConversationRecord]], categories: Sequence[str]
    ) -> dict[str, Any]:
        summary = summarize([(s, self.selection(s), r) for s, r in runs])
        summary["routing"] = self.routing_json({s.id: s for s, _ in runs}.values())
        return summary

    def routing_json(self, scenarios: Sequence[Scenario] | Any) -> dict[str, Any]:
        """Per scenario: the tools sent, their hash, and the required tools not routed."""
        out: dict[str, Any] = {}
        for scenario in scenarios:
            selection = self.selection(scenario)
            out[scenario.id] = {
                "router": selection.router,
                "toolsets": list(selection.toolsets),
                "tools": list(selection.tools),
                "tools_hash": tools_hash(self.catalogue.specs(selection.tools)),
                "missing": list(routing_missing(scenario, selection)),
            }
        return out
