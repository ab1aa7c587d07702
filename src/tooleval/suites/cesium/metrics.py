"""Run-level metrics of the Cesium scenarios: the upstream harness's nine metrics, exactly as it
defines them and under its names, and tooleval's own beside them under their own names.

The upstream harness (``summarizeModelToolEval``) pools every run R (scenario x repetition) into
one list, *including* runs that ended in a provider error, an exhausted request budget or a
routing miss: such a run counts as a failed record (not passed, no valid calls, no tool call
at all, zero rounds, ``providerError`` set). Its nine metrics:

  scenarioPassRate          = |{r : passed}| / |R|
  requiredToolRecall        = Σ |required tools with a valid call| / Σ |required tools|
  argumentValidityRate      = Σ valid calls / Σ calls                         (call-weighted)
  unexpectedToolCallRate    = Σ calls to a tool outside the allowed set / Σ calls
  noToolResponseRate        = |{r : no tool call at all}| / |R|        (error runs included)
  providerErrorRate         = |{r : provider error, budget or routing miss}| / |R|
  routingRequiredToolRecall = (Σ |required| − Σ |required not routed|) / Σ |required|
  averageToolsSent          = Σ |tools sent| / |R|
  averageRounds             = Σ rounds / |R|                          (error runs count 0)

The allowed set is upstream's ``allowedTools ?? requiredTools``; the upstream scenarios declare
no ``allowedTools``, so for comparability the allowed set here is the required tools (our own
``unexpected_call_rate`` uses the scenarios' ``allowedTools``). Where upstream returns 0 for an
empty denominator, these return None (null): "no calls" is not "0 % valid".

tooleval's metrics (``metrics``) keep model quality apart from errors: rates over the *scored*
runs S (the model ended the conversation or ran out of rounds), error rates over R. They lead
with the headline ``scenarioCorrectRate``: runs in S that ``correctness.judge`` finds correct
/ |S| (null when S is empty). ``headline`` puts it first in a results document, with its
counts, the problem codes of the wrong runs, and the original's ``scenarioPassRate`` beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.metrics import pass_at_k
from tooleval.records import ConversationRecord
from tooleval.suites.cesium.correctness import problem_counts, scenario_correct_rate
from tooleval.suites.cesium.environment import schema_valid
from tooleval.suites.cesium.routing import Selection
from tooleval.suites.cesium.scenarios import Scenario
from tooleval.suites.cesium.scoring import ScenarioScore, valid_required

ERROR_ENDINGS = frozenset({"provider_error", "budget_exhausted", "blocked"})
ORIGINAL_NAMES = (
    "scenarioPassRate",
    "requiredToolRecall",
    "argumentValidityRate",
    "unexpectedToolCallRate",
    "noToolResponseRate",
    "providerErrorRate",
    "routingRequiredToolRecall",
    "averageToolsSent",
    "averageRounds",
)
HEADLINE = "scenarioCorrectRate"
ORIGINAL_RULE = "the original's rule (all runs)"
Run = tuple[Scenario, Selection, ConversationRecord]


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class OriginalRecord:
    """One run as the upstream harness records it (its fields, counted)."""

    passed: bool
    required: int
    valid_required: int
    tool_calls: int
    valid_tool_calls: int
    unexpected_tool_calls: int
    no_tool_response: bool
    provider_error: bool
    routing_missing: int
    tools_sent: int
    rounds: int


def routing_missing(scenario: Scenario, selection: Selection) -> tuple[str, ...]:
    return tuple(t for t in scenario.required_tools if t not in selection.tools)


def original_record(
    scenario: Scenario, selection: Selection, run: ConversationRecord
) -> OriginalRecord:
    """``run`` projected onto the upstream record; an error run is upstream's failed record."""
    missing = len(routing_missing(scenario, selection))
    sent = len(selection.tools)
    required = len(scenario.required_tools)
    if run.ending in ERROR_ENDINGS:
        return OriginalRecord(False, required, 0, 0, 0, 0, True, True, missing, sent, 0)
    found = valid_required(scenario, run.calls)
    return OriginalRecord(
        passed=missing == 0 and len(found) == required,
        required=required,
        valid_required=len(found),
        tool_calls=len(run.calls),
        valid_tool_calls=sum(1 for c in run.calls if schema_valid(c)),
        unexpected_tool_calls=sum(1 for c in run.calls if c.name not in scenario.required_tools),
        no_tool_response=not run.calls,
        provider_error=False,
        routing_missing=missing,
        tools_sent=sent,
        rounds=run.rounds,
    )


def original_metrics(records: Sequence[OriginalRecord]) -> dict[str, float | None]:
    """The nine upstream metrics over ``records`` (None for an empty denominator)."""
    n = len(records)
    required = sum(r.required for r in records)
    calls = sum(r.tool_calls for r in records)
    return {
        "scenarioPassRate": ratio(sum(r.passed for r in records), n),
        "requiredToolRecall": ratio(sum(r.valid_required for r in records), required),
        "argumentValidityRate": ratio(sum(r.valid_tool_calls for r in records), calls),
        "unexpectedToolCallRate": ratio(sum(r.unexpected_tool_calls for r in records), calls),
        "noToolResponseRate": ratio(sum(r.no_tool_response for r in records), n),
        "providerErrorRate": ratio(sum(r.provider_error for r in records), n),
        "routingRequiredToolRecall": ratio(
            required - sum(r.routing_missing for r in records), required
        ),
        "averageToolsSent": ratio(sum(r.tools_sent for r in records), n),
        "averageRounds": ratio(sum(r.rounds for r in records), n),
    }


