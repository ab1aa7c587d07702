"""The headline: was the scenario done correctly? A pure function of one transcript.

A run is **correct** when all of these hold:

1. every step of the scenario is done by a call the simulator accepted (``success: true``) of
   the step's tool or of a declared equivalent, whose arguments pass the step's matchers
   (left-out arguments take the schema default); a failed call can be retried;
2. a step that uses an earlier step's result (``after``, ``fromResult``) is called in a later
   model round than that result, and carries the value taken from it (a value the prompt also
   gives does not show it was taken from the result; the round does);
3. the calls that did the steps are still in effect at the end: no later call undid or changed
   what they set (a second ``setBasemap``, ``stopOrbit``, ``highlight`` clear, removing the
   entity, ``clearAll``);
4. no extra object made by a step's tool is left in the scene (a second, wrong marker), and no
   ``clearAll`` the scenario did not ask for was run;
5. where the scenario asks for an answer, the final text states each asked value.

``judge`` returns a ``Verdict`` naming every problem (``judge_record``: for a record of the
multi-turn driver); ``scenario_correct_rate`` is the share of correct verdicts. The original's
``scenarioPassRate`` (every required tool got one schema-valid call) stays as the original
defines it; this rule is tooleval's.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.records import ConversationRecord
from tooleval.suites.cesium.effects import Effect, effect_of
from tooleval.suites.cesium.matchers import Results, dig, replacement_keeps
from tooleval.suites.cesium.scenarios import Scenario, Step
from tooleval.suites.cesium.transcript import IndexedCall, ScenarioTranscript, from_run
from tooleval.suites.cesium.workflow import step_mismatches

CREATED_PREFIXES = ("entity:", "layer:", "measure:", "batch:")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_DMS = re.compile(  # 121°29′25″ (NFKC turns ″ into ′′)
    r"(\d+(?:\.\d+)?)\s*°\s*(?:(\d+(?:\.\d+)?)\s*['′’]\s*"
    r"(?:(\d+(?:\.\d+)?)\s*(?:[\"″”]|′′|''))?)?"
)


@dataclass(frozen=True)
class StepCheck:
    tool: str
    status: str  # matched | missing | failed | value_mismatch | too_early | out_of_order
    #              | undone | not_checked
    round: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    scenario_id: str
    correct: bool
    steps: tuple[StepCheck, ...]
    problems: tuple[str, ...]  # "<code>: <detail>", empty when correct

    def to_json(self) -> dict[str, object]:
        return {
            "correct": self.correct,
            "steps": [
                {"tool": s.tool, "status": s.status, "round": s.round, "detail": s.detail}
                for s in self.steps
            ],
            "problems": list(self.problems),
        }


@dataclass(frozen=True)
class _Call:
    at: IndexedCall
    effect: Effect

    @property
    def ok(self) -> bool:
        """Schema-valid, sent, and accepted by the simulator."""
        return self.at.call.valid and self.at.call.result.get("success") is True


def _calls(transcript: ScenarioTranscript) -> list[_Call]:
    return [
        _Call(c, effect_of(c.call.name, c.call.arguments, c.call.result, c.index))
        for c in transcript.calls()
    ]


def _merged(call: _Call, later: Sequence[_Call]) -> tuple[dict[str, Any], str | None]:
    """The call's arguments with every later ``merge`` on its target applied (``updateEntity``
    after ``addMarker``, a second ``setSceneOptions``), and the last such call."""
    args, last = dict(call.at.call.arguments), None
    for other in later:
        if other.effect.mode == "merge" and other.effect.target == call.effect.target:
            args.update(other.effect.values)
            last = f"{other.at.call.name} in round {other.at.round}"
    return args, last


def _replaced_or_removed(
    call: _Call, later: Sequence[_Call], step: Step, earlier: Results
) -> str | None:
    """The first later call that removed the call's target or set it to something else."""
    target = call.effect.target
    for other in later:
        effect, name = other.effect, other.at.call.name
        replaced = effect.target == target and effect.mode == "set"
        if effect.removes(target or "") or (
            replaced
            and not replacement_keeps(name, effect.values, step.args, earlier, name in step.tools)
        ):
            return f"{name} in round {other.at.round}"
    return None


# Statuses from best to worst: the diagnosis of a step reports its best candidate's status.
_RANK = ("matched", "undone", "out_of_order", "too_early", "value_mismatch", "failed", "missing")


def _undone(call: _Call, later: Sequence[_Call], step: Step, earlier: Results) -> str | None:
    """Why what ``call`` did no longer holds at the end of the run, or None."""
    if call.effect.target is None:
        return None
    merged, merger = _merged(call, later)
    if merger and (
        step_mismatches(step, call.at.call.name, merged, earlier)
        or merged.get("show") is False
        or merged.get("visible") is False
    ):
        return merger
    return _replaced_or_removed(call, later, step, earlier)


def _check(
    scenario: Scenario, number: int, call: _Call, chosen: Sequence[_Call], calls: Sequence[_Call]
) -> StepCheck:
    """How well ``call`` does step ``number`` given the calls ``chosen`` for earlier steps."""
    step = scenario.steps[number]
    at = call.at
    if at.call.name not in step.tools or any(c is call for c in chosen):
        return StepCheck(step.tool, "missing", None, "no call")
    where = f"{at.call.name} in round {at.round}"
    if not call.ok:
        error = at.call.result.get("error") or at.call.result.get("message")
        return StepCheck(step.tool, "failed", at.round, f"{where} failed: {error}")
    earlier = [c.at.call.result for c in chosen]
    later = [c for c in calls if c.at.index > at.index]
    wrong = step_mismatches(step, at.call.name, at.call.arguments, earlier)
    fixed = _merged(call, later)[1] is not None and not _undone(call, later, step, earlier)
    if wrong and not fixed:
        return StepCheck(step.tool, "value_mismatch", at.round, f"{where}: {', '.join(wrong)}")
    for need in step.after:
        source = chosen[need].at
        if at.round <= source.round:
            detail = f"{where}, the {source.call.name} result it needs came in round {source.round}"
            return StepCheck(step.tool, "too_early", at.round, detail)
    if scenario.ordered and number > 0 and at.index <= chosen[number - 1].at.index:
        return StepCheck(step.tool, "out_of_order", at.round, f"{where} before the previous step")
    undone = _undone(call, later, step, earlier)
    if undone is not None:
        return StepCheck(step.tool, "undone", at.round, f"{where} was undone by {undone}")
    return StepCheck(step.tool, "matched", at.round)


