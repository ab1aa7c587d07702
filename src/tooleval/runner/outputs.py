"""Where a run writes: one run at a time per results file, and never through a link.

- ``run_lock`` holds an exclusive lock (``flock``) on ``.NAME.lock`` beside the results file
  for the whole run: a second run on the same results file stops at once with a clear error
  instead of mixing its answers into the first one's journal. The lock is released when the
  process ends, however it ends (a killed run never leaves a stale lock).
- ``check_output`` refuses a results file or journal that is a symbolic link (a planted link
  would make a run overwrite another file), a results path that is a folder, and a parent
  that is not a folder, each with one line naming the path. Folders on the way may be links.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking
    fcntl = None  # type: ignore[assignment]

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class OutputError(ValueError):
    """A results path a run must not write to; the message names it."""


def lock_path(output: Path) -> Path:
    return output.with_name(f".{output.name}.lock")


def check_output(output: Path, *others: Path) -> None:
    """OutputError when ``output`` (or any of ``others``, e.g. its journal) cannot be written
    safely: a symbolic link, a folder, or under something that is not a folder."""
    for parent in (output.parent, *output.parents):
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"{output}: {parent} is not a folder")
            break
    if output.is_dir():
        raise OutputError(f"{output} is a folder; --output needs a file name")
    for path in (output, *others):
        if path.is_symlink():
            raise OutputError(
                f"{path} is a symbolic link; tooleval does not write through links "
                "(give the real path as --output)"
            )


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
    except OSError:
        return False


@contextlib.contextmanager
def run_lock(output: Path, *others: Path) -> Iterator[None]:
    """Hold the results file's lock for the duration (see the module docstring)."""
    check_output(output, *others)
    output.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover
        yield
        return
    path = lock_path(output)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise OutputError(
                f"{output} is being written by another run (process {holder}); wait for it "
                "to end or give another --output"
            ) from None
        if _same_file(fd, path):
            break
        os.close(fd)  # the file was removed by a run that just ended: lock the new one
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)
