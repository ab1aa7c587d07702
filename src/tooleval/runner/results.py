"""The results file (``tooleval-results/2``): one versioned, snake_case format for single-call
runs and multi-turn runs (InfraNode episodes, Cesium scenarios), honest about gaps.

Every document has ``format``, ``kind`` (``single_call`` or ``multi_turn``), ``complete``,
``stop_reason``, ``config``, ``setup``, ``suite``, ``started_at``/``finished_at``, ``counts``,
``errors_by_class``, ``metrics``, ``pass_hat_k`` (with repeats) and ``items``; see
docs/results-format.md. Provider errors are counted by class and never scored as answers.

Single call: ``metrics`` over every planned item (an unanswered or failed item is a miss),
``metrics_answered`` over the answered items only. Multi-turn: the suite's own metrics over
its scored conversations, ``endings``, plus the sections its dialogue adds.

``load_results`` also reads the older formats (``tooleval-results/1``, ``tooleval-episodes/1``
and the Cesium ``model-tools`` report of tooleval 0.1) and upgrades them in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tooleval.fileio import JsonFileError, read_json, write_json_atomic
from tooleval.metrics import aggregate, pass_hat_k
from tooleval.records import ENDINGS, ConversationRecord, ItemScore
from tooleval.runner.identity import fingerprint, run_identity
from tooleval.runner.legacy import cesium_report_document, episodes_document
from tooleval.runner.records import ItemRecord, RunConfig
from tooleval.suites.base import Suite, SuiteTask

RESULTS_FORMAT = "tooleval-results/2"
SINGLE_CALL = "single_call"
MULTI_TURN = "multi_turn"
MISS = ItemScore(parsed=0, tool_match=0, args_match=0, call_match=0, format_ok=0)
Key = tuple[str, int]


def planned_keys(tasks: Sequence[SuiteTask], repeats: int) -> list[Key]:
    return [(task.id, repeat) for repeat in range(repeats) for task in tasks]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def passes_by_task(
    tasks: Sequence[SuiteTask], repeats: int, passed: Mapping[Key, bool]
) -> dict[str, list[bool]]:
    """Each planned task's verdicts in repeat order (a missing run is not a pass)."""
    return {t.id: [passed.get((t.id, r), False) for r in range(repeats)] for t in tasks}


Identities = tuple[dict[str, Any], Mapping[str, dict[str, Any]]]


