"""The test side of ``driver.py``: start ``tooleval`` runs in forked children and kill them."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

DRIVER = Path(__file__).with_name("driver.py")


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll ``condition`` until it holds; AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.002)


@dataclass
class Child:
    pid: int
    server: ForkServer
    stderr_path: Path
    exit_code: int | None = None

    def kill(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):  # it had already finished
            os.kill(self.pid, sig)

    def alive(self) -> bool:
        """Whether the process still runs (the fork server reaps it as soon as it ends)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def wait(self) -> int:
        if self.exit_code is None:
            self.exit_code = self.server.read_status()
        return self.exit_code

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


class ForkServer:
    """One long-lived ``driver.py`` process; ``start`` forks a ``tooleval`` run from it."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.count = 0
        self.proc = subprocess.Popen(
            [sys.executable, str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()

    def _read(self) -> dict[str, int]:
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        line = stdout.readline()
        if not line:
            raise AssertionError("the fork server died")
        answer: dict[str, int] = json.loads(line)
        return answer

    def read_status(self) -> int:
        return os.waitstatus_to_exitcode(self._read()["status"])

    def start(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> Child:
        self.count += 1
        out = self.log_dir / f"run{self.count}.out"
        err = self.log_dir / f"run{self.count}.err"
        request = {
            "argv": list(argv),
            "env": dict(env or {}),
            "stdout": str(out),
            "stderr": str(err),
        }
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return Child(self._read()["pid"], self, err)

    def run(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> Child:
        child = self.start(argv, env)
        child.wait()
        return child
