"""A fork server for crash tests: ``python driver.py`` imports tooleval once, then runs each
``tooleval`` command it is sent in a freshly forked child process, so a test can start many
short runs (and SIGKILL them) without paying the interpreter and SDK start-up every time.

Protocol, one JSON line per message: the parent sends ``{"argv": [...], "env": {...},
"stdout": PATH, "stderr": PATH}``; the server forks, answers ``{"pid": PID}``, waits for the
child and answers ``{"status": WAITSTATUS}``. The child applies ``env`` to ``os.environ``,
sends its output to the two files and exits with ``tooleval``'s exit code.

The environment may install at most one pause point, so the parent can SIGKILL the run at an
exact place:

- ``TOOLEVAL_PAUSE=journal:N`` pauses when journal line N (counted from 0 in this process; 0
  is the header of a new journal) is fsynced, after cutting that line in half: a torn line,
  as a kill in the middle of the write leaves it.
- ``TOOLEVAL_PAUSE=results-fsync`` pauses inside the atomic write of the results file after
  the temporary file was written, before it is fsynced and renamed.
- ``TOOLEVAL_PAUSE=results-replace`` pauses just before the temporary file replaces the
  results file.

A pause creates the file named by ``TOOLEVAL_MARKER`` and sleeps until killed. Pause points
hook only public seams (``os.fsync``, ``os.replace``), never tooleval's internals.
``TOOLEVAL_FSIZE=BYTES`` caps the size of every file the child writes (RLIMIT_FSIZE), so a
write past the cap fails half-way, as on a full disk.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Any


def pause() -> None:
    Path(os.environ["TOOLEVAL_MARKER"]).touch()
    while True:
        time.sleep(60)


def path_of(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


def tear_last_line(fd: int) -> None:
    """Cut the last line of the file behind ``fd`` in half (a write killed half-way)."""
    with open(path_of(fd), "rb") as handle:
        data = handle.read()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    os.ftruncate(fd, start + (len(data) - start) // 2)


def pause_journal_line(target: int) -> None:
    real_fsync = os.fsync
    state = {"line": 0}

    def fsync(fd: int) -> None:
        if path_of(fd).endswith(".journal.jsonl"):
            if state["line"] == target:
                tear_last_line(fd)
                pause()
            state["line"] += 1
        real_fsync(fd)

    os.fsync = fsync


def pause_in_results(point: str) -> None:
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        if point == "results-fsync" and path_of(fd).endswith(".tmp"):
            pause()
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        if point == "results-replace" and str(src).endswith(".tmp"):
            pause()
        real_replace(src, dst)

    os.fsync = fsync
    os.replace = replace


def install() -> None:
    point = os.environ.get("TOOLEVAL_PAUSE", "")
    if point.startswith("journal:"):
        pause_journal_line(int(point.split(":", 1)[1]))
    elif point.startswith("results-"):
        pause_in_results(point)
    size = os.environ.get("TOOLEVAL_FSIZE")
    if size:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(size), int(size)))


def child(request: dict[str, Any]) -> int:
    from tooleval.cli import main

    os.environ.update(request.get("env") or {})
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignores it
    for fd, key in ((1, "stdout"), (2, "stderr")):
        target = os.open(request[key], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    install()
    try:
        code = main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def serve() -> None:
    import tooleval.cli
    import tooleval.providers.openai_compat  # the slow import, done once
    from tooleval.suites import load_suite

    tooleval.cli.build_parser()  # imports every command module
    load_suite("infranode")

    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                code = child(request)
            finally:
                os._exit(code)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": status}), flush=True)


if __name__ == "__main__":
    serve()
