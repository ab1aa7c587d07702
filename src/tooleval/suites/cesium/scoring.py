"""The verdict on one Cesium scenario run that ended with the model (pure functions).

``correct`` is tooleval's headline verdict (``correctness.judge``: every step done by a call the
simulator accepted, with the right values, dependent calls after the result they use, nothing
undone, the asked answer stated); ``success`` is that verdict as 0/1 and ``outcome`` is
``correct`` or the first problem's code (``value_mismatch``, ``answer_missing`` …). ``passed``
is the upstream rule, kept for comparability: every required tool got at least one call that
passed the checks (offered tool, arguments valid against its contract), whatever its order,
values or simulated outcome. The workflow check (``workflow.check_workflow``) asks more:
the scenario's steps, in order where it says so, with the right values, on calls the simulated
viewer accepted. Each call is classed against the scenario: ``required``, ``allowed``,
``unexpected`` (offered but not allowed), ``not_sent`` (a real tool that was not routed) or
``hallucinated`` (no such tool).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.records import ConversationRecord, ExecutedCall
from tooleval.suites.cesium.catalogue import Catalogue
from tooleval.suites.cesium.correctness import Verdict, judge_record, problem_code
from tooleval.suites.cesium.environment import schema_valid
from tooleval.suites.cesium.scenarios import Scenario, StepOutcome
from tooleval.suites.cesium.workflow import check_workflow


def call_kind(name: str, scenario: Scenario, offered: Sequence[str], catalogue: Catalogue) -> str:
    if name not in catalogue.by_name():
        return "hallucinated"
    if name not in offered:
        return "not_sent"
    if name in scenario.required_tools:
        return "required"
    return "allowed" if name in scenario.allowed_tools else "unexpected"


def is_destructive(name: str, catalogue: Catalogue) -> bool:
    tool = catalogue.by_name().get(name)
    return bool(tool and tool.annotations.get("destructiveHint"))


@dataclass(frozen=True)
class ScenarioScore:
    """One scored run: the headline ``verdict`` (``outcome``, ``success``) and the upstream
    rule (``passed``) beside it."""

    verdict: Verdict
    outcome: str
    success: int
    passed: bool
    valid_required_tools: tuple[str, ...]
    missing_required_tools: tuple[str, ...]
    tool_calls: int
    valid_tool_calls: int
    unexpected_tool_calls: int
    destructive_calls: int
    call_kinds: tuple[str, ...]
    workflow_passed: bool
    steps: tuple[StepOutcome, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "success": self.success,
            "correct": self.verdict.correct,
            "problems": list(self.verdict.problems),
            "step_checks": self.verdict.to_json()["steps"],
            "passed": self.passed,
            "valid_required_tools": list(self.valid_required_tools),
            "missing_required_tools": list(self.missing_required_tools),
            "tool_calls": self.tool_calls,
            "valid_tool_calls": self.valid_tool_calls,
            "unexpected_tool_calls": self.unexpected_tool_calls,
            "destructive_calls": self.destructive_calls,
            "call_kinds": list(self.call_kinds),
            "workflow_passed": self.workflow_passed,
            "steps": [
                {"tool": s.tool, "status": s.status, "call_index": s.call_index, "detail": s.detail}
                for s in self.steps
            ],
        }


def valid_required(scenario: Scenario, calls: Sequence[ExecutedCall]) -> tuple[str, ...]:
    """Required tools with at least one call that passed the upstream checks."""
    valid = {c.name for c in calls if schema_valid(c)}
    return tuple(t for t in scenario.required_tools if t in valid)


def verdict_outcome(verdict: Verdict) -> str:
    """``correct``, or the code of the verdict's first problem."""
    if verdict.correct:
        return "correct"
    return problem_code(verdict.problems[0]) if verdict.problems else "wrong"


def score_scenario(
    scenario: Scenario, offered: Sequence[str], record: ConversationRecord, catalogue: Catalogue
) -> ScenarioScore:
    calls = record.calls
    found = valid_required(scenario, calls)
    kinds = tuple(call_kind(c.name, scenario, offered, catalogue) for c in calls)
    steps = check_workflow(scenario, [c for c in calls if schema_valid(c)])
    passed = len(found) == len(scenario.required_tools) and all(
        t in offered for t in scenario.required_tools
    )
    verdict = judge_record(scenario, record)
    return ScenarioScore(
        verdict=verdict,
        outcome=verdict_outcome(verdict),
        success=int(verdict.correct),
        passed=passed,
        valid_required_tools=found,
        missing_required_tools=tuple(t for t in scenario.required_tools if t not in found),
        tool_calls=len(calls),
        valid_tool_calls=sum(1 for c in calls if schema_valid(c)),
        unexpected_tool_calls=sum(1 for k in kinds if k not in ("required", "allowed")),
        destructive_calls=sum(1 for c in calls if is_destructive(c.name, catalogue)),
        call_kinds=kinds,
        workflow_passed=bool(steps) and all(s.status == "matched" for s in steps),
        steps=steps,
    )
