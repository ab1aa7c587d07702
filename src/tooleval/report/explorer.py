"""Explorer rows of a single-call run, and the helpers every row builder shares.

``run_rows`` is the one adapter from a single-call run to explorer rows. It reads each item
by the fields of ``tooleval-results/2`` (``kind: single_call``; older files arrive upgraded) as
the results file has them (``RunData.item_json``), so optional fields appear when a file has
them and are left out when it does not (``format_ok``, ``exec_match``, an item-level
``extractor``). A planned item without a record (a run that stopped early) becomes a row with
the error class ``not_run``, so the rows behind a rate are exactly its denominator. Multi-turn
rows are built in ``conversation_rows``; the page's data in ``page_data``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.report.analysis import NOT_COVERED, classify_not_covered
from tooleval.report.loading import RunData, RunInfo
from tooleval.runner.records import ItemRecord
from tooleval.scoring import arguments_match

MAX_TEXT_CHARS = 8000
"""Longer outputs are cut in the page (the results file keeps them whole)."""
NOT_RUN = "not_run"
METRICS = ("call_match", "tool_match", "args_match", "parsed", "format_ok", "exec_match")
ITEM_LEVEL = frozenset({"format_ok", "exec_match"})
"""Outcomes an item may carry beside its score (``parsed`` at item level is the parse result)."""
Row = dict[str, Any]


def clip(text: Any) -> str | None:
    """``text`` as a string of at most MAX_TEXT_CHARS, with a note on what was cut."""
    if text is None:
        return None
    shown: str = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if len(shown) <= MAX_TEXT_CHARS:
        return shown
    cut = len(shown) - MAX_TEXT_CHARS
    return f"{shown[:MAX_TEXT_CHARS]}\n… [{cut:,} more characters in the results file]"


def outcome(raw: Mapping[str, Any], score: Any) -> dict[str, int]:
    """The 0/1 outcomes an item has: its ``score`` (single call: the item's score; multi-turn:
    the first turn's, ``first_call``) and the item-level ones (``format_ok``, ``exec_match``)."""
    scores: Mapping[str, Any] = score if isinstance(score, dict) else {}
    found: dict[str, int] = {}
    for name in METRICS:
        value = raw[name] if name in ITEM_LEVEL and raw.get(name) is not None else scores.get(name)
        if value is not None:
            found[name] = int(bool(value))
    return found


def token_counts(usage: Any) -> list[int | None]:
    """``[input, output]`` tokens; a conversation's list of usages (one per turn) is summed."""
    usages = usage if isinstance(usage, list) else [usage]
    totals: list[int | None] = [None, None]
    for entry in (u for u in usages if isinstance(u, dict)):
        for index, key in enumerate(("input_tokens", "output_tokens")):
            value = entry.get(key)
            if isinstance(value, int):
                totals[index] = (totals[index] or 0) + value
    return totals


def seconds(value: Any) -> float | None:
    """A latency in seconds, or None when the file has none."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def call_json(call: Any) -> dict[str, Any] | None:
    if not isinstance(call, dict) or "name" not in call:
        return None
    return {"name": str(call["name"]), "arguments": call.get("arguments")}


def differing_arguments(task: Task, call: ToolCall) -> list[str]:
    """Argument names where ``call`` fails the scorer's rule, one argument at a time."""
    names = set(task.gold.arguments) | set(call.arguments) | set(task.alternatives)
    wrong = []
    for name in sorted(names):
        gold = {name: task.gold.arguments[name]} if name in task.gold.arguments else {}
        alternatives = {name: task.alternatives[name]} if name in task.alternatives else {}
        alone = replace(task, gold=ToolCall(task.gold.name, gold), alternatives=alternatives)
        given = {name: call.arguments[name]} if name in call.arguments else {}
        if not arguments_match(alone, given):
            wrong.append(name)
    return wrong


def call_diff(task: Task | None, first: dict[str, Any] | None) -> dict[str, Any] | None:
    """Which parts of the first parsed call differ from the gold call."""
    if task is None or first is None or not isinstance(first.get("arguments"), dict):
        return None
    call = ToolCall(first["name"], first["arguments"])
    return {"name": call.name.strip() != task.gold.name, "args": differing_arguments(task, call)}


def parsed_fields(raw: Mapping[str, Any], task: Task | None) -> Row:
    found = raw.get("parsed")
    parsed: Mapping[str, Any] = found if isinstance(found, dict) else {}
    calls = [c for c in (call_json(c) for c in parsed.get("calls") or []) if c]
    row: Row = {
        "calls": calls,
        "reason": parsed.get("reason"),
        "extractor": raw.get("extractor") or parsed.get("extractor"),
        "native": [call_json(c) for c in raw.get("native_calls") or [] if call_json(c)],
    }
    diff = call_diff(task, calls[0] if calls else None)
    if diff is not None:
        row["diff"] = diff
    return row


def item_row(raw: Mapping[str, Any], record: ItemRecord | None, run: RunData) -> Row:
    """One explorer row from one item of a results file."""
    task = run.tasks.get(str(raw.get("task_id")))
    row: Row = {
        "id": str(raw.get("task_id")),
        "cat": str(raw.get("category")),
        "rep": int(raw.get("repeat") or 0),
        "out": outcome(raw, raw.get("score")),
        "err": raw.get("error_class"),
        "err_msg": clip(raw.get("error_message")),
        "lat": seconds(raw.get("latency_s")),
        "tok": token_counts(raw.get("usage")),
        "raw": clip(raw.get("raw_output")),
        "finish": raw.get("finish_reason"),
        "attempts": raw.get("attempts"),
        **parsed_fields(raw, task),
    }
    if isinstance(raw.get("question"), str) and task is None:
        row["q"] = raw["question"]
    if record is not None and record.category == NOT_COVERED and record.answered:
        row["beh"] = classify_not_covered(record, run.gold.get(record.task_id))
    return row


def missing_rows(
    run: RunInfo, tasks: Mapping[str, Any], present: set[tuple[str, int]]
) -> list[Row]:
    """A ``not_run`` row for every planned item without a record (needs the suite's tasks)."""
    repeats = run.planned // len(tasks) if tasks else 0
    return [
        {"id": task.id, "cat": task.category, "rep": repeat, "out": {}, "err": NOT_RUN}
        for repeat in range(repeats)
        for task in tasks.values()
        if (task.id, repeat) not in present
    ]


def run_rows(run: RunData) -> list[Row]:
    """The adapter: every planned item of ``run`` as an explorer row (unsorted: file order)."""
    raws: Sequence[Mapping[str, Any]] = run.item_json or [i.to_json() for i in run.items]
    records: list[ItemRecord | None] = list(run.items)
    if len(records) != len(raws):
        records = [None] * len(raws)
    by_key: dict[tuple[str, int], Row] = {}
    for raw, record in zip(raws, records, strict=True):
        row = item_row(raw, record, run)
        by_key[(row["id"], row["rep"])] = row  # a repeated key: the last wins, as in the rates
    return [*by_key.values(), *missing_rows(run, run.tasks, set(by_key))]