def _assign(scenario: Scenario, calls: Sequence[_Call]) -> tuple[list[_Call], bool]:
    """Calls doing the steps in order (first fit, backtracking); partial when impossible."""
    best: list[_Call] = []

    def search(chosen: list[_Call]) -> list[_Call] | None:
        nonlocal best
        if len(chosen) > len(best):
            best = list(chosen)
        if len(chosen) == len(scenario.steps):
            return chosen
        for call in calls:
            if _check(scenario, len(chosen), call, chosen, calls).status == "matched":
                found = search([*chosen, call])
                if found is not None:
                    return found
        return None

    found = search([])
    return (found, True) if found is not None else (best, False)


def _step_checks(
    scenario: Scenario, calls: Sequence[_Call], chosen: Sequence[_Call]
) -> list[StepCheck]:
    pairs = zip(scenario.steps, chosen, strict=False)
    checks = [StepCheck(step.tool, "matched", call.at.round) for step, call in pairs]
    if len(chosen) < len(scenario.steps):
        number = len(chosen)
        tried = [_check(scenario, number, c, chosen, calls) for c in calls]
        missing = StepCheck(scenario.steps[number].tool, "missing", None, "no call of this tool")
        checks.append(min(tried, key=lambda c: _RANK.index(c.status), default=missing))
        checks += [StepCheck(s.tool, "not_checked") for s in scenario.steps[number + 1 :]]
    return checks


def _leftovers(scenario: Scenario, calls: Sequence[_Call], chosen: Sequence[_Call]) -> list[str]:
    """Unrequested clearAll; and, once every step is done (``chosen`` complete), extra objects
    a step's tool made that are still in the scene."""
    step_tools = {t for s in scenario.steps for t in s.tools}
    problems: list[str] = []
    for call in calls:
        name, target = call.at.call.name, call.effect.target
        if name == "clearAll" and call.ok and name not in step_tools:
            problems.append(f"destructive: clearAll in round {call.at.round} was not asked for")
        done = len(chosen) == len(scenario.steps)
        if not done or any(c is call for c in chosen) or name not in step_tools or not target:
            continue
        if target.startswith(CREATED_PREFIXES) and not any(
            later.effect.removes(target) for later in calls if later.at.index > call.at.index
        ):
            problems.append(f"extra_object: {name} in round {call.at.round} left {target}")
    return problems


def _numbers(text: str) -> list[float]:
    """Every number in the text, unsigned (hemisphere letters carry the sign), degrees-minutes-
    seconds (121°29′25″) also as decimal degrees."""
    text = unicodedata.normalize("NFKC", text)
    found = [abs(float(n)) for n in _NUMBER.findall(text)]
    for degrees, minutes, seconds in _DMS.findall(text):
        found.append(float(degrees) + float(minutes or 0) / 60 + float(seconds or 0) / 3600)
    return found


def _answer_problems(transcript: ScenarioTranscript, chosen: Sequence[_Call]) -> list[str]:
    wanted = transcript.scenario.answer
    if not wanted:
        return []
    text = (transcript.final_text or "").strip()
    if not text:
        return ["answer_missing: the scenario asks for an answer and there is no final text"]
    stated = _numbers(text)
    problems: list[str] = []
    for value in wanted:
        if value.step >= len(chosen):
            continue  # the step itself failed and is reported
        target = dig(chosen[value.step].at.call.result, value.path)
        if not isinstance(target, int | float) or not any(
            math.isclose(n, abs(target), abs_tol=value.tol) for n in stated
        ):
            problems.append(f"answer_wrong: the final text does not state {value.path} {target}")
    return problems


def judge(transcript: ScenarioTranscript) -> Verdict:
    scenario = transcript.scenario
    calls = _calls(transcript)
    chosen, complete = _assign(scenario, calls)
    steps = _step_checks(scenario, calls, chosen)
    problems = [
        f"{check.status}: step {number} ({check.tool}): {check.detail}"
        for number, check in enumerate(steps, start=1)
        if check.status not in ("matched", "not_checked")
    ]
    problems += _leftovers(scenario, calls, chosen)
    problems += _answer_problems(transcript, chosen) if complete else []
    return Verdict(scenario.id, complete and not problems, tuple(steps), tuple(problems))


def judge_record(scenario: Scenario, record: ConversationRecord) -> Verdict:
    """The verdict on one run of the multi-turn driver that ended with the model."""
    return judge(from_run(scenario, record))


def problem_code(problem: str) -> str:
    """``"value_mismatch: step 1 …"`` -> ``value_mismatch``."""
    return problem.split(":", 1)[0]


def scenario_correct_rate(verdicts: Sequence[Verdict]) -> float | None:
    """Share of correct runs; None (null) when no run was judged."""
    return sum(v.correct for v in verdicts) / len(verdicts) if verdicts else None


def problem_counts(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many judged runs showed each problem code (a run counts once per code)."""
    codes = Counter(code for v in verdicts for code in {problem_code(p) for p in v.problems})
    return dict(sorted(codes.items()))
