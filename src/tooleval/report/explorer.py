"""The item explorer's data: one row per planned item of a run, as plain JSON for the page.

``run_rows`` is the one adapter from a loaded run to explorer rows. It reads each item as the
results file has it (``RunData.item_json``), so optional fields appear when a file has them
and are left out when it does not: ``format_ok``, ``exec_match``, an item-level
``extractor``, and for episodes and scenarios ``transcript``, ``calls``, ``final_answer`` and
``outcome``. A planned item without a record (a run that stopped early) becomes a row with
the error class ``not_run``, so the rows behind a rate are exactly its denominator.

The page embeds the data with ``json_block``: JSON inside ``<script type="application/json">``
with ``<``, ``>`` and ``&`` escaped, so no model output can end the block or open a tag.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.report.analysis import NOT_COVERED, classify_not_covered
from tooleval.report.loading import RunData
from tooleval.runner.records import ItemRecord
from tooleval.scoring import arguments_match

DATA_FORMAT = "tooleval-explorer/1"
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


def outcome(raw: Mapping[str, Any]) -> dict[str, int | None]:
    """The 0/1 outcomes an item has; episodes score their first call under ``first_call``."""
    score = raw.get("score") if isinstance(raw.get("score"), dict) else None
    if score is None or "call_match" not in score:
        first = raw.get("first_call")
        score = first if isinstance(first, dict) else score
    found: dict[str, int | None] = {}
    for name in METRICS:
        value = (score or {}).get(name)
        if name in ITEM_LEVEL and raw.get(name) is not None:
            value = raw[name]
        if value is not None:
            found[name] = int(bool(value))
    if score is not None and "success" in score:
        found["success"] = int(bool(score["success"]))
    return found


def token_counts(usage: Any) -> list[int | None]:
    """``[input, output]`` tokens; an episode's list of usages is summed."""
    usages = usage if isinstance(usage, list) else [usage]
    totals: list[int | None] = [None, None]
    for entry in (u for u in usages if isinstance(u, dict)):
        for index, key in enumerate(("input_tokens", "output_tokens")):
            value = entry.get(key)
            if isinstance(value, int):
                totals[index] = (totals[index] or 0) + value
    return totals


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


def message_json(message: Any) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        return None
    calls = [call_json(c) for c in message.get("tool_calls") or []]
    return {
        "role": str(message.get("role", "?")),
        "content": clip(message.get("content")),
        "calls": [c for c in calls if c],
        "name": message.get("name"),
    }


def episode_fields(raw: Mapping[str, Any]) -> Row:
    """Transcript, executed calls, final answer and outcome, where the item has them."""
    row: Row = {}
    if isinstance(raw.get("transcript"), list):
        row["transcript"] = [m for m in map(message_json, raw["transcript"]) if m]
    if isinstance(raw.get("calls"), list):
        keys = ("round", "name", "arguments", "status", "valid", "error")
        row["executed"] = [{k: c.get(k) for k in keys} for c in raw["calls"] if isinstance(c, dict)]
    if "final_answer" in raw:
        row["final_answer"] = clip(raw.get("final_answer"))
    if isinstance(raw.get("outcome"), str):
        row["episode_outcome"] = raw["outcome"]
    return row


def item_row(raw: Mapping[str, Any], record: ItemRecord | None, run: RunData) -> Row:
    """One explorer row from one item of a results file."""
    task = run.tasks.get(str(raw.get("task_id")))
    latency = raw.get("latency_s")
    row: Row = {
        "id": str(raw.get("task_id")),
        "cat": str(raw.get("category")),
        "rep": int(raw.get("repeat") or 0),
        "out": outcome(raw),
        "err": raw.get("error_class"),
        "err_msg": clip(raw.get("error_message")),
        "lat": latency if isinstance(latency, int | float) and math.isfinite(latency) else None,
        "tok": token_counts(raw.get("usage")),
        "raw": clip(raw.get("raw_output")),
        "finish": raw.get("finish_reason"),
        "attempts": raw.get("attempts"),
        **parsed_fields(raw, task),
        **episode_fields(raw),
    }
    if isinstance(raw.get("question"), str) and task is None:
        row["q"] = raw["question"]
    if record is not None and record.category == NOT_COVERED and record.answered:
        row["beh"] = classify_not_covered(record, run.gold.get(record.task_id))
    return row


def missing_rows(run: RunData, present: set[tuple[str, int]]) -> list[Row]:
    """A ``not_run`` row for every planned item without a record (needs the suite's tasks)."""
    repeats = run.planned // len(run.tasks) if run.tasks else 0
    return [
        {"id": task.id, "cat": task.category, "rep": repeat, "out": {}, "err": NOT_RUN}
        for repeat in range(repeats)
        for task in run.tasks.values()
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
    return [*by_key.values(), *missing_rows(run, set(by_key))]


def task_table(run: RunData) -> dict[str, Any]:
    return {
        task.id: {"q": task.question, "gold": task.gold.to_json()} for task in run.tasks.values()
    }


def run_info(run: RunData, tasks_key: str | None) -> dict[str, Any]:
    return {
        "id": run.run_id,
        "label": run.label,
        "model": run.model,
        "setup": run.setup,
        "suite": f"{run.suite_name} {run.suite_version}".strip(),
        "tasks": tasks_key,
        "planned": run.planned,
        "answered": run.answered,
    }


def explorer_data(
    runs: Sequence[RunData], categories: Sequence[str], pairs: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """Everything the page's script needs: runs, rows (``run`` = index into runs), tasks."""
    tasks: dict[str, Any] = {}
    infos, rows = [], []
    for index, run in enumerate(runs):
        key = f"{run.suite_name}@{run.suite_version}" if run.tasks else None
        if key is not None:  # runs with different --limit share one table
            tasks.setdefault(key, {}).update(task_table(run))
        infos.append(run_info(run, key))
        rows += [{"run": index, **row} for row in run_rows(run)]
    present = {name for row in rows for name in row["out"]}
    return {
        "format": DATA_FORMAT,
        "runs": infos,
        "categories": list(categories),
        "metrics": [m for m in (*METRICS, "success") if m in present],
        "pairs": [list(pair) for pair in pairs],
        "tasks": tasks,
        "rows": rows,
    }


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by its name (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def json_block(data: Any, element_id: str) -> str:
    """``data`` as an inert ``<script type="application/json">`` element."""
    text = json.dumps(finite(data), ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'
