"""``--resume``: what an earlier run at the same results file left to keep, checked against
this run's identity (``runner.identity``).

The journal is read when there is one; without it the results file's answered items are kept
(and written into a new journal). A different identity is refused with a message naming each
differing field, unless ``--resume-force``: then the journal gets an ``identity`` line, every
record keeps the ``run_id`` of the run that answered it, and the results list the earlier
identities.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tooleval.runner.identity import describe, differences, fingerprint, stored_identity
from tooleval.runner.journal import (
    Journal,
    JournalError,
    holds_nothing,
    journal_path,
    read_journal,
    trim_torn_tail,
)
from tooleval.runner.records import ItemRecord, RecordError, RunConfig, item_from_json
from tooleval.runner.results import SINGLE_CALL, load_results

Key = tuple[str, int]


def journal_header(identity: dict[str, Any], config: RunConfig) -> dict[str, Any]:
    return {
        "suite": identity["suite"],
        "suite_version": identity["suite_version"],
        "tools_hash": identity["tools_hash"],
        "model": config.model,
        "backend": config.backend,
        "mode": config.mode,
        "identity": identity,
        "run_id": fingerprint(identity),
        "config": config.to_json(),
    }


class ResumeError(ValueError):
    """An earlier run's files do not fit this run (or would be overwritten)."""


@dataclass
class Earlier:
    """What an earlier run left to keep: its answered records, the identities that answered
    them (by ``run_id``), and whether its journal can be appended to."""

    records: dict[Key, ItemRecord] = field(default_factory=dict)
    identities: dict[str, dict[str, Any]] = field(default_factory=dict)
    append: bool = False
    forced: list[tuple[str, Any, Any]] = field(default_factory=list)


def check_identity(
    earlier: dict[str, Any], current: dict[str, Any], path: Path, force: bool
) -> list[tuple[str, Any, Any]]:
    """The fields in which ``earlier`` differs from this run; ResumeError unless ``force``."""
    found = differences(earlier, current)
    if found and not force:
        raise ResumeError(
            f"{path}: cannot resume: it was written by another configuration "
            f"({describe(found)}); rerun with the same settings, use another --output, "
            "--fresh to start over, or --resume-force to continue anyway (the results then "
            "record both configurations)"
        )
    return found


def _from_journal(jpath: Path, identity: dict[str, Any], force: bool) -> Earlier:
    try:
        contents = read_journal(jpath)
    except JournalError as exc:
        raise ResumeError(str(exc)) from None
    latest = contents.identities[-1] if contents.identities else contents.header
    found = check_identity(stored_identity(latest), identity, jpath, force)
    trim_torn_tail(jpath)
    identities = {
        str(row.get("run_id") or ""): stored_identity(row)
        for row in (contents.header, *contents.identities)
    }
    fallback = str(contents.header.get("run_id") or "")
    records = {
        r.key: r if r.run_id else replace(r, run_id=fallback or None)
        for r in contents.records
        if r.answered
    }
    return Earlier(records, identities, append=True, forced=found)


def _from_results(output: Path, identity: dict[str, Any], force: bool) -> Earlier:
    try:
        document = load_results(output)
    except ValueError as exc:
        raise ResumeError(f"cannot resume: {exc}") from None
    if document.get("kind") != SINGLE_CALL:
        raise ResumeError(f"{output}: cannot resume: not the results of a single-call run")
    found = check_identity(stored_identity(document), identity, output, force)
    items = document.get("items")
    if not isinstance(items, list):
        raise ResumeError(f"{output}: cannot resume: field 'items' is not a list")
    records: dict[Key, ItemRecord] = {}
    run_id = document.get("run_id") if isinstance(document.get("run_id"), str) else None
    for index, item in enumerate(items):
        try:
            record = item_from_json(item)
        except RecordError as exc:
            raise ResumeError(f"{output}: cannot resume: items[{index}]: {exc}") from None
        if record.answered:
            records[record.key] = record if record.run_id else replace(record, run_id=run_id)
    earlier = document.get("earlier_identities")
    identities = dict(earlier) if isinstance(earlier, dict) else {}
    identities[run_id or ""] = stored_identity(document)
    return Earlier(records, identities, append=False, forced=found)


def previous_records(config: RunConfig, output: Path, identity: dict[str, Any]) -> Earlier:
    """What an earlier run at ``output`` left to keep: its journal when there is one, else its
    results file (``--resume`` without a journal continues from the answered items there)."""
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
        return Earlier()
    if jpath.exists():
        return _from_journal(jpath, identity, config.resume_force)
    if output.exists():
        return _from_results(output, identity, config.resume_force)
    return Earlier()


def open_journal(output: Path, header: dict[str, Any], earlier: Earlier) -> Journal:
    """The run's journal: appended to (with the new identity line after a forced resume), or
    new and holding the kept records of a resumed results file."""
    journal = Journal(journal_path(output), header, append=earlier.append)
    if earlier.append and earlier.forced:
        journal.write_line({"type": "identity", "identity": header["identity"],
                            "run_id": header["run_id"], "forced_over": [f for f, _, _ in
                            earlier.forced]})  # fmt: skip
    if not earlier.append:
        for record in earlier.records.values():
            journal.append(record)
    return journal
