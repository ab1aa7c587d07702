"""Bad input: malformed task, tool, script, journal and results files, unknown names, an
unwritable output folder and a full disk. Each gives one clear line naming the file, line or
field (no traceback), and nothing already written is lost or corrupted.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reliability.forkrun import ForkServer
from tooleval.cli import main
from tooleval.fileio import JsonlError, iter_jsonl
from tooleval.runner.journal import journal_path
from tooleval.runner.results import load_results
from tooleval.suites import load_suite, tool_specs_from_json
from tooleval.tasks import TaskFormatError, iter_jsonl_text, task_from_json

SUITE = load_suite("infranode")
GOOD_TASK = (
    '{"id": "t1", "category": "c", "question": "Wetter in Bonn?", "suite_version": "1",'
    ' "gold": {"name": "weather", "arguments": {"slug": "bonn"}}}'
)


def load_tasks(text: str, source: str = "tasks.jsonl") -> list[Any]:
    """Tasks as the suite loader reads them (``FILE:LINE`` names every problem)."""
    return [task_from_json(row, f"{source}:{line}") for line, row in iter_jsonl_text(text, source)]


BAD_TASKS = {
    "invalid JSON": ('{"id": "t1",', "tasks.jsonl:2: invalid JSON"),
    "not an object": ("[1, 2]", "tasks.jsonl:2: expected a JSON object"),
    "missing id": (GOOD_TASK.replace('"id": "t1", ', ""), "tasks.jsonl:2: field 'id'"),
    "question not a string": (
        GOOD_TASK.replace('"Wetter in Bonn?"', "42"),
        "tasks.jsonl:2: field 'question'",
    ),
    "gold not an object": (
        GOOD_TASK.split(', "gold"')[0] + ', "gold": "weather"}',
        "tasks.jsonl:2: field 'gold'",
    ),
    "gold without name": (
        GOOD_TASK.replace('"name": "weather", ', ""),
        "tasks.jsonl:2: gold: field 'name'",
    ),
    "arguments not an object": (
        GOOD_TASK.replace('{"slug": "bonn"}', '["bonn"]'),
        "tasks.jsonl:2: gold: field 'arguments'",
    ),
    "alternatives not lists": (
        GOOD_TASK[:-1] + ', "alternatives": {"slug": "bonn"}}',
        "tasks.jsonl:2: field 'alternatives'",
    ),
}


@pytest.mark.parametrize("name", list(BAD_TASKS))
def test_a_malformed_task_line_is_named_by_file_and_line(name: str) -> None:
    line, expected = BAD_TASKS[name]
    with pytest.raises(TaskFormatError) as caught:
        load_tasks(f"{GOOD_TASK}\n{line}\n")
    assert str(caught.value).startswith(expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=60) | st.sampled_from([GOOD_TASK, "{}", "[]", "null"]),
                max_size=6))  # fmt: skip
def test_any_task_file_loads_or_fails_with_its_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    try:
        load_tasks(text)
    except TaskFormatError as error:
        assert str(error).startswith("tasks.jsonl:")
        number = int(str(error).split(":")[1])
        assert 1 <= number <= max(1, len(text.splitlines()))


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        ([{"description": "x"}], "tools.json: tool #0 has no string 'name'"),
        (["weather"], "tools.json: tool #0 has no string 'name'"),
        ([{"name": "weather"}], "tools.json: tool 'weather' has no object 'inputSchema'"),
        ([{"name": "a", "inputSchema": {}}, {"name": "b", "inputSchema": []}], "tool 'b'"),
    ],
)
def test_a_malformed_tool_list_names_the_file_and_tool(tools: list[Any], expected: str) -> None:
    with pytest.raises(ValueError, match=expected):
        tool_specs_from_json(tools, "tools.json")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"a": 1}\n{"a": \n', ":2: invalid JSON"),
        (b'{"a": 1}\n\xff\xfe\n', ":2: not valid UTF-8"),
        (b'{"a": NaN}\n', ":1: invalid JSON"),
        (b"[" * 100_000 + b"\n", ":1: invalid JSON"),
        (b'"text"\n', ":1: expected a JSON object"),
    ],
)
def test_jsonl_files_name_file_and_line(tmp_path: Path, raw: bytes, expected: str) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(raw)
    with pytest.raises(JsonlError) as caught:
        list(iter_jsonl(path))
    assert str(caught.value).startswith(f"{path}{expected}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{\n  "format": \n', ":3: invalid JSON"), ('{"format": "other"}', "not a tooleval")],
)
def test_a_malformed_results_file_is_named(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=expected):
        load_results(path)


def run(*args: str) -> int:
    return main(["run", *args])


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """A fake-backend script answering every task with its gold call."""
    path = tmp_path / "script.jsonl"
    lines = [json.dumps({"task_id": t.id, "text": json.dumps(t.gold.to_json())})
             for t in SUITE.tasks]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def fake_run(script: Path, out: Path, *extra: str) -> int:
    return run("--backend", "fake", "--script", str(script), "--output", str(out), *extra)


def one_clear_line(err: str) -> str:
    assert "Traceback" not in err
    return " ".join(err.split())


SCRIPTS = {
    "not JSON": ('{"text": "a"}\n{"text": \n', "script.jsonl:2: not JSON"),
    "not an object": ('{"text": "a"}\n[1]\n', "script.jsonl:2: expected a JSON object"),
    "unknown field": ('{"txt": "a"}\n', "script.jsonl:1: unknown field(s) txt"),
    "unknown error": ('{"error": "meltdown"}\n', "script.jsonl:1: unknown error 'meltdown'"),
    "two answers": ('{"text": "a", "error": "timeout"}\n', "script.jsonl:1: a fake reply needs"),
    "empty": ("# nothing\n", "script.jsonl: the script has no replies"),
}


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_a_malformed_script_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text, expected = SCRIPTS[name]
    path = tmp_path / "script.jsonl"
    path.write_text(text)
    assert fake_run(path, tmp_path / "o.json", "--limit", "1") == 2
    assert expected in one_clear_line(capsys.readouterr().err)
    assert not (tmp_path / "o.json").exists()


NOWHERE = ["--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--suite", "nope"], "invalid choice: 'nope'"),
        (["--backend", "nope", "--model", "m"], "unknown backend 'nope'"),
        (["--backend", "openai", "--preset", "nope", "--model", "m"], "unknown preset 'nope'"),
        (["--backend", "fake", "--script", "missing.jsonl"], "missing.jsonl"),
        ([*NOWHERE, "--api-key-env", "TOOLEVAL_UNSET_VARIABLE"], "TOOLEVAL_UNSET_VARIABLE"),
        ([*NOWHERE, "--reasoning", "lots"], "reasoning: 'lots'"),
    ],
)
def test_unknown_names_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    try:
        code = run(*args, "--output", str(tmp_path / "o.json"))
    except SystemExit as exit_:  # argparse's own errors
        code = int(exit_.code or 0)
    assert code == 2
    assert expected in one_clear_line(capsys.readouterr().err)


@pytest.mark.parametrize("flag", ["--concurrency", "--repeats", "--max-tokens"])
def test_a_count_below_one_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run("--backend", "fake", flag, "0", "--output", str(tmp_path / "o.json"))
    assert exit_.value.code == 2
    assert f"argument {flag}: must be at least 1" in capsys.readouterr().err


def test_an_output_path_through_a_file_is_a_clear_error(
    script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("a file, not a folder")
    assert fake_run(script, blocker / "r.json", "--limit", "2") == 2
    err = one_clear_line(capsys.readouterr().err)
    assert f"{blocker} is not a folder" in err
    assert blocker.read_text() == "a file, not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_a_read_only_output_folder_is_a_clear_error(
    script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        assert fake_run(script, folder / "r.json", "--limit", "2") == 2
    finally:
        folder.chmod(0o700)
    assert "Permission denied" in one_clear_line(capsys.readouterr().err)


def test_a_corrupt_journal_line_is_named_and_the_journal_kept(
    script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert fake_run(script, out, "--limit", "6", "--max-requests", "4") == 3
    journal = journal_path(out)
    lines = journal.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:40] + "\n"
    journal.write_text("".join(lines))
    before, results_before = journal.read_bytes(), out.read_bytes()
    assert fake_run(script, out, "--limit", "6", "--resume") == 2
    assert f"{journal}:3: unreadable journal line" in one_clear_line(capsys.readouterr().err)
    assert journal.read_bytes() == before and out.read_bytes() == results_before


def test_resuming_another_model_names_the_field(
    script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert fake_run(script, out, "--limit", "3") == 0
    before = journal_path(out).read_bytes()
    assert fake_run(script, out, "--limit", "3", "--resume", "--model", "other") == 2
    err = one_clear_line(capsys.readouterr().err)
    assert "cannot resume" in err and "model 'smollm2-135m-instruct' -> 'other'" in err
    assert journal_path(out).read_bytes() == before


def test_resuming_from_a_corrupt_results_file_names_it(
    script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    out.write_text('{"format": "tooleval-results/1", "items": [')
    assert fake_run(script, out, "--limit", "3", "--resume") == 2
    assert f"{out}:1: invalid JSON" in one_clear_line(capsys.readouterr().err)


def no_space_after(calls: int) -> Callable[[int], None]:
    """An ``os.fsync`` that fails with ENOSPC from call number ``calls`` on."""
    real = os.fsync
    count = {"n": 0}

    def fsync(fd: int) -> None:
        count["n"] += 1
        if count["n"] >= calls:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    return fsync


def comparable(document: dict[str, Any]) -> list[Any]:
    return [{k: v for k, v in i.items() if k != "latency_s"} for i in document["items"]]


def test_a_full_disk_stops_the_run_cleanly_and_resume_finishes_it(
    script: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean = tmp_path / "clean" / "r.json"
    assert fake_run(script, clean, "--limit", "20") == 0
    out = tmp_path / "full" / "r.json"
    assert fake_run(script, out, "--limit", "20", "--max-requests", "5") == 3
    results_before = out.read_bytes()
    monkeypatch.setattr(os, "fsync", no_space_after(6))
    code = fake_run(script, out, "--limit", "20", "--resume", "--concurrency", "3")
    monkeypatch.undo()
    assert code == 2
    err = one_clear_line(capsys.readouterr().err)
    assert "No space left on device" in err and "--resume" in err
    assert out.read_bytes() == results_before  # the atomic write failed: old results kept
    rows = [json.loads(line) for line in journal_path(out).read_text().splitlines()]
    assert len(rows) >= 6
    assert fake_run(script, out, "--limit", "20", "--resume") == 0
    assert comparable(json.loads(out.read_text())) == comparable(json.loads(clean.read_text()))


@pytest.fixture(scope="module")
def forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    with ForkServer(tmp_path_factory.mktemp("logs")) as fork_server:
        yield fork_server


@pytest.mark.parametrize("fraction", [0.05, 0.5, 1.02])
def test_a_write_cut_short_by_a_size_limit_is_recoverable(
    forks: ForkServer, script: Path, tmp_path: Path, fraction: float
) -> None:
    """A real short write (RLIMIT_FSIZE) tears the journal mid-line, or fails the results
    write (fraction > 1); the run stops with a clear error and a resume completes it."""
    clean = tmp_path / "clean" / "r.json"
    args = ["run", "--backend", "fake", "--script", str(script), "--limit", "30"]
    assert forks.run([*args, "--output", str(clean)]).wait() == 0
    journal = journal_path(clean).read_bytes()
    header = journal.index(b"\n") + 1
    cap = header + int(fraction * (len(journal) - header))
    out = tmp_path / "capped" / "r.json"
    child = forks.run([*args, "--output", str(out)], {"TOOLEVAL_FSIZE": str(cap)})
    assert child.wait() == 2, child.stderr
    err = one_clear_line(child.stderr)
    assert "cannot write the results" in err and "File too large" in err
    assert journal_path(out).stat().st_size <= cap
    assert not out.exists() or fraction > 1
    assert forks.run([*args, "--output", str(out), "--resume"]).wait() == 0
    assert comparable(json.loads(out.read_text())) == comparable(json.loads(clean.read_text()))
    assert [p.name for p in out.parent.iterdir()] == [out.name, journal_path(out).name] or sorted(
        p.name for p in out.parent.iterdir()
    ) == sorted([out.name, journal_path(out).name])
