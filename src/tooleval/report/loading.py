"""Find and read results files for a report; name the file whenever one is unusable.

A folder is scanned for ``*.json`` files (not recursively); each is parsed once. Files that
are not results (journals, a report's own ``report.json``, other JSON documents) are skipped
and listed; a file that is broken, or claims to be a results file but is malformed, raises
``ReportInputError``. Single-call runs become ``RunData``; multi-turn runs (InfraNode
episodes, Cesium scenarios; older formats too) become ``ConversationRun``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from tooleval.fileio import JsonFileError, read_json
from tooleval.records import Task, ToolCall
from tooleval.runner.records import ItemRecord, item_from_json
from tooleval.runner.results import MULTI_TURN, upgrade
from tooleval.suites import Suite, load_suite

REPORT_FILE_NAMES = frozenset({"report.json"})
SuiteLookup = Callable[[str], Suite[Any] | None]


class ReportInputError(ValueError):
    """A results file that cannot be read; the message starts with the file name."""


@dataclass(frozen=True)
class RunInfo:
    """What every results file says about its run, whatever its kind."""

    run_id: str
    path: Path
    model: str
    setup: str
    config: Mapping[str, Any]
    complete: bool
    stop_reason: str | None
    suite_name: str
    suite_version: str
    planned: int
    answered: int
    errors_by_class: Mapping[str, int]

    @property
    def errors(self) -> int:
        return sum(self.errors_by_class.values())

    @property
    def label(self) -> str:
        return f"{self.model} ({self.setup})"

    def to_json(self) -> dict[str, Any]:
        """The fields a report's JSON gives for every run."""
        return {
            "run_id": self.run_id,
            "file": self.path.name,
            "model": self.model,
            "setup": self.setup,
            "suite": {"name": self.suite_name, "version": self.suite_version},
            "complete": self.complete,
            "stop_reason": self.stop_reason,
            "planned": self.planned,
            "answered": self.answered,
            "errors_by_class": dict(self.errors_by_class),
        }


@dataclass(frozen=True)
class RunData(RunInfo):
    """A single-call results file, reduced to what reports need."""

    mode: str
    categories: tuple[str, ...]
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


