"""The item explorer's data, embedded in report.html: every run's rows, tasks, texts.

``explorer_data`` gathers the rows of single-call runs (``explorer.run_rows``) and of
multi-turn runs (``conversation_rows``), the questions and gold calls of each suite version
once, and long repeated texts (system prompts) once. ``json_block`` embeds it as JSON inside
``<script type="application/json">`` with ``<``, ``>`` and ``&`` escaped, so no model output can
end the block or open a tag.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.records import Task
from tooleval.report.conversation_rows import conversation_rows
from tooleval.report.explorer import METRICS, Row, run_rows
from tooleval.report.loading import ConversationRun, RunData, RunInfo

DATA_FORMAT = "tooleval-explorer/2"
KIND_SINGLE, KIND_MULTI = "single_call", "multi_turn"


class Texts:
    """Long texts that repeat across rows, stored once (``intern`` returns the index)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def intern(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    def to_json(self) -> list[str]:
        return list(self.index)


def task_table(tasks: Mapping[str, Any]) -> dict[str, Any]:
    """Question and, where the task has one, gold call per task id."""
    table: dict[str, Any] = {}
    for task in tasks.values():
        entry: dict[str, Any] = {"q": str(getattr(task, "question", ""))}
        if isinstance(task, Task):
            entry["gold"] = task.gold.to_json()
        table[task.id] = entry
    return table


def run_info(run: RunInfo, kind: str, tasks_key: str | None) -> dict[str, Any]:
    return {
        "id": run.run_id,
        "kind": kind,
        "label": run.label,
        "model": run.model,
        "setup": run.setup,
        "suite": f"{run.suite_name} {run.suite_version}".strip(),
        "tasks": tasks_key,
        "planned": run.planned,
        "answered": run.answered,
    }


def categories_of(
    runs: Sequence[RunData], conversations: Sequence[ConversationRun], first: Sequence[str]
) -> list[str]:
    """``first`` (the report's order), then every other category of any run, once."""
    seen = dict.fromkeys(first)
    for names in [run.categories for run in runs] + [run.categories for run in conversations]:
        seen.update(dict.fromkeys(names))
    return list(seen)


def explorer_data(
    runs: Sequence[RunData],
    categories: Sequence[str],
    pairs: Sequence[tuple[str, str]] = (),
    conversations: Sequence[ConversationRun] = (),
) -> dict[str, Any]:
    """Everything the page's script needs: runs, rows (``run`` = index into runs), tasks."""
    tasks: dict[str, Any] = {}
    texts = Texts()
    infos: list[dict[str, Any]] = []
    rows: list[Row] = []
    kinds = [(run, KIND_SINGLE) for run in runs] + [(run, KIND_MULTI) for run in conversations]
    for index, (run, kind) in enumerate(kinds):
        key = f"{run.suite_name}@{run.suite_version}" if run.tasks else None
        if key is not None:  # runs of one suite version (any --limit) share one table
            tasks.setdefault(key, {}).update(task_table(run.tasks))
        infos.append(run_info(run, kind, key))
        found = run_rows(run) if isinstance(run, RunData) else conversation_rows(run, texts.intern)
        rows += [{"run": index, **row} for row in found]
    present = {name for row in rows for name in row["out"]}
    return {
        "format": DATA_FORMAT,
        "runs": infos,
        "categories": categories_of(runs, conversations, categories),
        "metrics": [m for m in (*METRICS, "success", "passed") if m in present],
        "pairs": [list(pair) for pair in pairs],
        "tasks": tasks,
        "texts": texts.to_json(),
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
