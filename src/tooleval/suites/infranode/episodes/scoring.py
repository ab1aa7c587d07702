"""Per-category episode outcomes (pure functions over the executed calls and the answer).

- every category: the episode needs a call that the API answers as it answers the gold call
  (``same_answer``), then a final answer whose numbers are all found in the results;
- ``two_step``: the station list must be fetched (successfully) before the first board call,
  and that board call must ask for the target station's EVA number taken from a fetched list
  (otherwise ``wrong_order``, ``hallucinated_eva`` — an EVA in no fetched list —,
  ``wrong_station`` — another station of the list —, or ``incomplete``: no board call);
- ``not_covered``: once the API said ``not_covered``, the answer must report the gap (a gap
  phrase) or point to ``covered_cities`` (name one, or ask one of them), and state no number
  the results do not hold (else ``invented_data``); silence about the gap is
  ``gap_not_reported``;
- ``compare_multi``: one ``compare`` call, not one call per city (two or more single-city
  calls for the asked cities is ``per_city_calls``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode.api import ApiResponse, resolve_slug
from tooleval.suites.infranode.episodes.grounding import check_answer, evidence
from tooleval.suites.infranode.episodes.records import EpisodeScore, ExecutedCall
from tooleval.suites.infranode.execmatch import same_answer

BOARD_TOOLS = frozenset({"station_board_departures", "station_board_arrivals"})
CALL_BUDGET = {"two_step": 2, "not_covered": 2}
GAP_PHRASES = re.compile(
    r"nicht (verfügbar|vorhanden|abgedeckt|erfasst|enthalten|angeboten)|keine (daten|angaben|"
    r"informationen|werte)|liegen? (mir )?(leider )?keine|gibt es (leider )?keine|"
    r"nicht abgedeckt|no data|not covered|not available",
    re.IGNORECASE,
)


def fetched_evas(calls: Sequence[ExecutedCall]) -> set[str]:
    """EVA numbers of every station in the successful ``stations`` answers."""
    evas: set[str] = set()
    for call in calls:
        if call.name != "stations" or not call.valid:
            continue
        data = call.body.get("data") or {}
        for station in (data.get("payload") or {}).get("stations") or []:
            evas.add(str(station.get("eva")))
            evas.update(str(e) for e in station.get("evas") or [])
    return evas


def two_step_outcome(task: Task, calls: Sequence[ExecutedCall]) -> str | None:
    """The failure class of a two_step episode, or None when the chain is right."""
    target = str((task.provenance.get("target_station") or {}).get("eva", ""))
    for index, call in enumerate(calls):
        if call.name not in BOARD_TOOLS:
            continue
        before = calls[:index]
        if not any(c.name == "stations" and c.valid for c in before):
            return "wrong_order"
        eva = str(call.arguments.get("eva", "")).strip()
        if eva not in fetched_evas(before):
            return "hallucinated_eva"
        return None if eva == target else "wrong_station"
    return "incomplete" if any(c.name == "stations" and c.valid for c in calls) else "wrong_call"


def _city_of(call: ExecutedCall) -> str | None:
    slug = call.arguments.get("slug")
    return resolve_slug(slug) if isinstance(slug, str) else None


def per_city_calls(task: Task, calls: Sequence[ExecutedCall]) -> int:
    """Calls that ask one of the compared cities alone (a single-city tool or compare)."""
    wanted = set(task.gold.arguments.get("cities") or [])
    count = 0
    for call in calls:
        cities = call.arguments.get("cities")
        alone = isinstance(cities, list) and len(cities) == 1
        if (call.name == "compare" and alone) or (
            call.name != "compare" and _city_of(call) in wanted
        ):
            count += 1
    return count


def gold_reached(task: Task, calls: Sequence[ExecutedCall], gold: ApiResponse) -> bool:
    return any(
        c.valid and same_answer(task, ToolCall(c.name, c.arguments), _answer(c), gold)
        for c in calls
    )


def _answer(call: ExecutedCall) -> ApiResponse:
    return ApiResponse(call.status or 0, dict(call.body))


def covered_cities(calls: Sequence[ExecutedCall]) -> list[str]:
    for call in calls:
        if call.source_status == "not_covered":
            meta: Any = call.body.get("meta") or {}
            return [str(c) for c in meta.get("covered_cities") or []]
    return []


def not_covered_outcome(task: Task, calls: Sequence[ExecutedCall], answer: str) -> str | None:
    if not any(c.source_status == "not_covered" for c in calls):
        return "wrong_call"
    if not answer.strip():
        return None  # scored as no_answer
    covered = covered_cities(calls)
    asked_covered = any(_city_of(c) in covered and c.valid for c in calls)
    names_covered = any(city.casefold() in answer.casefold() for city in covered)
    if GAP_PHRASES.search(answer) or names_covered or asked_covered:
        return None
    return "gap_not_reported"


def category_outcome(
    task: Task, calls: Sequence[ExecutedCall], answer: str | None, gold: ApiResponse
) -> str | None:
    """The category-specific failure class, or None when the calls did what the task needs."""
    if not calls:
        return "no_call"
    if task.category == "two_step":
        return two_step_outcome(task, calls)
    if task.category == "compare_multi" and per_city_calls(task, calls) >= 2:
        return "per_city_calls"
    if task.category == "not_covered":
        return not_covered_outcome(task, calls, answer or "")
    return None if gold_reached(task, calls, gold) else "wrong_call"


def score_episode(
    task: Task, calls: Sequence[ExecutedCall], answer: str | None, gold: ApiResponse, steps: int
) -> EpisodeScore:
    """Outcome class and counts for one finished episode; ``gold`` is the gold call's answer."""
    found = evidence(c.body for c in calls if c.valid)
    grounding = check_answer(answer or "", found, task.question)
    outcome = category_outcome(task, calls, answer, gold)
    invented = task.category == "not_covered" and grounding.unsupported > 0
    if outcome in (None, "gap_not_reported") and invented:
        outcome = "invented_data"
    if outcome is None and not (answer or "").strip():
        outcome = "no_answer"
    if outcome is None and grounding.unsupported:
        outcome = "ungrounded"
    if outcome is None and task.category != "not_covered" and not grounding.grounded:
        outcome = "ungrounded"
    valid = sum(1 for c in calls if c.valid)
    return EpisodeScore(
        outcome=outcome or "success",
        success=int(outcome is None),
        steps=steps,
        calls=len(calls),
        invalid_calls=len(calls) - valid,
        wasted_calls=max(0, valid - CALL_BUDGET.get(task.category, 1)),
        facts_supported=grounding.supported,
        facts_unsupported=grounding.unsupported,
        answer_grounded=int(grounding.grounded),
    )
