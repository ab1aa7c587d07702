"""The direct runner in three layers: one item (``item``), names to objects (``build``),
many items with pacing, retries and resume (``execute``). ``run_suite`` ties them together.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tooleval.providers.base import Provider
from tooleval.records import Task
from tooleval.runner.execute import Executor
from tooleval.runner.journal import (
    Journal,
    JournalError,
    holds_nothing,
    journal_path,
    read_journal,
    trim_torn_tail,
)
from tooleval.runner.records import ItemRecord, RunConfig, item_from_json
from tooleval.runner.results import build_results, load_results, now_iso, write_results
from tooleval.suites import Suite, load_suite

__all__ = ["ResumeError", "RunConfig", "default_output", "run_suite"]


class ResumeError(ValueError):
    """An earlier run's files do not fit this run (or would be overwritten)."""


def default_output(model: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"
    return Path("results") / f"{safe}.json"


def journal_header(config: RunConfig, suite: Suite) -> dict[str, Any]:
    return {
        "suite": suite.name,
        "suite_version": suite.version,
        "tools_hash": suite.tools_hash,
        "model": config.model,
        "backend": config.backend,
        "mode": config.mode,
        "decoding": config.decoding,
        "config": config.to_json(),
    }


def _check_same_run(header: dict[str, Any], expected: dict[str, Any], path: Path) -> None:
    for key in ("suite", "suite_version", "tools_hash", "model", "mode", "decoding"):
        if header.get(key, "free" if key == "decoding" else None) != expected[key]:
            raise ResumeError(
                f"{path}: cannot resume: {key} was {header.get(key)!r}, this run has "
                f"{expected[key]!r}; use another --output or --fresh"
            )


def previous_records(
    config: RunConfig, output: Path, header: dict[str, Any]
) -> tuple[dict[tuple[str, int], ItemRecord], bool]:
    """Answered records of an earlier run to keep, and whether the journal can be appended."""
    jpath = journal_path(output)
    if jpath.exists() and holds_nothing(jpath):
        jpath.unlink()  # killed while writing its header: there is nothing to keep
    if jpath.exists() and config.fresh:
        jpath.replace(jpath.with_name(jpath.name + ".bak"))
    elif jpath.exists() and not config.resume:
        raise ResumeError(
            f"{jpath} exists from an earlier run: pass --resume to continue it, or --fresh to "
            "start over (the old journal is kept as .bak)"
        )
    if not config.resume:
        return {}, False
    if jpath.exists():
        try:
            old_header, records = read_journal(jpath)
        except JournalError as exc:
            raise ResumeError(str(exc)) from None
        _check_same_run(old_header, header, jpath)
        trim_torn_tail(jpath)
        return {r.key: r for r in records if r.answered}, True
    if output.exists():
        try:
            document = load_results(output)
        except ValueError as exc:
            raise ResumeError(f"cannot resume: {exc}") from None
        items = [item_from_json(i) for i in document.get("items", [])]
        return {r.key: r for r in items if r.answered}, False
    return {}, False


def with_exec_match(record: ItemRecord, task: Task, suite: Suite) -> ItemRecord:
    """Add executable equivalence to an answered record when the suite can execute calls."""
    if suite.exec_match is None or not record.answered or record.parsed is None:
        return record
    return replace(record, exec_match=suite.exec_match(task, record.parsed.first))


def run_suite(
    config: RunConfig,
    provider: Provider,
    *,
    suite: Suite | None = None,
    on_record: Callable[[ItemRecord], None] | None = None,
    on_plan: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run ``config`` with ``provider``; returns the results document it also wrote."""
    suite = suite or load_suite(config.suite)
    tasks: tuple[Task, ...] = suite.tasks[: config.limit] if config.limit else suite.tasks
    output = config.output or default_output(config.model)
    header = journal_header(config, suite)
    records, append = previous_records(config, output, header)
    pending = [
        (task, repeat)
        for repeat in range(config.repeats)
        for task in tasks
        if (task.id, repeat) not in records
    ]
    if on_plan:
        on_plan(len(tasks) * config.repeats, len(records))
    journal = Journal(journal_path(output), header, append=append)
    if append is False and records:
        for record in records.values():
            journal.append(record)

    by_id = {task.id: task for task in tasks}

    def keep(record: ItemRecord) -> None:
        record = with_exec_match(record, by_id[record.task_id], suite)
        journal.append(record)
        records[record.key] = record
        if on_record:
            on_record(record)

    started = now_iso()
    stop_reason: str | None = None
    try:
        stop_reason = Executor(provider, suite.tools, config, keep).run(pending)
    except KeyboardInterrupt:
        stop_reason = "interrupted"
        raise
    finally:
        journal.close()
        document = build_results(config, suite, tasks, records, started, stop_reason)
        write_results(output, document)
    return document
