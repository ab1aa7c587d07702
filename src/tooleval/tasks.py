"""Task records to and from JSON, with errors that name the file and line."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tooleval import fileio
from tooleval.records import Task, ToolCall


class TaskFormatError(ValueError):
    """A task line that cannot be read; the message starts with ``FILE:LINE:``."""


def iter_jsonl_text(text: str, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of JSONL ``text``."""
    try:
        yield from fileio.iter_jsonl_text(text, source)
    except fileio.JsonlError as exc:
        raise TaskFormatError(str(exc)) from None


def _require(row: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kind):
        raise TaskFormatError(f"{where}: field {key!r} must be a {kind.__name__}")
    return value


def task_from_json(row: Mapping[str, Any], where: str) -> Task:
    """Build a Task from one JSONL object; ``where`` (e.g. ``tasks.jsonl:7``) names errors."""
    gold = _require(row, "gold", dict, where)
    name = _require(gold, "name", str, f"{where}: gold")
    arguments = _require(gold, "arguments", dict, f"{where}: gold")
    alternatives = row.get("alternatives") or {}
    if not isinstance(alternatives, dict) or not all(
        isinstance(v, list) for v in alternatives.values()
    ):
        raise TaskFormatError(f"{where}: field 'alternatives' must map names to lists")
    return Task(
        id=_require(row, "id", str, where),
        category=_require(row, "category", str, where),
        question=_require(row, "question", str, where),
        gold=ToolCall(name, arguments),
        suite_version=_require(row, "suite_version", str, where),
        alternatives={k: tuple(v) for k, v in alternatives.items()},
        provenance=row.get("provenance") or {},
    )


def task_to_json(task: Task) -> dict[str, Any]:
    """The JSONL object for a task (key order fixed, so files are byte-stable)."""
    row: dict[str, Any] = {
        "id": task.id,
        "category": task.category,
        "question": task.question,
        "gold": task.gold.to_json(),
    }
    if task.alternatives:
        row["alternatives"] = {k: list(v) for k, v in task.alternatives.items()}
    row["provenance"] = dict(task.provenance)
    row["suite_version"] = task.suite_version
    return row
