"""The workflow check: were the scenario's steps done, in order, with the right values?

``step_mismatches`` is the one place that decides whether a call does what a step asks; the
headline check (``correctness``) uses it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.suites.cesium.matchers import Results, mismatched_keys
from tooleval.suites.cesium.scenarios import ExecutedCall, Scenario, Step, StepOutcome


def step_mismatches(
    step: Step, name: str, args: Mapping[str, Any], earlier: Results
) -> list[str] | None:
    """None when ``name`` is neither the step's tool nor a declared equivalent; otherwise the
    matcher keys the call fails (empty: the call does what the step asks)."""
    if name == step.tool:
        return mismatched_keys(name, args, step.args, earlier)
    for equivalent in step.equivalents:
        if name == equivalent.tool:
            own = mismatched_keys(name, args, equivalent.args, earlier)
            return mismatched_keys(name, args, step.args, earlier) + own
    return None


def _step_outcome(
    scenario: Scenario,
    index: int,
    calls: Sequence[ExecutedCall],
    matched: list[ExecutedCall],
    after: int,
) -> StepOutcome:
    step = scenario.steps[index]
    same_tool = [c for c in calls if c.name in step.tools]
    if not same_tool:
        return StepOutcome(step.tool, "missing", None, "no valid call of this tool")
    earlier = [c.result for c in matched]
    succeeded = [c for c in same_tool if c.result.get("success") is True]
    good = [c for c in succeeded if step_mismatches(step, c.name, c.arguments, earlier) == []]
    if not good:
        return StepOutcome(step.tool, "value_mismatch", same_tool[0].index, "arguments differ")
    in_order = [c for c in good if c.index > after] if scenario.ordered else good
    if not in_order:
        return StepOutcome(step.tool, "order_violation", good[0].index, "called before step")
    return StepOutcome(step.tool, "matched", in_order[0].index)


def check_workflow(scenario: Scenario, calls: Sequence[ExecutedCall]) -> tuple[StepOutcome, ...]:
    """One outcome per step. ``calls`` are the run's schema-valid calls with their results.

    For ordered scenarios each step must be satisfied by a call after the call that satisfied
    the previous step; ``fromResult`` matchers read the results of earlier matched calls.
    """
    outcomes: list[StepOutcome] = []
    matched: list[ExecutedCall] = []
    after = -1
    for index in range(len(scenario.steps)):
        outcome = _step_outcome(scenario, index, calls, matched, after)
        outcomes.append(outcome)
        if outcome.status != "matched" or outcome.call_index is None:
            placeholder = ExecutedCall(-1, scenario.steps[index].tool, {}, {})
            matched.append(placeholder)
            continue
        matched.append(next(c for c in calls if c.index == outcome.call_index))
        after = outcome.call_index
    return tuple(outcomes)
