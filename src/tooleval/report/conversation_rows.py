"""Explorer rows of a multi-turn run (InfraNode episodes, Cesium scenarios): one per
conversation, with the whole transcript.

``conversation_rows`` reads each item by the fields of ``tooleval-results/2`` (``kind:
multi_turn``; older episode and Cesium files arrive upgraded): ``ending``, ``outcome`` (the
suite's verdict class), ``score``, ``first_call``, ``final_answer``, ``rounds``, ``requests``,
``calls``, ``transcript``, ``error_class``, ``usage``. A conversation that was not scored
(``provider_error``, ``budget_exhausted``, ``blocked``) is a row whose error is its error
class, or its ending where it has none, so the answered rows are exactly the scored ones
behind a run's ``success``. The suite's verdict details are kept as they are named in the
file: the verdict's check of each step (``score.step_checks``, or ``steps`` under
``verdict``), the workflow steps (``score.steps``), the kind of each call
(``score.call_kinds``), every problem code a verdict lists (``problems``, also under
``verdict``), the final-answer check claim by claim (``score.claims``, InfraNode episodes) and
a judge's verdict on the final answer (``judge``: verdict and reason).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tooleval.records import Task
from tooleval.report.explorer import (
    NOT_RUN,
    Row,
    call_diff,
    call_json,
    clip,
    missing_rows,
    outcome,
    seconds,
    token_counts,
)
from tooleval.report.loading import ConversationRun

Intern = Callable[[str], int]
"""Stores a text once for the whole page; returns its index."""
SHARED_TEXT_CHARS = 200
"""System prompts and message contents this long are stored once per page: runs that make the
same call get the same tool result, and every conversation of a suite starts alike."""
SHOWN_ELSEWHERE = frozenset(
    {"outcome", "success", "passed", "call_kinds", "problems", "verdict", "step_checks", "claims"}
)
"""Score fields the row shows in their own place (a list of ``steps`` too)."""
CALL_KEYS = ("index", "round", "call_id", "name", "arguments", "valid", "error", "status")


def row_error(raw: Mapping[str, Any]) -> str | None:
    """The error class of an unscored conversation, or its ending when it has none."""
    if raw.get("error_class"):
        return str(raw["error_class"])
    return None if raw.get("score") else str(raw.get("ending") or NOT_RUN)


def text_field(text: str | None, intern: Intern, always: bool = False) -> Row:
    """``{"content": text}``, or ``{"text": index}`` for a text stored once for the page."""
    if text is not None and (always or len(text) >= SHARED_TEXT_CHARS):
        return {"text": intern(text)}
    return {"content": text}


def message_json(message: Any, intern: Intern) -> Row | None:
    """A transcript message; its content by reference where it is long or a system prompt."""
    if not isinstance(message, dict):
        return None
    role, content = str(message.get("role", "?")), message.get("content")
    calls = [c for c in (call_json(c) for c in message.get("tool_calls") or []) if c]
    out: Row = {"role": role, **({"calls": calls} if calls else {})}
    out.update(text_field(clip(content), intern, always=role == "system"))
    for key in ("name", "tool_call_id"):
        if message.get(key):
            out[key] = str(message[key])
    return out


def executed_calls(raw: Mapping[str, Any], kinds: list[Any]) -> list[Row]:
    """The executed calls (what each returned is in the transcript), with the suite's kind
    of each (``score.call_kinds``; a tooleval 0.1 Cesium file has it on the call, and its
    validation ``issues`` where this format has ``error``)."""
    out = []
    for n, call in enumerate(c for c in raw.get("calls") or [] if isinstance(c, dict)):
        row: Row = {key: call.get(key) for key in CALL_KEYS}
        row["error"] = row["error"] or "; ".join(map(str, call.get("issues") or [])) or None
        if call.get("source_status") is not None:
            row["source_status"] = call["source_status"]
        kind = kinds[n] if n < len(kinds) else call.get("kind")
        if kind is not None:
            row["kind"] = str(kind)
        out.append(row)
    return out


def problem_codes(score: Mapping[str, Any]) -> list[str]:
    """Every problem a verdict names (``problems`` of the score or of its ``verdict``)."""
    verdict = score.get("verdict")
    found = [*(score.get("problems") or [])]
    if isinstance(verdict, dict):
        found += verdict.get("problems") or []
    return [str(p) for p in found]


def dicts(value: Any) -> list[Row]:
    return [dict(v) for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def verdict_fields(score: Any) -> Row:
    """The suite's verdict: its step checks (``step_checks``, or a ``verdict``'s ``steps``),
    the workflow steps (a list of ``steps``), every problem code, the other score fields."""
    if not isinstance(score, dict):
        return {}
    verdict = score.get("verdict")
    checks = score.get("step_checks")
    if checks is None and isinstance(verdict, dict):
        checks = verdict.get("steps")
    row: Row = {"checks": dicts(checks), "steps": dicts(score.get("steps"))}
    row["claims"] = dicts(score.get("claims"))
    row["problems"] = problem_codes(score)
    row["score"] = {
        k: v
        for k, v in score.items()
        if k not in SHOWN_ELSEWHERE and not (k == "steps" and isinstance(v, list))
    }
    return {key: value for key, value in row.items() if value}


def judge_fields(raw: Mapping[str, Any]) -> Row:
    """A judge's verdict on the final answer (``judge``: verdict, reason), where one was asked;
    its prompt and raw reply stay in the results file."""
    judge = raw.get("judge")
    if not isinstance(judge, dict) or not judge.get("verdict"):
        return {}
    return {"judge": {"verdict": str(judge["verdict"]), "reason": clip(judge.get("reason"))}}


def first_turn(raw: Mapping[str, Any], task: Any) -> Row:
    """The first turn's calls, and how the first differs from the gold call (InfraNode)."""
    calls = [c for c in raw.get("calls") or [] if isinstance(c, dict) and c.get("round") == 1]
    shown = [c for c in (call_json(c) for c in calls) if c]
    if not shown:
        return {}
    row: Row = {"calls": shown}
    diff = call_diff(task if isinstance(task, Task) else None, shown[0])
    if diff is not None:
        row["diff"] = diff
    return row


