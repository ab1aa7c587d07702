"""The results file: configuration, per-item records and metrics, honest about gaps.

``metrics`` is taken over every planned item, an unanswered or failed item counting as a miss;
``metrics_answered`` over the answered items only. A run is ``complete`` when every planned
item has an answer; only then are the two equal by construction. Provider errors are counted
by class and never enter either set as model answers.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tooleval.fileio import write_text_atomic
from tooleval.metrics import aggregate
from tooleval.records import ItemScore, Task
from tooleval.runner.records import ItemRecord, RunConfig, json_text
from tooleval.suites import Suite

RESULTS_FORMAT = "tooleval-results/1"
MISS = ItemScore(parsed=0, tool_match=0, args_match=0, call_match=0, format_ok=0)


def planned_keys(tasks: Sequence[Task], repeats: int) -> list[tuple[str, int]]:
    return [(task.id, repeat) for repeat in range(repeats) for task in tasks]


def compute_metrics(
    tasks: Sequence[Task],
    records: dict[tuple[str, int], ItemRecord],
    repeats: int,
    categories: Sequence[str],
    answered_only: bool,
) -> dict[str, float | None]:
    category = {task.id: task.category for task in tasks}
    pairs: list[tuple[str, ItemScore]] = []
    for key in planned_keys(tasks, repeats):
        record = records.get(key)
        if record is not None and record.answered and record.score is not None:
            pairs.append((category[key[0]], record.score))
        elif not answered_only:
            pairs.append((category[key[0]], MISS))
    return aggregate(pairs, categories)


def pass_hat_k(tasks: Sequence[Task], records: dict[tuple[str, int], ItemRecord], k: int) -> float:
    """Share of tasks whose call matched in all k repeats (tau-bench's pass^k)."""
    passed = 0
    for task in tasks:
        scores = [records.get((task.id, r)) for r in range(k)]
        if all(s is not None and s.score is not None and s.score.call_match for s in scores):
            passed += 1
    return passed / len(tasks) if tasks else 0.0


def exec_match_rates(records: Iterable[ItemRecord]) -> dict[str, float | None] | None:
    """Executable equivalence over answered items, beside the share that was exact."""
    rows = [r for r in records if r.answered and r.exec_match is not None]
    if not rows:
        return None
    exact = [r.score.call_match for r in rows if r.score is not None]
    return {
        "exec_match": sum(r.exec_match or 0 for r in rows) / len(rows),
        "call_match": sum(exact) / len(rows),
        "executable_not_canonical": sum(
            1 for r in rows if r.exec_match and r.score is not None and not r.score.call_match
        )
        / len(rows),
    }


def suite_summary(suite: Suite, tasks: Sequence[Task]) -> dict[str, Any]:
    """What a results file says about the suite it ran (also used by episode results)."""
    return {
        "name": suite.name,
        "version": suite.version,
        "tools_hash": suite.tools_hash,
        "categories": list(suite.categories),
        "n_tasks": len(tasks),
        "planned_by_category": dict(Counter(task.category for task in tasks)),
    }


def build_results(
    config: RunConfig,
    suite: Suite,
    tasks: Sequence[Task],
    records: dict[tuple[str, int], ItemRecord],
    started_at: str,
    stop_reason: str | None,
) -> dict[str, Any]:
    planned = planned_keys(tasks, config.repeats)
    answered = sum(1 for key in planned if key in records and records[key].answered)
    errors = Counter(r.error_class for r in records.values() if r.error_class)
    complete = answered == len(planned)
    document: dict[str, Any] = {
        "format": RESULTS_FORMAT,
        "complete": complete,
        "stop_reason": stop_reason,
        "config": config.to_json(),
        "setup": config.setup_label(),
        "suite": suite_summary(suite, tasks),
        "started_at": started_at,
        "finished_at": now_iso(),
        "counts": {"planned": len(planned), "answered": answered, "errors": sum(errors.values())},
        "errors_by_class": dict(sorted(errors.items())),
        "metrics": compute_metrics(tasks, records, config.repeats, suite.categories, False),
        "metrics_answered": compute_metrics(tasks, records, config.repeats, suite.categories, True),
        "exec_match": exec_match_rates(records.values()),
        "items": [records[key].to_json() for key in planned if key in records],
    }
    if config.repeats > 1:
        document["pass_hat_k"] = {
            "k": config.repeats,
            "value": pass_hat_k(tasks, records, config.repeats),
        }
    return document


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_results(path: Path, document: dict[str, Any]) -> None:
    write_text_atomic(path, json_text(document, indent=1) + "\n")


def load_results(path: Path) -> dict[str, Any]:
    """Read a results file, naming the file when it is not a tooleval results document."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(document, dict) or document.get("format") != RESULTS_FORMAT:
        raise ValueError(f"{path}: not a tooleval results file (format {RESULTS_FORMAT})")
    return document
