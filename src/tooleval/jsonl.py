"""Small, strict JSON/JSONL file helpers shared by every part of tooleval.

- ``iter_jsonl`` reads one JSON object per line and names the file and line of any problem.
- ``write_json_atomic`` replaces a JSON file in one step (temp file + fsync + ``os.replace``).
- ``append_jsonl`` appends one line and forces it to disk (for append-only results files).

Files are UTF-8. Output keeps non-ASCII text readable (``ensure_ascii=False``) and is strict
JSON: ``NaN``/``Infinity`` are refused on both reading and writing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from tooleval.fileio import write_text_atomic

__all__ = ["JsonlError", "append_jsonl", "iter_jsonl", "iter_jsonl_text", "write_json_atomic"]

StrPath = str | os.PathLike[str]


class JsonlError(ValueError):
    """A line of a JSONL file that is not one JSON object. ``str()`` is ``FILE:LINE: message``."""

    def __init__(self, path: StrPath, line: int, message: str) -> None:
        super().__init__(path, line, message)
        self.path = os.fspath(path)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _decode_line(path: StrPath, number: int, raw: bytes) -> dict[str, Any] | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonlError(path, number, f"not valid UTF-8 (byte {error.start + 1})") from None
    return _decode_text(path, number, text)


def _decode_text(path: StrPath, number: int, text: str) -> dict[str, Any] | None:
    """One line's object, None for a blank line; ``JsonlError`` for anything else."""
    if number == 1:
        text = text.removeprefix("\ufeff")
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise JsonlError(
            path, number, f"invalid JSON: {error.msg} (column {error.colno})"
        ) from None
    except (ValueError, RecursionError) as error:
        raise JsonlError(path, number, f"invalid JSON: {error}") from None
    if not isinstance(value, dict):
        raise JsonlError(path, number, f"expected a JSON object, got {type(value).__name__}")
    return value


def iter_jsonl_text(text: str, source: StrPath) -> Iterator[tuple[int, dict[str, Any]]]:
    """``iter_jsonl`` for JSONL already in memory (e.g. package data); ``source`` names it."""
    for number, line in enumerate(text.splitlines(), start=1):
        value = _decode_text(source, number, line)
        if value is not None:
            yield number, value


def iter_jsonl(path: StrPath) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a UTF-8 JSONL file.

    Line numbers start at 1 and count blank lines, so they match an editor. A line that is not
    a JSON object (bad JSON, bad UTF-8, ``NaN``, a list) raises ``JsonlError`` when reached;
    lines before it have already been yielded. A missing file raises ``OSError`` as usual.
    """
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            value = _decode_line(path, number, raw)
            if value is not None:
                yield number, value


def _dumps(obj: Any, indent: int | None = None) -> bytes:
    """UTF-8 JSON; text with lone surrogates (not encodable) falls back to ASCII escapes."""
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, indent=indent)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, ensure_ascii=True, allow_nan=False, indent=indent).encode("ascii")


def write_json_atomic(path: StrPath, obj: Any, *, indent: int | None = 2) -> None:
    """Write ``obj`` as JSON to ``path`` so readers see the old file or the new one, never half.

    Serialisation happens before anything touches the disk, so a value that is not JSON
    (``TypeError``/``ValueError``, e.g. ``NaN``) leaves the old file as it was. Missing parent
    folders are created.
    """
    write_text_atomic(path, _dumps(obj, indent).decode("utf-8") + "\n")


def append_jsonl(path: StrPath, obj: Any) -> None:
    """Append ``obj`` as one JSON line to ``path`` (created if missing), flushed and fsynced."""
    line = _dumps(obj) + b"\n"
    with open(path, "ab") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
