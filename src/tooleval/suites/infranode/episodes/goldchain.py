"""A task's gold calls, executed: what a correct episode fetches and what its answer must state.

Most tasks need their one gold call. ``two_step`` needs two: the gold ``stations`` call, then
the board the item asks for (``target_station.board``) of the target station. ``key_facts``
reads the key facts of those answers under a result cap, exactly as the episode scorer does.
"""

from __future__ import annotations

from collections.abc import Sequence

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode.client import Transport, body_status, execute_tool
from tooleval.suites.infranode.episodes.facts import FactBase
from tooleval.suites.infranode.episodes.records import ExecutedCall
from tooleval.suites.infranode.episodes.scoring import (
    DEFAULT_RESULT_CHARS,
    asked_board,
    shown_facts,
)


def gold_calls(task: Task) -> list[ToolCall]:
    """The calls a correct episode makes, in order."""
    calls = [task.gold]
    target = (task.provenance.get("target_station") or {}).get("eva")
    if task.category == "two_step" and target:
        calls.append(ToolCall(asked_board(task), {"eva": str(target)}))
    return calls


def execute(calls: Sequence[ToolCall], transport: Transport) -> list[ExecutedCall]:
    """The calls executed one per round, as an episode records them."""
    executed = []
    for index, call in enumerate(calls):
        answer = execute_tool(transport, call.name, call.arguments)
        valid = 200 <= answer.status < 300
        executed.append(
            ExecutedCall(
                index=index,
                name=call.name,
                arguments=call.arguments,
                result=answer.body,
                round=index + 1,
                valid=valid,
                error=None if valid else f"http_{answer.status}",
                status=answer.status,
                source_status=body_status(answer.body) if valid else None,
            )
        )
    return executed


def key_facts(task: Task, transport: Transport, max_chars: int = DEFAULT_RESULT_CHARS) -> FactBase:
    """The facts of the executed gold calls, as a correct episode shows them to the model."""
    calls = execute(gold_calls(task), transport)
    gold = execute_tool(transport, task.gold.name, task.gold.arguments)
    return shown_facts(task, calls, gold, max_chars)
