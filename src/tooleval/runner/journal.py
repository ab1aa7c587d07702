"""The append-only journal of a run: every answer is on disk the moment it arrives.

Line 1 is a header (the run identity: everything that can change an answer, see
``runner.identity``); every further line is one ItemRecord, or the identity of a run forced
onto this journal with ``--resume-force``. The journal is read as bytes: a torn last line (the
process was killed mid-write, perhaps inside a UTF-8 character) is dropped on resume; a bad
line anywhere else is an error naming the file and line.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tooleval.fileio import JsonFileError, dumps, loads
from tooleval.runner.records import ItemRecord, RecordError, item_from_json


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
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o666)  # never through a link
        self._handle: IO[str] = os.fdopen(fd, "a" if append else "w", encoding="utf-8")
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

    def write_line(self, obj: dict[str, Any]) -> None:
        """Any other line (the identity of a run forced onto this journal)."""
        with self._lock:
            self._write(obj)

    def close(self) -> None:
        with self._lock:
            try:
                self._handle.close()
            except OSError:
                if self._failed is None:
                    raise  # a failed write was already reported; closing cannot add to it


@dataclass(frozen=True)
class JournalContents:
    """What a journal holds: its header, the header lines of runs forced onto it later
    (``--resume-force``), the item records (the last line per item wins), and whether its
    last line was torn (the process was killed while writing it)."""

    header: dict[str, Any]
    records: list[ItemRecord]
    identities: list[dict[str, Any]] = field(default_factory=list)
    torn: bool = False


def _line(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    """One journal line as an object; JournalError naming ``FILE:LINE`` otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JournalError(
            f"{path}:{number}: unreadable journal line (not UTF-8 at byte {exc.start + 1})"
        ) from None
    try:
        row = loads(text, path)
    except JsonFileError as exc:
        raise JournalError(f"{path}:{number}: unreadable journal line ({exc.message})") from None
    if not isinstance(row, dict):
        raise JournalError(f"{path}:{number}: unreadable journal line (not a JSON object)")
    return row


def read_journal(path: Path) -> JournalContents:
    """Read a journal as bytes, line by line. A last line without its newline is torn (a kill
    in mid-write, perhaps inside a UTF-8 character) and dropped unless it is a whole record;
    any other bad line is a JournalError naming ``FILE:LINE``."""
    lines = path.read_bytes().split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    header: dict[str, Any] | None = None
    identities: list[dict[str, Any]] = []
    records: dict[tuple[str, int], ItemRecord] = {}
    numbered = list(enumerate([*lines, tail] if tail else lines, start=1))
    torn = False
    for number, raw in numbered:
        try:
            row = _line(path, number, raw)
            kind = row.get("type")
            if number == 1 and kind != "header":
                raise JournalError(f"{path}:1: the journal does not start with its header line")
            if kind == "header" and number == 1:
                header = row
            elif kind == "identity":
                identities.append(row)
            elif kind == "item":
                record = item_from_json(row)
                records[record.key] = record
            else:
                raise JournalError(f"{path}:{number}: unreadable journal line (type {kind!r})")
        except (JournalError, RecordError) as exc:
            if tail and number == len(numbered):
                torn = True  # the last line of an interrupted write
                break
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"{path}:{number}: unreadable journal line ({exc})") from None
    if header is None:
        raise JournalError(f"{path}:1: journal has no header line")
    return JournalContents(header, list(records.values()), identities, torn)


def holds_nothing(path: Path) -> bool:
    """Whether the journal has no complete line (killed before its header was written)."""
    return b"\n" not in path.read_bytes()


def trim_torn_tail(path: Path) -> None:
    """Make the file end on a line boundary so appends start on a fresh line: a torn last
    line is cut, a whole last record without its newline gets one."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    tail = data[data.rfind(b"\n") + 1 :]
    try:
        item_from_json(loads(tail.decode("utf-8")))
    except (UnicodeDecodeError, JsonFileError, RecordError):
        path.write_bytes(data[: len(data) - len(tail)])
    else:
        with path.open("ab") as handle:
            handle.write(b"\n")
