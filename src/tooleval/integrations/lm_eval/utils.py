"""Hooks that lm-eval calls for the ``infranode_tools_de`` task (``!function utils.…``).

lm-eval imports this file by its path, so it uses absolute imports only. The prompt comes from
``tooleval.suites.infranode.prompting.build_messages`` (the runner's prompt mode), the score
from ``tooleval.parsing.parse_text`` (with the suite's tools offered) and
``tooleval.scoring.score_parse`` in prompt mode: a model scored here and by ``tooleval run`` is
scored by the same code, ``format_ok`` (the answer was exactly the requested JSON object)
included.

Per-category metrics: ``process_results`` returns every ``call_match_<category>`` key for every
document, with ``None`` for documents of other categories, and :func:`category_mean` averages
only the values that are not ``None``. So each category mean is over its own items only.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tooleval.fileio import loads
from tooleval.metrics import METRIC_NAMES, metric_names
from tooleval.parsing import parse_text
from tooleval.records import ItemScore, Task, ToolSpec
from tooleval.scoring import score_parse
from tooleval.suites.infranode import CATEGORIES, load_tasks, load_tools
from tooleval.suites.infranode.prompting import build_messages
from tooleval.tasks import iter_jsonl_text, task_from_json, task_to_json

SPLIT = "test"
ALL_METRICS = metric_names(CATEGORIES)
"""Every metric the task reports, in report order (matches the YAML's ``metric_list``)."""


def task_doc(task: Task, tools: Sequence[ToolSpec]) -> dict[str, str]:
    """One lm-eval document. The task travels as JSON text so Arrow keeps it unchanged."""
    system, user = build_messages(task.question, tools, mode="prompt")
    return {
        "id": task.id,
        "category": task.category,
        "system": system.content or "",
        "question": user.content or "",
        "target": json.dumps(task.gold.to_json(), ensure_ascii=False),
        "task": json.dumps(task_to_json(task), ensure_ascii=False),
    }


def read_tasks_file(path: str) -> tuple[Task, ...]:
    """Tasks from a JSONL file (errors name the file and line)."""
    text = Path(path).read_text(encoding="utf-8")
    return tuple(task_from_json(row, f"{path}:{n}") for n, row in iter_jsonl_text(text, path))


def task_docs(tasks_file: str | None = None) -> list[dict[str, str]]:
    """The InfraNode tasks as lm-eval documents, in file order (default: the packaged ones)."""
    tools = load_tools()
    tasks = read_tasks_file(tasks_file) if tasks_file else load_tasks()
    return [task_doc(task, tools) for task in tasks]


def load_dataset(tasks_file: str | None = None, **_ignored: Any) -> dict[str, Any]:
    """``custom_dataset`` hook: the packaged tasks, no hub and no paths relative to the cwd.

    lm-eval passes the task's ``metadata`` (plus ``--metadata`` JSON) as keywords. Only
    ``tasks_file`` is used: another tasks.jsonl, e.g. one made by ``tooleval generate``.
    """
    datasets = importlib.import_module("datasets")
    return {SPLIT: datasets.Dataset.from_list(task_docs(tasks_file))}


def task_of(doc: dict[str, Any]) -> Task:
    """The Task a document was built from; bad documents raise naming the document id."""
    where = f"lm-eval document {doc.get('id', '?')!r}"
    try:
        row = loads(doc["task"], where)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where}: field 'task' is not task JSON ({exc})") from None
    return task_from_json(row, where)


def score_output(task: Task, text: str) -> ItemScore:
    """tooleval's score for one generated text: parsed with the suite's tools offered (as the
    system prompt offers them), scored in prompt mode."""
    return score_parse(task, parse_text(text, load_tools()), "prompt")


def metrics_for(category: str, score: ItemScore) -> dict[str, int | None]:
    """The per-document metric values; ``None`` marks another category's metric."""
    values: dict[str, int | None] = {name: getattr(score, name) for name in METRIC_NAMES}
    for other in CATEGORIES:
        values[f"call_match_{other}"] = score.call_match if other == category else None
    return values


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, int | None]:
    """lm-eval hook: score the one generation for ``doc``."""
    task = task_of(doc)
    text = results[0] if results else ""
    return metrics_for(task.category, score_output(task, text))


def category_mean(values: Sequence[int | float | None]) -> float | None:
    """Aggregation hook: the mean of the values that are not None (None when there are none)."""
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None
