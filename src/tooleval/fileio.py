"""Atomic file writes: a reader never sees a half-written file, a failure keeps the old one."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

_TEMP_PREFIX = ".{name}."
_TEMP_SUFFIX = ".tmp"


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and ``os.replace``.

    Temporary files left by an earlier write to ``path`` that was killed before its rename
    are removed after a successful write.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    prefix = _TEMP_PREFIX.format(name=target.name)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=_TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), _default_mode())
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    remove_stale_temps(target)


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
