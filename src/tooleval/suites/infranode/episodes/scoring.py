"""Per-category episode outcomes (pure functions over the executed calls and the answer).

- every category: the episode needs a call that the API answers as it answers the gold call
  (``same_answer``; for not_covered that includes the asked city and data type), then a final
  answer that passes the grounding check (``grounding``) against what the model was shown;
- ``two_step``: the board the item asks for (``target_station.board``: departures or arrivals)
  must be asked for the target station — any EVA number of the target's entry in a fetched
  station list (a station with several EVA numbers has one board) — after a station list was
  fetched, or directly for the target's own EVA number (a model that knows it gets exactly what
  was asked, as in single-call scoring). An earlier board of another station or direction that
  the model then corrects is a wasted call, not a failure. Otherwise ``wrong_order`` (no list
  before the board), ``hallucinated_eva`` (an EVA in no fetched list), ``wrong_station``
  (another station of the list), ``wrong_board`` (the target's other board: arrivals for a
  question about departures or the reverse), or ``incomplete`` (the list but no board);
- ``not_covered``: the answer must report the gap for the asked city and data type
  (``gaps``) and claim nothing the results do not hold (else ``invented_data``);
- ``compare_multi``: one ``compare`` call, not one call per city (``per_city_calls``), and a
  supported fact for every compared city.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode.api import ApiResponse, resolve_slug
from tooleval.suites.infranode.episodes.facts import FactBase, Shown, fact_base
from tooleval.suites.infranode.episodes.gaps import gap_reported, phenomenon_claims
from tooleval.suites.infranode.episodes.grounding import check_answer
from tooleval.suites.infranode.episodes.grounding_types import Claim, Grounding
from tooleval.suites.infranode.episodes.records import CheckedClaim, EpisodeScore, ExecutedCall
from tooleval.suites.infranode.execmatch import same_answer

BOARDS = {"departures": "station_board_departures", "arrivals": "station_board_arrivals"}
BOARD_TOOLS = frozenset(BOARDS.values())
CALL_BUDGET = {"two_step": 2, "not_covered": 2}
DEFAULT_RESULT_CHARS = 4000


def _stations(call: ExecutedCall) -> list[dict[str, Any]]:
    if call.name != "stations" or not call.valid:
        return []
    data = call.body.get("data") or {}
    rows = (data.get("payload") or {}).get("stations") if isinstance(data, dict) else None
    return [row for row in rows or [] if isinstance(row, dict)]


def fetched_evas(calls: Sequence[ExecutedCall]) -> set[str]:
    """EVA numbers of every station in the successful ``stations`` answers."""
    evas: set[str] = set()
    for call in calls:
        for station in _stations(call):
            evas.add(str(station.get("eva")))
            evas.update(str(e) for e in station.get("evas") or [])
    return evas


def target_evas(task: Task, calls: Sequence[ExecutedCall]) -> set[str]:
    """The target's EVA number and every other EVA of its entry in a fetched list."""
    target = _primary_eva(task)
    evas = {target}
    for call in calls:
        for station in _stations(call):
            own = {str(station.get("eva")), *(str(e) for e in station.get("evas") or [])}
            if target in own:
                evas |= own
    return evas


def asked_board(task: Task) -> str:
    """The board tool a two_step item asks for, from its ``provenance.target_station.board``."""
    target = task.provenance.get("target_station")
    board = target.get("board") if isinstance(target, dict) else None
    if not isinstance(board, str) or board not in BOARDS:
        raise ValueError(
            f"task {task.id}: provenance.target_station.board must be one of "
            f"{', '.join(sorted(BOARDS))}, not {board!r}"
        )
    return BOARDS[board]


def _board_eva(call: ExecutedCall) -> str:
    return str(call.arguments.get("eva", "")).strip()


def _primary_eva(task: Task) -> str:
    return str((task.provenance.get("target_station") or {}).get("eva", ""))


def _direct_board(task: Task, call: ExecutedCall) -> bool:
    """The asked board called with the target's own EVA number: right without a list."""
    return call.name == asked_board(task) and _board_eva(call) == _primary_eva(task)


def _asked_board_of_target(task: Task, call: ExecutedCall, targets: set[str]) -> bool:
    return call.name == asked_board(task) and _board_eva(call) in targets


def two_step_outcome(task: Task, calls: Sequence[ExecutedCall]) -> str | None:
    """The failure class of a two_step episode, or None when the chain is right. The board
    judged is the first that shows what was asked, else the first of the target, else the
    first at all."""
    targets = target_evas(task, calls)
    boards = [i for i, c in enumerate(calls) if c.name in BOARD_TOOLS]
    listed = any(c.name == "stations" and c.valid for c in calls)
    if not boards:
        return "incomplete" if listed else "wrong_call"
    index = next(
        (i for i in boards if _asked_board_of_target(task, calls[i], targets)),
        next((i for i in boards if _board_eva(calls[i]) in targets), boards[0]),
    )
    if _direct_board(task, calls[index]):
        return None
    before = calls[:index]
    if not any(c.name == "stations" and c.valid for c in before):
        return "wrong_order"
    if _board_eva(calls[index]) not in fetched_evas(before):
        return "hallucinated_eva"
    if _board_eva(calls[index]) not in targets:
        return "wrong_station"
    return None if calls[index].name == asked_board(task) else "wrong_board"


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


