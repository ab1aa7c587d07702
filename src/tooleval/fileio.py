"""The one module that reads and writes tooleval's files: JSON, JSONL and atomic replacement.

- ``dumps`` is the one JSON encoder: readable UTF-8 (non-ASCII kept), strict (``NaN`` and
  ``Infinity`` refused), safe for lone surrogates in model output (kept as ``\\uXXXX``
  escapes, which read back to the same string), and it masks known secrets in every string
  (``tooleval.redaction``), as ``write_text_atomic`` does for text.
- ``write_text_atomic`` / ``write_bytes_atomic`` / ``write_json_atomic`` replace a file in one
  step: a uniquely named temporary file in the same folder, fsynced, then ``os.replace``. A
  reader sees the old file or the new one, never half of one; a failure keeps the old file.
- ``append_jsonl`` appends one line and forces it to disk (append-only results, journals).
- ``read_json`` / ``iter_jsonl`` / ``iter_jsonl_text`` decode strictly (``NaN`` refused) and name
  the file and line of any problem (``FILE:LINE: message``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from tooleval.redaction import known, mentions_secret, redact, redact_json

__all__ = [
    "JsonFileError",
    "JsonlError",
    "append_jsonl",
    "dumps",
    "iter_jsonl",
    "iter_jsonl_text",
    "loads",
    "package_json",
    "package_text",
    "read_json",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_text_atomic",
]

StrPath = str | os.PathLike[str]

_TEMP_PREFIX = ".{name}."
_TEMP_SUFFIX = ".tmp"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# --- encoding -------------------------------------------------------------------------------


def dumps(obj: Any, *, indent: int | None = None) -> str:
    """``obj`` as strict JSON text; ValueError for NaN/Infinity, TypeError for non-JSON values.
    Known secrets in any string are masked (``tooleval.redaction``)."""
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, indent=indent)
    secrets = known()
    if secrets and mentions_secret(text, secrets):
        redacted = redact_json(obj, secrets)
        text = json.dumps(redacted, ensure_ascii=False, allow_nan=False, indent=indent)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# --- decoding -------------------------------------------------------------------------------


class JsonFileError(ValueError):
    """A file (or text) that is not the JSON it should be. ``str()`` is ``SOURCE:LINE: message``."""

    def __init__(self, source: StrPath, line: int, message: str) -> None:
        super().__init__(source, line, message)
        self.path = os.fspath(source)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class JsonlError(JsonFileError):
    """A line of a JSONL file that is not one JSON object."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(text: str, source: StrPath = "<text>") -> Any:
    """Strict JSON decoding of a whole document; errors name ``source`` and the line."""
    try:
        return json.loads(text.removeprefix("\ufeff"), parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise JsonFileError(
            source, error.lineno, f"invalid JSON: {error.msg} (column {error.colno})"
        ) from None
    except (ValueError, RecursionError) as error:
        raise JsonFileError(source, 1, f"invalid JSON: {error}") from None


def package_text(package: str, *parts: str) -> str:
    """A UTF-8 data file shipped inside ``package`` (``importlib.resources``; works in a wheel)."""
    return resources.files(package).joinpath(*parts).read_text(encoding="utf-8")


def package_json(package: str, *parts: str) -> Any:
    """A JSON data file shipped inside ``package``, decoded strictly; errors name the file."""
    return loads(package_text(package, *parts), "/".join(parts))


def read_json(path: StrPath) -> Any:
    """The JSON document in ``path`` (UTF-8), parsed once; errors name the file and line."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise JsonFileError(path, line, f"not valid UTF-8 (byte {error.start + 1})") from None
    return loads(text, path)


def _decode_line(source: StrPath, number: int, text: str) -> dict[str, Any] | None:
    """One line's object, None for a blank line; ``JsonlError`` for anything else."""
    if number == 1:
        text = text.removeprefix("\ufeff")
    if not text.strip():
        return None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise JsonlError(
            source, number, f"invalid JSON: {error.msg} (column {error.colno})"
        ) from None
    except (ValueError, RecursionError) as error:
        raise JsonlError(source, number, f"invalid JSON: {error}") from None
    if not isinstance(value, dict):
        raise JsonlError(source, number, f"expected a JSON object, got {type(value).__name__}")
    return value


def iter_jsonl_text(text: str, source: StrPath) -> Iterator[tuple[int, dict[str, Any]]]:
    """``iter_jsonl`` for JSONL already in memory (e.g. package data); ``source`` names it."""
    for number, line in enumerate(text.splitlines(), start=1):
        value = _decode_line(source, number, line)
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
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                message = f"not valid UTF-8 (byte {error.start + 1})"
                raise JsonlError(path, number, message) from None
            value = _decode_line(path, number, text)
            if value is not None:
                yield number, value


# --- writing --------------------------------------------------------------------------------


def write_bytes_atomic(path: StrPath, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (unique temp file, fsync, ``os.replace``).

    Temporary files left by an earlier write to ``path`` that was killed before its rename
    are removed after a successful write. Missing parent folders are created.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = _TEMP_PREFIX.format(name=target.name)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=_TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), _default_mode())
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    remove_stale_temps(target)


def write_text_atomic(path: StrPath, text: str) -> None:
    """``write_bytes_atomic`` for UTF-8 text, with known secrets masked."""
    if mentions_secret(text):
        text = redact(text)
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: StrPath, obj: Any, *, indent: int | None = 1) -> None:
    """Write ``obj`` as JSON (plus a final newline) so readers see the old file or the new one.

    Serialisation happens before anything touches the disk, so a value that is not JSON
    (``TypeError``/``ValueError``, e.g. ``NaN``) leaves the old file as it was.
    """
    write_text_atomic(path, dumps(obj, indent=indent) + "\n")


def append_jsonl(path: StrPath, obj: Any) -> None:
    """Append ``obj`` as one JSON line to ``path`` (created if missing), flushed and fsynced."""
    line = (dumps(obj) + "\n").encode("utf-8")
    with open(path, "ab") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def _default_mode() -> int:
    """The mode a plain ``open(..., "w")`` would give (0666 less the umask); mkstemp uses 0600."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def remove_stale_temps(target: Path) -> None:
    """Delete ``target``'s leftover temporary files (``.NAME.XXXXXXXX.tmp``, mkstemp's names)."""
    pattern = re.compile(re.escape(_TEMP_PREFIX.format(name=target.name)) + r"[a-z0-9_]{8}\.tmp")
    for stale in target.parent.iterdir():
        if pattern.fullmatch(stale.name):
            with contextlib.suppress(OSError):
                stale.unlink()