def first_question(transcript: Any) -> str | None:
    """The first user message: the question, where the suite is not installed."""
    for message in transcript if isinstance(transcript, list) else []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else None
    return None


def conversation_row(raw: Mapping[str, Any], run: ConversationRun, intern: Intern) -> Row:
    """One explorer row from one conversation of a multi-turn results file."""
    score = raw.get("score")
    scores: Mapping[str, Any] = score if isinstance(score, dict) else {}
    out = outcome(raw, raw.get("first_call"))
    if scores:
        out["success"] = int(bool(scores.get("success", scores.get("passed"))))
    if "passed" in scores:  # the original harness's rule (Cesium), beside the headline
        out["passed"] = int(bool(scores["passed"]))
    task = run.tasks.get(str(raw.get("task_id")))
    found = raw.get("transcript")
    transcript: list[Any] = found if isinstance(found, list) else []
    row: Row = {
        "id": str(raw.get("task_id")),
        "cat": str(raw.get("category")),
        "rep": int(raw.get("repeat") or 0),
        "out": out,
        "err": row_error(raw),
        "err_msg": clip(raw.get("error_message")),
        "lat": seconds(raw.get("latency_s")),
        "tok": token_counts(raw.get("usage")),
        "end": str(raw.get("ending") or ""),
        "cls": str(raw.get("outcome") or raw.get("ending") or ""),
        "rounds": raw.get("rounds"),
        "requests": raw.get("requests"),
        "transcript": [m for m in (message_json(m, intern) for m in transcript) if m],
        "executed": executed_calls(raw, list(scores.get("call_kinds") or [])),
        "final": text_field(clip(raw.get("final_answer")), intern),
        **first_turn(raw, task),
        **verdict_fields(score),
        **judge_fields(raw),
    }
    if task is None:
        row["q"] = first_question(transcript) or ""
    return row


def conversation_rows(run: ConversationRun, intern: Intern) -> list[Row]:
    """Every planned conversation of ``run`` as an explorer row (file order, then gaps)."""
    by_key: dict[tuple[str, int], Row] = {}
    for raw in run.item_json:
        row = conversation_row(raw, run, intern)
        by_key[(row["id"], row["rep"])] = row  # a repeated key: the last wins
    gaps = missing_rows(run, run.tasks, set(by_key))
    return [*by_key.values(), *({**gap, "end": NOT_RUN, "cls": NOT_RUN} for gap in gaps)]