def _answer(call: ExecutedCall) -> ApiResponse:
    return ApiResponse(call.status or 0, dict(call.body))


def answers_like_gold(task: Task, call: ExecutedCall, gold: ApiResponse) -> bool:
    return call.valid and same_answer(
        task, ToolCall(call.name, call.arguments), _answer(call), gold
    )


def gold_reached(task: Task, calls: Sequence[ExecutedCall], gold: ApiResponse) -> bool:
    return any(answers_like_gold(task, c, gold) for c in calls)


def covered_cities(calls: Sequence[ExecutedCall]) -> list[str]:
    for call in calls:
        if call.source_status == "not_covered":
            meta: Any = call.body.get("meta") or {}
            return [str(c) for c in meta.get("covered_cities") or []]
    return []


def category_outcome(task: Task, calls: Sequence[ExecutedCall], gold: ApiResponse) -> str | None:
    """The call-side failure class, or None when the calls did what the task needs."""
    if not calls:
        return "no_call"
    if task.category == "two_step":
        return two_step_outcome(task, calls)
    if task.category == "compare_multi" and per_city_calls(task, calls) >= 2:
        return "per_city_calls"
    return None if gold_reached(task, calls, gold) else "wrong_call"


def gold_flags(task: Task, calls: Sequence[ExecutedCall], gold: ApiResponse) -> list[bool]:
    """Per call: did it fetch what the task asks about (the gold answer; two_step: the
    target's asked board)? Its facts are the key facts."""
    if task.category == "two_step":
        targets = target_evas(task, calls)
        return [c.valid and _asked_board_of_target(task, c, targets) for c in calls]
    return [answers_like_gold(task, c, gold) for c in calls]


def shown_facts(
    task: Task,
    calls: Sequence[ExecutedCall],
    gold: ApiResponse,
    max_result_chars: int = DEFAULT_RESULT_CHARS,
) -> FactBase:
    """The facts the valid calls showed the model (under the result cap); those of the calls
    that fetched what the task asks about are key facts."""
    flags = gold_flags(task, calls, gold)
    shown = [shown_call(c, flag) for c, flag in zip(calls, flags, strict=True) if c.valid]
    return fact_base(shown, max_result_chars)


def shown_call(call: ExecutedCall, gold: bool) -> Shown:
    """What one valid call showed the model, with the city it asked about."""
    return Shown(call.body, gold, _city_of(call))


def checked_claim(claim: Claim, base: FactBase) -> CheckedClaim:
    """A claim as the results file records it: the fact it was checked against, by entity
    (the city, else the item's first name), field, value and unit."""
    fact = claim.fact
    if fact is None:
        return CheckedClaim(claim.text, claim.kind, claim.verdict, key=claim.key)
    record = base.records[fact.record]
    entity = record.city if record.index is None else (record.names or (record.city,))[0]
    return CheckedClaim(
        claim.text, claim.kind, claim.verdict, entity, fact.field, fact.value, fact.unit, claim.key
    )


def not_covered_outcome(
    task: Task, calls: Sequence[ExecutedCall], answer: str, grounding: Grounding
) -> str | None:
    city = str(task.gold.arguments.get("slug", ""))
    resource = str(task.gold.arguments.get("resource", ""))
    covered = covered_cities(calls)
    if (
        grounding.contradicted
        or grounding.unsupported
        or phenomenon_claims(answer, resource, covered)
    ):
        return "invented_data"
    return None if gap_reported(answer, city, resource, covered) else "gap_not_reported"


def answer_outcome(
    task: Task, calls: Sequence[ExecutedCall], answer: str, grounding: Grounding
) -> str | None:
    if not answer.strip():
        return "no_answer"
    if task.category == "not_covered":
        return not_covered_outcome(task, calls, answer, grounding)
    if grounding.contradicted:
        return "contradicted"
    return None if grounding.grounded else "ungrounded"


def score_episode(
    task: Task,
    calls: Sequence[ExecutedCall],
    answer: str | None,
    gold: ApiResponse,
    steps: int,
    max_result_chars: int = DEFAULT_RESULT_CHARS,
) -> EpisodeScore:
    """Outcome class and counts for one finished episode; ``gold`` is the gold call's answer
    and ``max_result_chars`` the cap the results were shown under."""
    base = shown_facts(task, calls, gold, max_result_chars)
    grounding = check_answer(answer or "", base, task.question)
    outcome = category_outcome(task, calls, gold)
    if outcome is None:
        outcome = answer_outcome(task, calls, answer or "", grounding)
    valid = sum(1 for c in calls if c.valid)
    decided = grounding.decided or task.category == "not_covered" or outcome != "ungrounded"
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
        facts_contradicted=grounding.contradicted,
        answer_decided=int(decided),
        claims=tuple(checked_claim(c, base) for c in grounding.claims),
    )