@dataclass(frozen=True)
class ConversationRun(RunInfo):
    """A multi-turn results file (episodes, scenarios), reduced to what reports need.

    ``successes`` of ``scored`` conversations reached the suite's goal (its ``success``);
    ``original_metrics`` holds an original harness's metrics where the suite keeps them (the
    Cesium scenarios' nine), else None. ``headline`` is the file's ``headline`` section where it
    has one (the Cesium scenarios: ``scenarioCorrectRate``, with the original's rule beside it),
    else None: then the headline is ``success``.
    """

    endings: Mapping[str, int]
    outcomes: Mapping[str, int]
    metrics: Mapping[str, Any]
    original_metrics: Mapping[str, float | None] | None
    scored: int
    successes: int
    headline: Mapping[str, Any] | None = None
    categories: tuple[str, ...] = ()
    tasks: Mapping[str, Any] = field(default_factory=dict)
    """The run's planned tasks (id, category, question) where the suite is installed."""
    item_json: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class LoadedRuns:
    runs: tuple[RunData, ...]
    skipped: tuple[tuple[Path, str], ...]
    conversations: tuple[ConversationRun, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.runs and not self.conversations


def shipped_suite(name: str) -> Suite[Any] | None:
    """The packaged suite called ``name``, or None when there is none."""
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
    """Why ``path`` is not a results file by its name alone, or None."""
    if path.name in REPORT_FILE_NAMES or path.name.endswith((".journal.jsonl", ".bak")):
        return "not a results file (report or journal)"
    return None


def read_document(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The file's results document (parsed once, older formats upgraded), or None and why it
    is not one. A file that is not valid JSON raises ReportInputError."""
    try:
        raw = read_json(path)
    except JsonFileError as exc:
        raise ReportInputError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportInputError(f"{path}: cannot read ({exc})") from None
    document = upgrade(raw)
    if document is None:
        found = raw.get("format") if isinstance(raw, dict) else None
        return None, f"not a results file (format {found!r})"
    return document, None


def load_runs(
    paths: Iterable[Path], suite_lookup: SuiteLookup = shipped_suite, strict: bool = True
) -> LoadedRuns:
    """Every results file under ``paths``; other files are skipped.

    A broken results file raises ReportInputError, or with ``strict=False`` is skipped with
    its error as the reason.
    """
    runs: list[RunData] = []
    conversations: list[ConversationRun] = []
    skipped: list[tuple[Path, str]] = []
    for path, explicit in candidate_files(paths):
        try:
            reason = skip_reason(path)
            document = None
            if reason is None:
                document, reason = read_document(path)
            if reason is not None and explicit:
                raise ReportInputError(f"{path}: {reason}")
            if document is None:
                skipped.append((path, reason or "not a results file"))
            elif document.get("kind") == MULTI_TURN:
                conversations.append(read_conversation_run(path, document, suite_lookup))
            else:
                runs.append(read_run(path, suite_lookup, document))
        except ReportInputError as exc:
            if strict:
                raise
            skipped.append((path, f"malformed: {exc}"))
    ids = Counter(r.run_id for r in (*runs, *conversations))
    return LoadedRuns(
        tuple(unique_ids(runs, ids)), tuple(skipped), tuple(unique_ids(conversations, ids))
    )


R = TypeVar("R", bound=RunInfo)


def unique_ids(runs: list[R], counts: Mapping[str, int]) -> list[R]:
    """Give runs with the same file stem (from different folders) distinct ids."""
    out: list[R] = []
    for run in runs:
        if counts[run.run_id] > 1:
            run = replace(run, run_id=f"{run.path.parent.name}/{run.run_id}")
        out.append(run)
    return out


def read_run(
    path: Path, suite_lookup: SuiteLookup = shipped_suite, document: Any = None
) -> RunData:
    """Read one single-call results file (or its already parsed ``document``); every problem
    raises ReportInputError naming the file."""
    try:
        if document is None:
            document, reason = read_document(path)
            if document is None:
                raise ReportInputError(f"{path}: {reason}")
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


def _success(item: Mapping[str, Any]) -> int:
    score = item.get("score")
    if not isinstance(score, Mapping):
        return 0
    return int(bool(score.get("success", score.get("passed", 0))))


def item_objects(path: Path, raw_items: Any) -> tuple[Mapping[str, Any], ...]:
    """The items of a multi-turn document; each must be a JSON object with a task_id."""
    if not isinstance(raw_items, list):
        raise ReportInputError(f"{path}: 'items' is not a list")
    for index, item in enumerate(raw_items):
        if not isinstance(item, dict) or not isinstance(item.get("task_id"), str):
            raise ReportInputError(f"{path}: items[{index}] is not an object with a task_id")
    return tuple(raw_items)


def outcome_counts(items: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Conversations per outcome class (the verdict class, or the ending when unscored)."""
    return dict(Counter(str(i.get("outcome") or i.get("ending")) for i in items))


def read_conversation_run(
    path: Path, document: Mapping[str, Any], suite_lookup: SuiteLookup = shipped_suite
) -> ConversationRun:
    """A multi-turn results document as a ConversationRun; ReportInputError when malformed."""
    try:
        config = need(document, "config", dict, path)
        suite = need(document, "suite", dict, path)
        counts = need(document, "counts", dict, path)
        items = item_objects(path, document.get("items"))
        scored = [i for i in items if i.get("score")]
        original = document.get("original_metrics")
        headline = document.get("headline")
        return ConversationRun(
            run_id=path.stem,
            path=path,
            model=str(config.get("model")),
            setup=str(document.get("setup") or config.get("mode", "")),
            config=config,
            suite_name=str(suite.get("name")),
            suite_version=str(suite.get("version", "")),
            complete=bool(document.get("complete")),
            stop_reason=document.get("stop_reason"),
            planned=int(counts["planned"]),
            answered=int(counts["answered"]),
            errors_by_class=error_counts(document.get("errors_by_class")),
            endings=error_counts(document.get("endings")),
            outcomes=error_counts(document.get("outcomes")) or outcome_counts(items),
            metrics=need(document, "metrics", dict, path),
            original_metrics=original if isinstance(original, dict) else None,
            scored=len(scored),
            successes=sum(_success(i) for i in scored),
            headline=headline if isinstance(headline, dict) else None,
            categories=tuple(str(c) for c in suite.get("categories") or ()),
            tasks=suite_tasks(suite, config, suite_lookup) or {},
            item_json=items,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, ReportInputError):
            raise
        raise ReportInputError(f"{path}: malformed results file ({exc})") from None


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
    if known and not all(isinstance(task, Task) for task in known.values()):
        known = None  # a suite without gold calls: no single-call run of it to check against
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
        errors_by_class=error_counts(document.get("errors_by_class")),
        metrics=need(document, "metrics", dict, path),
        metrics_answered=need(document, "metrics_answered", dict, path),
        pass_hat_k=_number(pass_hat.get("value")) if isinstance(pass_hat, dict) else None,
        items=items,
        planned_by_category=by_category,
        planned_by_category_exact=exact,
        gold={task_id: task.gold for task_id, task in (known or {}).items()},
        tasks=known or {},
        item_json=tuple(document["items"]),
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def error_counts(raw: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in (raw or {}).items()}


KnownTasks = dict[str, Any]


def suite_tasks(
    suite: Mapping[str, Any], config: Mapping[str, Any], suite_lookup: SuiteLookup
) -> KnownTasks | None:
    """``task_id -> task`` for the run's planned tasks, when the suite matches."""
    found = suite_lookup(str(suite.get("name")))
    if found is None or found.version != suite.get("version"):
        return None
    tasks = found.tasks
    ids, categories, limit = (config.get(k) for k in ("task_ids", "categories", "limit"))
    if ids:
        tasks = tuple(t for t in tasks if t.id in ids)
    if categories:
        tasks = tuple(t for t in tasks if t.category in categories)
    tasks = tasks[:limit] if isinstance(limit, int) and limit > 0 else tasks
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