def header(
    kind: str,
    config: RunConfig,
    suite: Suite[Any],
    tasks: Sequence[SuiteTask],
    started_at: str,
    stop_reason: str | None,
    identity: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The fields every results document starts with, the run identity included."""
    identity = identity or run_identity(config, suite)
    return {
        "format": RESULTS_FORMAT,
        "kind": kind,
        "complete": False,
        "stop_reason": stop_reason,
        "identity": identity,
        "run_id": fingerprint(identity),
        "config": config.to_json(),
        "setup": config.setup_label(multi_turn=kind == MULTI_TURN),
        "suite": suite.summary(tasks),
        "started_at": started_at,
        "finished_at": now_iso(),
    }


MODEL_STOPS = ("refused", "malformed_call")
"""Answers that ended in a refusal (or a filter) or a call the provider's API could not read:
model behaviour, scored, and counted in ``model_stops`` (docs/results-format.md)."""


def model_stops(reasons: Iterable[str | None]) -> dict[str, int]:
    found = Counter(reason for reason in reasons if reason in MODEL_STOPS)
    return {name: found[name] for name in MODEL_STOPS}


def counts_of(
    planned: Sequence[Key], answered: Iterable[Key], error_classes: Iterable[str | None]
) -> tuple[dict[str, int], dict[str, int]]:
    """``counts`` and ``errors_by_class``."""
    errors = Counter(e for e in error_classes if e)
    done = set(answered)
    counts = {
        "planned": len(planned),
        "answered": sum(1 for key in planned if key in done),
        "errors": sum(errors.values()),
    }
    return counts, dict(sorted(errors.items()))


# --- single call ----------------------------------------------------------------------------


def compute_metrics(
    tasks: Sequence[SuiteTask],
    records: Mapping[Key, ItemRecord],
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


def build_results(
    config: RunConfig,
    suite: Suite[Any],
    tasks: Sequence[SuiteTask],
    records: Mapping[Key, ItemRecord],
    started_at: str,
    stop_reason: str | None,
    identities: Identities | None = None,
) -> dict[str, Any]:
    """The results document of a single-call run. ``identities``: this run's identity and the
    earlier ones (by ``run_id``) whose answers a resume kept; any of those that answered a
    listed item but differ from this run are listed as ``earlier_identities``."""
    planned = planned_keys(tasks, config.repeats)
    answered = [key for key, record in records.items() if record.answered]
    counts, errors = counts_of(planned, answered, (r.error_class for r in records.values()))
    identity, known = identities or (run_identity(config, suite), {})
    document = header(SINGLE_CALL, config, suite, tasks, started_at, stop_reason, identity)
    metrics = compute_metrics(tasks, records, config.repeats, suite.categories, False)
    document.update(
        complete=counts["answered"] == len(planned),
        counts=counts,
        errors_by_class=errors,
        model_stops=model_stops(
            r.parsed.reason for r in records.values() if r.answered and r.parsed is not None
        ),
        metrics=metrics,
        metrics_answered=compute_metrics(tasks, records, config.repeats, suite.categories, True),
        exec_match=exec_match_rates(records.values()),
    )
    if config.repeats > 1:
        passed = {
            k: bool(r.answered and r.score and r.score.call_match) for k, r in records.items()
        }
        value = pass_hat_k(passes_by_task(tasks, config.repeats, passed), config.repeats)
        document["pass_hat_k"] = {"k": config.repeats, "metric": "call_match", "value": value}
    document["items"] = [records[key].to_json() for key in planned if key in records]
    others = {i["run_id"] for i in document["items"]} - {document["run_id"], None}
    if others:
        document["earlier_identities"] = {rid: known.get(rid) for rid in sorted(others)}
    return document


# --- multi-turn -----------------------------------------------------------------------------


def build_conversation_results(
    config: RunConfig,
    suite: Suite[Any],
    tasks: Sequence[SuiteTask],
    records: Mapping[Key, ConversationRecord],
    started_at: str,
    stop_reason: str | None,
) -> dict[str, Any]:
    """The results document of a multi-turn run (the suite's dialogue computes the metrics)."""
    if suite.dialogue is None:
        raise ValueError(f"suite {suite.name!r} has no multi-turn dialogue")
    planned = planned_keys(tasks, config.repeats)
    present = [records[key] for key in planned if key in records]
    answered = [r.key for r in present if r.answered]
    counts, errors = counts_of(planned, answered, (r.error_class for r in present))
    endings = Counter(r.ending for r in present)
    by_id = {task.id: task for task in tasks}
    summary = suite.dialogue.summarize([(by_id[r.task_id], r) for r in present], suite.categories)
    document = header(MULTI_TURN, config, suite, tasks, started_at, stop_reason)
    document.update(
        complete=counts["answered"] == len(planned),
        counts=counts,
        errors_by_class=errors,
        model_stops=model_stops(
            [r.stop_class for r in present] + [c.error for r in present for c in r.calls]
        ),
        endings={name: endings[name] for name in ENDINGS if endings[name]},
        **summary,
    )
    if config.repeats > 1:
        passed = {r.key: bool(r.score and r.score.success) for r in present}
        value = pass_hat_k(passes_by_task(tasks, config.repeats, passed), config.repeats)
        document["pass_hat_k"] = {"k": config.repeats, "metric": "success", "value": value}
    document["items"] = [record.to_json() for record in present]
    return document


# --- files ----------------------------------------------------------------------------------


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    write_json_atomic(path, document, indent=1)


def load_results(path: Path) -> dict[str, Any]:
    """Read a results file once, upgrading older formats; errors name the file."""
    try:
        document = read_json(path)
    except JsonFileError as exc:
        raise ValueError(str(exc)) from None
    upgraded = upgrade(document)
    if upgraded is None:
        raise ValueError(f"{path}: not a tooleval results file (format {RESULTS_FORMAT})")
    return upgraded


def upgrade(document: Any) -> dict[str, Any] | None:
    """``document`` in the current format, or None when it is not a results document."""
    if not isinstance(document, dict):
        return None
    found = document.get("format")
    if found == RESULTS_FORMAT:
        return document
    if found == "tooleval-results/1":
        return {**document, "format": RESULTS_FORMAT, "kind": SINGLE_CALL}
    if found == "tooleval-episodes/1":
        return {**episodes_document(document), "format": RESULTS_FORMAT, "kind": MULTI_TURN}
    if found is None and document.get("suite") == "cesium" and "results" in document:
        return {**cesium_report_document(document), "format": RESULTS_FORMAT, "kind": MULTI_TURN}
    return None
