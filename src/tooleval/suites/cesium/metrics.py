"""Run-level metrics for the live scenarios, with honest denominators.

R = every run (scenario × repetition). S = scored runs: outcome ``completed`` or
``max_rounds`` (the model answered every request it was sent). Runs that ended in a routing
miss, a provider error or an exhausted request budget are counted in their own rates and are
left out of every model-quality denominator, so an error never reads as "no tool response".

  scenarioPassRate          = |{r ∈ S : passed}| / |S|
  requiredToolRecall        = Σ_S |required tools with ≥1 valid call| / Σ_S |required tools|
  argumentValidityRate      = Σ_S valid calls / Σ_S calls          (call-weighted)
  unexpectedToolCallRate    = Σ_S calls to tools outside allowedTools / Σ_S calls
  noToolResponseRate        = |{r ∈ S : no tool call at all}| / |S|
  providerErrorRate         = |{r ∈ R : provider_error}| / |R|
  routingMissRate           = |{r ∈ R : routing_miss}| / |R|
  budgetExhaustedRate       = |{r ∈ R : budget_exhausted}| / |R|
  routingRequiredToolRecall = Σ_R |required ∩ sent| / Σ_R |required|
  averageToolsSent          = Σ_R |tools sent| / |R|
  averageRounds             = Σ_S rounds / |S|
  workflowPassRate          = |{r ∈ S : every step matched}| / |S|
  dependencyCheckPassRate   = same, over scored runs of scenarios with a dependent flow
  passAtK / passHatK        = over scenarios whose k runs were all scored: share with ≥ 1 pass /
                              with all k passing (k = repeats)
``ratio(a, 0) = 0``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tooleval.suites.cesium.loop import OUTCOMES, ScenarioRun


def ratio(numerator: float, denominator: float) -> float:
    return round(numerator / denominator, 6) if denominator else 0.0


def _model_quality(scored: Sequence[ScenarioRun]) -> dict[str, float]:
    calls = [c for r in scored for c in r.calls]
    dependent = [r for r in scored if r.scenario.dependent]
    required = sum(len(r.scenario.required_tools) for r in scored)
    return {
        "scenarioPassRate": ratio(sum(r.passed for r in scored), len(scored)),
        "requiredToolRecall": ratio(sum(len(r.valid_required) for r in scored), required),
        "argumentValidityRate": ratio(sum(c.valid for c in calls), len(calls)),
        "unexpectedToolCallRate": ratio(sum(c.unexpected for c in calls), len(calls)),
        "noToolResponseRate": ratio(sum(not r.calls for r in scored), len(scored)),
        "averageRounds": ratio(sum(r.rounds for r in scored), len(scored)),
        "workflowPassRate": ratio(sum(r.workflow_passed for r in scored), len(scored)),
        "dependencyCheckPassRate": ratio(sum(r.workflow_passed for r in dependent), len(dependent)),
    }


def _routing_and_errors(runs: Sequence[ScenarioRun]) -> dict[str, float]:
    outcomes = Counter(r.outcome for r in runs)
    required = sum(len(r.scenario.required_tools) for r in runs)
    missing = sum(len(r.routing_missing) for r in runs)
    return {
        "providerErrorRate": ratio(outcomes["provider_error"], len(runs)),
        "routingMissRate": ratio(outcomes["routing_miss"], len(runs)),
        "budgetExhaustedRate": ratio(outcomes["budget_exhausted"], len(runs)),
        "routingRequiredToolRecall": ratio(required - missing, required),
        "averageToolsSent": ratio(sum(len(r.selection.tools) for r in runs), len(runs)),
    }


def stability(runs: Sequence[ScenarioRun]) -> dict[str, object]:
    """Per-scenario pass counts, and pass@k / pass^k over scenarios whose runs all scored."""
    by_id: dict[str, list[ScenarioRun]] = {}
    for run in runs:
        by_id.setdefault(run.scenario.id, []).append(run)
    counts = {
        sid: {
            "runs": len(rs),
            "scored": sum(r.scored for r in rs),
            "passed": sum(r.passed for r in rs),
        }
        for sid, rs in by_id.items()
    }
    complete = [c for c in counts.values() if c["scored"] == c["runs"]]
    return {
        "k": max((c["runs"] for c in counts.values()), default=0),
        "perScenario": counts,
        "passAtK": ratio(sum(c["passed"] >= 1 for c in complete), len(complete)),
        "passHatK": ratio(sum(c["passed"] == c["runs"] for c in complete), len(complete)),
        "scenariosWithAllRunsScored": len(complete),
    }


def summarize_runs(runs: Sequence[ScenarioRun]) -> dict[str, object]:
    scored = [r for r in runs if r.scored]
    outcomes = Counter(r.outcome for r in runs)
    summary: dict[str, object] = {
        "runs": len(runs),
        "scoredRuns": len(scored),
        "passedRuns": sum(r.passed for r in scored),
        "outcomes": {name: outcomes[name] for name in OUTCOMES},
    }
    summary.update(_model_quality(scored))
    summary.update(_routing_and_errors(runs))
    summary["totalToolCalls"] = sum(len(r.calls) for r in scored)
    summary["validToolCalls"] = sum(c.valid for r in scored for c in r.calls)
    summary["inputTokens"] = sum(r.input_tokens for r in runs)
    summary["outputTokens"] = sum(r.output_tokens for r in runs)
    summary["stability"] = stability(runs)
    return summary
