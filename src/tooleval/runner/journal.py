"""The append-only journal of a run: every answer is on disk the moment it arrives.

Line 1 is a header (config, suite name, version and tools hash); every further line is one
ItemRecord. A torn last line (the process was killed mid-write) is ignored on resume; a bad
line anywhere else is an error naming the file and line.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO, Any

from tooleval.fileio import JsonFileError, dumps, loads
from tooleval.runner.records import ItemRecord, item_from_json


class JournalError(ValueError):
    """A journal that cannot be used; the message names the file and line."""


def journal_path(output: Path) -> Path:
    return output.with_name(output.stem + ".journal.jsonl")


class Journal:
    """Thread-safe appender: one JSON line per record, flushed and fsynced.

    After a failed write (a full disk) every further append fails too, so a torn line can
    only ever be the last one, which resume ignores.
    """

    def __init__(self, path: Path, header: dict[str, Any], *, append: bool) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._failed: OSError | None = None
        self._handle: IO[str] = path.open("a" if append else "w", encoding="utf-8")
        if not append:
            try:
                self._write({"type": "header", **header})
            except OSError:
                self.close()
                raise

    def _write(self, obj: dict[str, Any]) -> None:
        if self._failed is not None:
            raise self._failed
        try:
            self._handle.write(dumps(obj) + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as error:
            self._failed = error
            raise

    def append(self, record: ItemRecord) -> None:
        with self._lock:
            self._write({"type": "item", **record.to_json()})

    def close(self) -> None:
        with self._lock:
            try:
                self._handle.close()
            except OSError:
                if self._failed is None:
                    raise  # a failed write was already reported; closing cannot add to it


def read_journal(path: Path) -> tuple[dict[str, Any], list[ItemRecord]]:
    """The header and the item records of a journal (last record per item wins)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header: dict[str, Any] | None = None
    records: dict[tuple[str, int], ItemRecord] = {}
    for number, line in enumerate(lines, start=1):
        try:
            row = loads(line, path)
            if row.get("type") == "header":
                header = row
            else:
                record = item_from_json(row)
                records[record.key] = record
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if number == len(lines):
                break  # torn final line from an interrupted write
            detail = exc.message if isinstance(exc, JsonFileError) else exc
            raise JournalError(f"{path}:{number}: unreadable journal line ({detail})") from None
    if header is None:
        raise JournalError(f"{path}:1: journal has no header line")
    return header, list(records.values())


def holds_nothing(path: Path) -> bool:
    """Whether the journal has no complete line (killed before its header was written)."""
    return b"\n" not in path.read_bytes()


def trim_torn_tail(path: Path) -> None:
    """Cut an incomplete final line so appends start on a fresh line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])