def original_counts(records: Sequence[OriginalRecord], runs: Sequence[Run]) -> dict[str, Any]:
    """The upstream summary's counters beside the nine metrics."""
    calls = sum(r.tool_calls for r in records)
    usage = [u for _, _, run in runs for u in run.usage]
    prompt = sum(u.input_tokens or 0 for u in usage)
    completion = sum(u.output_tokens or 0 for u in usage)
    return {
        "scenarios": len(records),
        "passedScenarios": sum(r.passed for r in records),
        "totalToolCalls": calls,
        "validToolCalls": sum(r.valid_tool_calls for r in records),
        "averageToolCalls": ratio(calls, len(records)),
        "promptTokens": prompt,
        "completionTokens": completion,
        "totalTokens": prompt + completion,
    }


def _scores(runs: Sequence[Run]) -> list[tuple[Scenario, ScenarioScore, ConversationRecord]]:
    return [(s, r.score, r) for s, _, r in runs if isinstance(r.score, ScenarioScore)]


def tooleval_metrics(runs: Sequence[Run]) -> dict[str, float | None]:
    """Model quality over the scored runs; errors, budget and routing misses over all runs."""
    scored = _scores(runs)
    calls = sum(score.tool_calls for _, score, _ in scored)
    dependent = [score for s, score, _ in scored if s.dependent]
    endings = Counter(r.ending for _, _, r in runs)
    required = sum(len(s.required_tools) for s, _, _ in scored)
    n = len(runs)
    return {
        HEADLINE: scenario_correct_rate([score.verdict for _, score, _ in scored]),
        "original_rule_pass_rate": ratio(sum(sc.passed for _, sc, _ in scored), len(scored)),
        "workflow_pass_rate": ratio(sum(sc.workflow_passed for _, sc, _ in scored), len(scored)),
        "dependency_check_pass_rate": ratio(
            sum(s.workflow_passed for s in dependent), len(dependent)
        ),
        "required_tool_recall": ratio(
            sum(len(sc.valid_required_tools) for _, sc, _ in scored), required
        ),
        "argument_validity_rate": ratio(sum(sc.valid_tool_calls for _, sc, _ in scored), calls),
        "unexpected_call_rate": ratio(sum(sc.unexpected_tool_calls for _, sc, _ in scored), calls),
        "destructive_call_rate": ratio(sum(sc.destructive_calls for _, sc, _ in scored), calls),
        "no_tool_response_rate": ratio(sum(sc.tool_calls == 0 for _, sc, _ in scored), len(scored)),
        "average_rounds": ratio(sum(r.rounds for _, _, r in scored), len(scored)),
        "provider_error_rate": ratio(endings["provider_error"], n),
        "budget_exhausted_rate": ratio(endings["budget_exhausted"], n),
        "routing_miss_rate": ratio(endings["blocked"], n),
    }


def per_scenario(runs: Sequence[Run]) -> dict[str, dict[str, Any]]:
    """Per scenario: runs, scored runs, correct runs (the headline), runs passing the original's
    rule, and pass@k of the headline over its runs."""
    table: dict[str, dict[str, Any]] = {}
    for scenario, _, run in runs:
        row = table.setdefault(
            scenario.id,
            {"runs": 0, "scored": 0, "correct": 0, "passed_original_rule": 0, "verdicts": []},
        )
        score = run.score if isinstance(run.score, ScenarioScore) else None
        row["runs"] += 1
        row["scored"] += score is not None
        correct = bool(score and score.verdict.correct)
        row["correct"] += correct
        row["passed_original_rule"] += bool(score and score.passed)
        row["verdicts"].append(correct)
    for row in table.values():
        verdicts = row.pop("verdicts")
        row["pass_at_k"] = pass_at_k({"_": verdicts}, len(verdicts))
    return table


def headline(runs: Sequence[Run], original: dict[str, float | None]) -> dict[str, Any]:
    """The headline first: its value over the judged (scored) runs, how many were correct, the
    problem codes of the others, and the original's pass rate beside it, labelled."""
    verdicts = [score.verdict for _, score, _ in _scores(runs)]
    return {
        "metric": HEADLINE,
        "value": scenario_correct_rate(verdicts),
        "correct": sum(v.correct for v in verdicts),
        "judged": len(verdicts),
        "problems": problem_counts(verdicts),
        "beside": {
            "metric": "scenarioPassRate",
            "value": original["scenarioPassRate"],
            "label": ORIGINAL_RULE,
        },
    }


def summarize(runs: Sequence[Run]) -> dict[str, Any]:
    """Every section the Cesium dialogue adds to a results document, the headline first."""
    records = [original_record(s, sel, r) for s, sel, r in runs]
    original = original_metrics(records)
    return {
        "headline": headline(runs, original),
        "metrics": tooleval_metrics(runs),
        "original_metrics": original,
        "original_counts": original_counts(records, runs),
        "per_scenario": per_scenario(runs),
    }
