"""Find and read results files for a report; name the file whenever one is unusable.

A folder is scanned for ``*.json`` files (not recursively). Files that are not results
(journals, a report's own ``report.json``, other JSON documents) are skipped and listed;
a file that claims to be a results file but is broken raises ``ReportInputError``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.runner.records import ItemRecord, item_from_json
from tooleval.runner.results import RESULTS_FORMAT, load_results
from tooleval.suites import Suite, load_suite

REPORT_FILE_NAMES = frozenset({"report.json"})
SuiteLookup = Callable[[str], Suite | None]


class ReportInputError(ValueError):
    """A results file that cannot be read; the message starts with the file name."""


@dataclass(frozen=True)
class RunData:
    """One results file, reduced to what reports need."""

    run_id: str
    path: Path
    model: str
    mode: str
    setup: str
    config: Mapping[str, Any]
    complete: bool
    stop_reason: str | None
    suite_name: str
    suite_version: str
    categories: tuple[str, ...]
    planned: int
    answered: int
    errors_by_class: Mapping[str, int]
    metrics: Mapping[str, float | None]
    metrics_answered: Mapping[str, float | None]
    pass_hat_k: float | None
    items: tuple[ItemRecord, ...]
    planned_by_category: Mapping[str, int]
    planned_by_category_exact: bool
    gold: Mapping[str, ToolCall] = field(default_factory=dict)
    tasks: Mapping[str, Task] = field(default_factory=dict)
    item_json: tuple[Mapping[str, Any], ...] = ()
    """The items as the file has them (every field, also ones ``ItemRecord`` does not model)."""

    @property
    def errors(self) -> int:
        return sum(self.errors_by_class.values())

    @property
    def label(self) -> str:
        return f"{self.model} ({self.setup})"


@dataclass(frozen=True)
class LoadedRuns:
    runs: tuple[RunData, ...]
    skipped: tuple[tuple[Path, str], ...]


def shipped_suite(name: str) -> Suite | None:
    """The packaged suite called ``name``, or None when it is unknown or cannot be loaded."""
    try:
        return load_suite(name)
    except (ValueError, OSError):
        return None


def candidate_files(paths: Iterable[Path]) -> list[tuple[Path, bool]]:
    """``(file, named_explicitly)`` for every results candidate under ``paths``."""
    found: list[tuple[Path, bool]] = []
    for path in paths:
        if path.is_dir():
            found.extend((p, False) for p in sorted(path.glob("*.json")) if p.is_file())
        elif path.is_file():
            found.append((path, True))
        else:
            raise ReportInputError(f"{path}: no such file or folder")
    return found


def skip_reason(path: Path) -> str | None:
    """Why ``path`` is not a results file, or None when it should be read as one."""
    if path.name in REPORT_FILE_NAMES or path.name.endswith((".journal.jsonl", ".bak")):
        return "not a results file (report or journal)"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # a broken file: load_results names it
    if not isinstance(document, dict) or document.get("format") != RESULTS_FORMAT:
        found = document.get("format") if isinstance(document, dict) else None
        return f"not a results file (format {found!r})"
    return None


def load_runs(
    paths: Iterable[Path], suite_lookup: SuiteLookup = shipped_suite, strict: bool = True
) -> LoadedRuns:
    """Every results file under ``paths``; other files are skipped.

    A broken results file raises ReportInputError, or with ``strict=False`` is skipped with
    its error as the reason.
    """
    runs: list[RunData] = []
    skipped: list[tuple[Path, str]] = []
    for path, explicit in candidate_files(paths):
        reason = skip_reason(path)
        if reason is not None and explicit:
            raise ReportInputError(f"{path}: {reason}")
        if reason is not None:
            skipped.append((path, reason))
            continue
        try:
            runs.append(read_run(path, suite_lookup))
        except ReportInputError as exc:
            if strict:
                raise
            skipped.append((path, f"malformed: {exc}"))
    return LoadedRuns(tuple(unique_ids(runs)), tuple(skipped))


def unique_ids(runs: list[RunData]) -> list[RunData]:
    """Give runs with the same file stem (from different folders) distinct ids."""
    counts = Counter(r.run_id for r in runs)
    out: list[RunData] = []
    for run in runs:
        if counts[run.run_id] > 1:
            run = replace(run, run_id=f"{run.path.parent.name}/{run.run_id}")
        out.append(run)
    return out


def read_run(path: Path, suite_lookup: SuiteLookup = shipped_suite) -> RunData:
    """Read one results file; every problem raises ReportInputError naming the file."""
    try:
        document = load_results(path)
        return run_from_document(path, document, suite_lookup)
    except ReportInputError:
        raise
    except ValueError as exc:
        message = str(exc)
        raise ReportInputError(message if str(path) in message else f"{path}: {message}") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise ReportInputError(
            f"{path}: malformed results file ({type(exc).__name__}: {exc})"
        ) from None


def parse_items(path: Path, raw_items: Any) -> tuple[ItemRecord, ...]:
    if not isinstance(raw_items, list):
        raise ReportInputError(f"{path}: 'items' is not a list")
    items: list[ItemRecord] = []
    for index, raw in enumerate(raw_items):
        try:
            items.append(item_from_json(raw))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReportInputError(f"{path}: items[{index}] is malformed ({exc!r})") from None
    return tuple(items)


def need(document: Mapping[str, Any], key: str, kind: type, path: Path) -> Any:
    value = document.get(key)
    if not isinstance(value, kind):
        raise ReportInputError(f"{path}: field {key!r} missing or not a {kind.__name__}")
    return value


def run_from_document(
    path: Path, document: Mapping[str, Any], suite_lookup: SuiteLookup = shipped_suite
) -> RunData:
    config = need(document, "config", dict, path)
    suite = need(document, "suite", dict, path)
    counts = need(document, "counts", dict, path)
    items = parse_items(path, document.get("items"))
    categories = tuple(str(c) for c in suite.get("categories") or ())
    known = suite_tasks(suite, config, suite_lookup)
    by_category, exact = planned_by_category(items, int(counts["planned"]), categories, known)
    pass_hat = document.get("pass_hat_k")
    return RunData(
        run_id=path.stem,
        path=path,
        model=str(config["model"]),
        mode=str(config.get("mode", "prompt")),
        setup=str(document.get("setup") or config.get("mode", "")),
        config=config,
        complete=bool(document["complete"]),
        stop_reason=document.get("stop_reason"),
        suite_name=str(suite["name"]),
        suite_version=str(suite.get("version", "")),
        categories=categories,
        planned=int(counts["planned"]),
        answered=int(counts["answered"]),
        errors_by_class={
            str(k): int(v) for k, v in (document.get("errors_by_class") or {}).items()
        },
        metrics=need(document, "metrics", dict, path),
        metrics_answered=need(document, "metrics_answered", dict, path),
        pass_hat_k=float(pass_hat["value"]) if isinstance(pass_hat, dict) else None,
        items=items,
        planned_by_category=by_category,
        planned_by_category_exact=exact,
        gold={task_id: task.gold for task_id, task in (known or {}).items()},
        tasks=known or {},
        item_json=tuple(document["items"]),
    )


def error_counts(raw: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in (raw or {}).items()}


KnownTasks = dict[str, Task]


def suite_tasks(
    suite: Mapping[str, Any], config: Mapping[str, Any], suite_lookup: SuiteLookup
) -> KnownTasks | None:
    """``task_id -> task`` for the run's planned tasks, when the suite matches."""
    found = suite_lookup(str(suite.get("name")))
    if found is None or found.version != suite.get("version"):
        return None
    limit = config.get("limit")
    tasks = found.tasks[:limit] if isinstance(limit, int) and limit > 0 else found.tasks
    if len(tasks) != suite.get("n_tasks", len(tasks)):
        return None
    return {t.id: t for t in tasks}


def planned_by_category(
    items: tuple[ItemRecord, ...],
    planned: int,
    categories: tuple[str, ...],
    known: KnownTasks | None,
) -> tuple[dict[str, int], bool]:
    """Planned items per category, and whether the count is exact.

    Exact when every planned item has a record, or when the suite's task list is available;
    otherwise the recorded items are all there is to count (an early stop leaves gaps).
    """
    present = Counter(item.category for item in {i.key: i for i in items}.values())
    if sum(present.values()) == planned:
        return {c: present.get(c, 0) for c in categories}, True
    if known is not None:
        repeats = planned // len(known) if known else 0
        by_task = Counter(task.category for task in known.values())
        return {c: by_task.get(c, 0) * repeats for c in categories}, True
    return {c: present.get(c, 0) for c in categories}, False
