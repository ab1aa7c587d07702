"""Crash and resume: ``tooleval run`` killed with SIGKILL at many points, then ``--resume``.

Each run is a real ``tooleval run`` in its own (forked) process against a deterministic
loopback server, so its final results can be compared with an uninterrupted run. After every
kill all files must be readable (a torn last journal line aside); after the final resume the
results must equal the uninterrupted run's, with no item lost or duplicated.
See docs/reliability.md for the figures.
"""

from __future__ import annotations

import json
import random
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reliability.forkrun import Child, ForkServer, wait_for
from servers.gold_server import Fault, GoldServer
from tooleval.runner.journal import journal_path

LIMIT = 48
VOLATILE = ("started_at", "finished_at")
VOLATILE_CONFIG = ("resume", "fresh", "output", "max_requests")


@pytest.fixture(scope="module")
def server() -> Iterator[GoldServer]:
    with GoldServer() as gold:
        yield gold


@pytest.fixture(scope="module")
def forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    with ForkServer(tmp_path_factory.mktemp("logs")) as fork_server:
        yield fork_server


@pytest.fixture
def reset_hook(server: GoldServer) -> Iterator[None]:
    yield
    server.hook = None


def argv(server: GoldServer, out: Path, *extra: str, repeats: int = 1) -> list[str]:
    return [
        "run", "--backend", "openai", "--base-url", server.base_url, "--model", "gold",
        "--limit", str(LIMIT // repeats), "--repeats", str(repeats), "--concurrency", "4",
        "--max-retries", "0", "--output", str(out), *extra,
    ]  # fmt: skip


_REFERENCES: dict[int, dict[str, Any]] = {}


def reference(
    forks: ForkServer, server: GoldServer, tmp_path: Path, repeats: int = 1
) -> dict[str, Any]:
    """The results of an uninterrupted run (computed once per number of repeats)."""
    if repeats not in _REFERENCES:
        out = tmp_path / "reference" / "ref.json"
        assert forks.run(argv(server, out, repeats=repeats)).wait() == 0
        _REFERENCES[repeats] = comparable(json.loads(out.read_text()))
    return _REFERENCES[repeats]


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A results document without the fields that legitimately differ between runs."""
    doc = {k: v for k, v in document.items() if k not in VOLATILE}
    doc["config"] = {k: v for k, v in doc["config"].items() if k not in VOLATILE_CONFIG}
    doc["items"] = [{k: v for k, v in i.items() if k != "latency_s"} for i in doc["items"]]
    return doc


def journaled(out: Path) -> int:
    """Complete item lines in the journal of ``out``."""
    path = journal_path(out)
    return max(0, path.read_text().count("\n") - 1) if path.exists() else 0


def check_files_after_kill(folder: Path) -> None:
    """Every results file is valid JSON; every journal line is, except a torn last one."""
    for path in folder.iterdir() if folder.exists() else ():
        if path.suffix == ".json":
            json.loads(path.read_text())
        elif path.name.endswith(".jsonl"):
            lines = path.read_text().split("\n")
            for line in lines[:-1]:
                json.loads(line)
        else:  # a write cut short, or the lock of the killed run (released by the kill)
            assert path.name.endswith((".tmp", ".lock")), f"unexpected file {path.name}"


def check_final(out: Path, expected: dict[str, Any]) -> None:
    """The finished run equals the uninterrupted one; no stray, duplicated or lost record."""
    assert [p.name for p in out.parent.glob("*.tmp")] == []
    assert [p.name for p in out.parent.glob(".*.lock")] == []  # the last run removed it
    document = json.loads(out.read_text())
    assert comparable(document) == expected
    keys = [(i["task_id"], i["repeat"]) for i in document["items"]]
    assert len(keys) == len(set(keys)) == document["counts"]["planned"]
    rows = [json.loads(line) for line in journal_path(out).read_text().splitlines()]
    assert rows[0]["type"] == "header" and all(r["type"] == "item" for r in rows[1:])
    journaled = [(r["task_id"], r["repeat"]) for r in rows[1:]]
    assert sorted(journaled) == sorted(keys)


def resume_to_the_end(forks: ForkServer, server: GoldServer, out: Path, repeats: int = 1) -> None:
    child = forks.run(argv(server, out, "--resume", repeats=repeats))
    assert child.wait() == 0, child.stderr


@pytest.mark.usefixtures("reset_hook")
@pytest.mark.parametrize("repeats", [1, 2])
def test_sigkill_when_the_nth_request_arrives(
    forks: ForkServer, server: GoldServer, tmp_path: Path, repeats: int
) -> None:
    expected = reference(forks, server, tmp_path, repeats)
    out = tmp_path / "run" / "r.json"
    rng = random.Random(1000 + repeats)
    killed = 0
    for step in range(4):
        number = rng.randint(1, LIMIT - journaled(out) - 1)
        first = server.requests
        started = threading.Event()
        box: dict[str, Child] = {}

        def hook(
            seen: int,
            _: str,
            first: int = first,
            number: int = number,
            started: threading.Event = started,
            box: dict[str, Child] = box,
        ) -> None:
            if seen - first == number:
                started.wait(10)
                box["child"].kill(signal.SIGKILL)

        server.hook = hook
        resume = ("--resume",) if step else ()
        box["child"] = forks.start(argv(server, out, *resume, repeats=repeats))
        started.set()
        killed += box["child"].wait() == -signal.SIGKILL
        server.hook = None
        check_files_after_kill(out.parent)
    assert killed == 4
    resume_to_the_end(forks, server, out, repeats)
    check_final(out, expected)


@pytest.mark.usefixtures("reset_hook")
def test_sigkill_after_n_journal_lines(
    forks: ForkServer, server: GoldServer, tmp_path: Path
) -> None:
    expected = reference(forks, server, tmp_path)
    out = tmp_path / "run" / "j.json"
    journal = journal_path(out)

    def lines() -> int:
        return journal.read_text().count("\n") if journal.exists() else 0

    killed = 0
    for step, target in enumerate((1, 9, 17, 30, 41)):
        child = forks.start(argv(server, out, *(("--resume",) if step else ())))
        wait_for(lambda t=target, c=child: lines() >= t or child_done(c))  # type: ignore[misc]
        child.kill(signal.SIGKILL)
        killed += child.wait() == -signal.SIGKILL
        check_files_after_kill(out.parent)
    assert killed >= 4  # a run may finish between the last check and the kill
    resume_to_the_end(forks, server, out)
    check_final(out, expected)


def child_done(child: Child) -> bool:
    return child.stderr_path.exists() and "results:" in child.stderr


@pytest.mark.usefixtures("reset_hook")
def test_sigkill_at_random_times(forks: ForkServer, server: GoldServer, tmp_path: Path) -> None:
    expected = reference(forks, server, tmp_path)
    out = tmp_path / "run" / "t.json"
    rng = random.Random(7)
    killed = 0
    for step in range(4):
        child = forks.start(argv(server, out, *(("--resume",) if step else ())))
        timer = threading.Timer(rng.uniform(0.0, 0.25), child.kill, (signal.SIGKILL,))
        timer.start()
        code = child.wait()
        timer.join()
        assert code in (0, -signal.SIGKILL)
        killed += code == -signal.SIGKILL
        check_files_after_kill(out.parent)
    assert killed >= 1
    resume_to_the_end(forks, server, out)
    check_final(out, expected)


def wait_paused(child: Child, marker: Path) -> None:
    """Wait until the child reached its pause point (fails if it exits instead)."""
    wait_for(lambda: marker.exists() or not child.alive())
    assert marker.exists(), child.stderr


PAUSES = (
    "journal:0",  # the header of a new journal, torn
    "journal:3",  # an item line, torn
    "journal:20",
    "results-fsync",  # inside the atomic write of the results file
    "results-replace",
)


@pytest.mark.usefixtures("reset_hook")
def test_sigkill_inside_journal_and_results_writes(
    forks: ForkServer, server: GoldServer, tmp_path: Path
) -> None:
    expected = reference(forks, server, tmp_path)
    out = tmp_path / "run" / "w.json"
    marker = tmp_path / "paused"
    for step, point in enumerate(PAUSES):
        env = {"TOOLEVAL_PAUSE": point, "TOOLEVAL_MARKER": str(marker)}
        child = forks.start(argv(server, out, *(("--resume",) if step else ())), env)
        wait_paused(child, marker)
        child.kill(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        marker.unlink()
        check_files_after_kill(out.parent)
        assert not out.exists()  # never written: every kill came before the first rename
    resume_to_the_end(forks, server, out)
    check_final(out, expected)


@pytest.mark.usefixtures("reset_hook")
def test_sigkill_while_replacing_keeps_the_previous_results(
    forks: ForkServer, server: GoldServer, tmp_path: Path
) -> None:
    expected = reference(forks, server, tmp_path)
    out = tmp_path / "run" / "p.json"
    assert forks.run(argv(server, out, "--max-requests", "10")).wait() == 3
    before = out.read_bytes()
    marker = tmp_path / "paused"
    for point in ("results-fsync", "results-replace"):
        env = {"TOOLEVAL_PAUSE": point, "TOOLEVAL_MARKER": str(marker)}
        child = forks.start(argv(server, out, "--resume"), env)
        wait_paused(child, marker)
        child.kill(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        marker.unlink()
        assert out.read_bytes() == before  # the earlier, incomplete results survive intact
        check_files_after_kill(out.parent)
    resume_to_the_end(forks, server, out)
    check_final(out, expected)


@pytest.mark.usefixtures("reset_hook")
def test_sigint_stops_cleanly_and_says_how_to_resume(
    forks: ForkServer, server: GoldServer, tmp_path: Path
) -> None:
    expected = reference(forks, server, tmp_path)
    out = tmp_path / "run" / "i.json"
    first = server.requests
    started = threading.Event()
    box: dict[str, Child] = {}

    def hook(seen: int, _: str) -> None:
        if seen - first == 12:
            started.wait(10)
            box["child"].kill(signal.SIGINT)

    server.hook = hook
    box["child"] = child = forks.start(argv(server, out))
    started.set()
    assert child.wait() == 130
    server.hook = None
    message = " ".join(child.stderr.split())
    assert "interrupted" in message and "--resume" in message and "Traceback" not in message
    document = json.loads(out.read_text())
    assert document["complete"] is False and document["stop_reason"] == "interrupted"
    rows = [json.loads(line) for line in journal_path(out).read_text().splitlines()]
    counts = document["counts"]
    # Every journal line is in the results: answered, or (a request cut by the interrupt) an error.
    assert len(rows) - 1 == counts["answered"] + counts["errors"]
    assert counts["answered"] >= 8
    resume_to_the_end(forks, server, out)
    check_final(out, expected)


@pytest.mark.usefixtures("reset_hook")
def test_sigint_during_a_long_retry_wait_stops_at_once(
    forks: ForkServer, server: GoldServer, tmp_path: Path
) -> None:
    """Ctrl-C while every worker waits out a 10-minute Retry-After ends the run right away."""
    out = tmp_path / "run" / "b.json"
    box: dict[str, Child] = {}
    started = threading.Event()

    def hook(seen: int, _: str) -> None:
        if not started.is_set():
            started.set()
            threading.Timer(0.3, lambda: box["child"].kill(signal.SIGINT)).start()

    server.hook = hook
    wait = Fault(429, {"error": {"message": "slow"}}, {"retry-after": "600"})
    server.fault = lambda number, _: wait
    box["child"] = child = forks.start(argv(server, out, "--max-retries", "3"))
    watchdog = threading.Timer(30, child.kill, (signal.SIGKILL,))
    watchdog.start()
    try:
        code = child.wait()
    finally:
        watchdog.cancel()
        server.fault = None
    assert code == 130
    document = json.loads(out.read_text())
    assert document["stop_reason"] == "interrupted" and document["counts"]["answered"] == 0
