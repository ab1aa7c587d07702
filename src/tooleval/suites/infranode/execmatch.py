"""Executable equivalence: a call that is not canonical but that the API answers exactly as it
answers the gold call (e.g. slug "München" for ``muenchen``).

Two answers are the same when both succeed (HTTP 2xx) and their bodies are equal after the
request-specific members (``VOLATILE_KEYS``) are removed and ``compare`` rows are put in city
order. An answer without data (``not_covered``, ``no_data``) says nothing about which city was
asked, so there the call must also equal the gold call once its slugs are resolved.

A task whose purpose is one entry of a list (``two_step``: the station whose EVA number the
next step needs) is answered by any call whose successful answer lists that station, as in
the scorer's stations rule, and by a direct call of the board the question asks for with the
station's EVA number whose answer is that board's answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.scoring import LISTING_PROVENANCE, ListingTarget, listing_target, score_call
from tooleval.suites.infranode.api import ApiResponse, resolve_slug
from tooleval.suites.infranode.client import Transport, execute_tool

VOLATILE_KEYS = frozenset({"correlation_id", "generated_at", "cache_status", "request_id"})


def comparable(value: Any) -> Any:
    """``value`` without volatile members; lists of per-city rows sorted by city."""
    if isinstance(value, Mapping):
        return {k: comparable(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        items = [comparable(item) for item in value]
        if items and all(isinstance(i, dict) and isinstance(i.get("city"), str) for i in items):
            items.sort(key=lambda row: row["city"])
        return items
    return value


def resolved_call(call: ToolCall) -> ToolCall:
    """The call with ``slug`` and ``cities`` resolved to canonical slugs where they resolve."""
    arguments = dict(call.arguments)
    slug = arguments.get("slug")
    if isinstance(slug, str):
        arguments["slug"] = resolve_slug(slug) or slug
    cities = arguments.get("cities")
    if isinstance(cities, list):
        arguments["cities"] = [resolve_slug(c) or c if isinstance(c, str) else c for c in cities]
    return ToolCall(call.name.strip(), arguments)


def same_answer(task: Task, call: ToolCall, answer: ApiResponse, gold_answer: ApiResponse) -> bool:
    """Whether ``answer`` (to ``call``) is the gold call's answer, as defined above."""
    if not (200 <= answer.status < 300 and 200 <= gold_answer.status < 300):
        return False
    if comparable(answer.body) != comparable(gold_answer.body):
        return False
    if answer.body.get("data") is None:
        return bool(score_call(task, resolved_call(call)).call_match)
    return True


def target_eva(task: Task) -> str | None:
    """The EVA number of the station a listing task is about, if it has one."""
    target = task.provenance.get(LISTING_PROVENANCE)
    eva = target.get("eva") if isinstance(target, Mapping) else None
    return str(eva) if eva is not None else None


def listed_evas(body: Mapping[str, Any]) -> set[str]:
    """The primary EVA numbers of a ``stations`` answer (empty for any other answer)."""
    data = body.get("data")
    payload = data.get("payload") if isinstance(data, Mapping) else None
    rows = payload.get("stations") if isinstance(payload, Mapping) else None
    if not isinstance(rows, list):
        return set()
    return {str(row.get("eva")) for row in rows if isinstance(row, Mapping)}


def lists_target(eva: str, answer: ApiResponse) -> bool:
    return 200 <= answer.status < 300 and eva in listed_evas(answer.body)


def gives_board(
    target: ListingTarget, call: ToolCall, answer: ApiResponse, transport: Transport
) -> bool:
    """Whether ``call`` is the asked board and ``answer`` is that board for the target's EVA."""
    if target.board is None or target.eva is None or call.name.strip() != target.board:
        return False
    board = execute_or_none(transport, ToolCall(target.board, {"eva": target.eva}))
    return (
        board is not None
        and board.body.get("data") is not None
        and 200 <= answer.status < 300
        and comparable(answer.body) == comparable(board.body)
    )


def execute_or_none(transport: Transport, call: ToolCall) -> ApiResponse | None:
    """The API's answer, or None when the call cannot be sent (unknown tool, missing args)."""
    try:
        return execute_tool(transport, call.name.strip(), call.arguments)
    except ValueError:
        return None


def exec_match(task: Task, call: ToolCall | None, transport: Transport) -> int:
    """1 when ``call`` executes to the same answer as the task's gold call, else 0; for a task
    about one station (two_step), 1 when the call's answer lists that station or is the asked
    board of that station.

    Executes the calls on ``transport`` (the in-process replica for reproducible numbers).
    A call with ``call_match`` 1 always has ``exec_match`` 1 (``tooleval audit`` checks it).
    """
    if call is None:
        return 0
    answer = execute_or_none(transport, call)
    eva = target_eva(task)
    if eva is not None:
        if answer is None:
            return 0
        target = listing_target(task)
        direct = target is not None and gives_board(target, call, answer, transport)
        return int(lists_target(eva, answer) or direct)
    gold_answer = execute_or_none(transport, task.gold)
    if answer is None or gold_answer is None:
        return 0
    return int(same_answer(task, call, answer, gold_answer))
