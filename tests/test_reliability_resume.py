"""Results that cannot be mislabelled or mixed: the run identity in the journal and the results
file, ``--resume`` refusing another configuration (naming each differing field), resuming from
a results file alone, ``--resume-force``; journals read as bytes; damaged records refused with
their place; every numeric setting checked by the library too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake, make_mini_suite
from servers import openai_server
from servers.gold_server import GoldServer
from tooleval.cli import main
from tooleval.records import Message
from tooleval.runner import ResumeError, RunConfig, run_suite
from tooleval.runner.journal import journal_path
from tooleval.runner.pacing import BACKOFF_CAP_S, RateLimiter, backoff_delay

LIMIT = 4


@pytest.fixture(scope="module")
def gold() -> Iterator[GoldServer]:
    with GoldServer() as server:
        yield server


def run(gold: GoldServer, out: Path, *extra: str, limit: int = LIMIT) -> int:
    return main(["run", "--backend", "openai", "--base-url", gold.base_url, "--model", "gold",
                 "--limit", str(limit), "--concurrency", "1", "--max-retries", "0",
                 "--output", str(out), *extra])  # fmt: skip


def one_line(err: str) -> str:
    assert "Traceback" not in err
    return " ".join(err.split())


def files(out: Path) -> tuple[bytes, bytes]:
    return out.read_bytes(), journal_path(out).read_bytes()


CHANGES = {
    "max_tokens": ["--max-tokens", "99"],
    "temperature": ["--temperature", "0.7"],
    "reasoning": ["--reasoning", "low"],
    "seed": ["--seed", "7"],
    "mode": ["--mode", "native"],
    "preset": ["--preset", "vllm"],
    "model": ["--model", "other"],
}


@pytest.mark.parametrize("field", list(CHANGES))
def test_resume_refuses_a_setting_that_changes_answers(
    field: str, gold: GoldServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "2") == 3
    before, asked = files(out), gold.requests
    assert run(gold, out, "--resume", *CHANGES[field]) == 2
    err = one_line(capsys.readouterr().err)
    assert "cannot resume" in err and f"{field} " in err and "--resume-force" in err
    assert files(out) == before and gold.requests == asked


def test_resume_refuses_another_backend_and_base_url(
    gold: GoldServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "2") == 3
    before = files(out)
    with openai_server.serve(openai_server.text("x")) as other:
        code = run(gold, out, "--resume", "--base-url", other.base_url)
        assert other.received == []
    assert code == 2
    assert "base_url 'http://127.0.0.1" in one_line(capsys.readouterr().err)
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "x"}\n')
    code = main(["run", "--backend", "fake", "--script", str(script), "--model", "gold",
                 "--limit", str(LIMIT), "--output", str(out), "--resume"])  # fmt: skip
    err = one_line(capsys.readouterr().err)
    assert code == 2 and "backend 'openai' -> 'fake'" in err
    assert files(out) == before


def test_a_trailing_slash_or_upper_case_host_is_the_same_url(
    gold: GoldServer, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "2") == 3
    same = "HTTP" + gold.base_url.removeprefix("http") + "/"
    assert run(gold, out, "--resume", "--base-url", same) == 0


def test_resume_from_a_results_file_alone_continues_from_its_answers(
    gold: GoldServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, limit=3) == 0
    journal_path(out).unlink()
    asked = gold.requests
    assert run(gold, out, "--resume", "--model", "other", limit=5) == 2
    assert "model 'gold' -> 'other'" in one_line(capsys.readouterr().err)
    assert run(gold, out, "--resume", limit=5) == 0
    assert gold.requests - asked == 2  # only the two new items were asked
    document = json.loads(out.read_text())
    assert document["complete"] and document["counts"]["answered"] == 5
    assert {i["run_id"] for i in document["items"]} == {document["run_id"]}


def test_resume_force_records_both_configurations(gold: GoldServer, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "2") == 3
    first = json.loads(out.read_text())
    assert run(gold, out, "--resume-force", "--temperature", "0.7") == 0
    document = json.loads(out.read_text())
    old, new = first["run_id"], document["run_id"]
    assert old != new and document["identity"]["temperature"] == 0.7
    assert document["earlier_identities"] == {old: first["identity"]}
    assert [i["run_id"] for i in document["items"]] == [old, old, new, new]
    rows = [json.loads(line) for line in journal_path(out).read_text().splitlines()]
    assert [r["type"] for r in rows] == ["header", "item", "item", "identity", "item", "item"]
    assert rows[3]["forced_over"] == ["temperature"]
    assert run(gold, out, "--resume", "--temperature", "0.7") == 0  # the latest identity
    assert run(gold, out, "--resume") == 2


def test_a_changed_prompt_is_another_run(tmp_path: Path) -> None:
    suite = make_mini_suite()
    config = RunConfig(model="m", output=tmp_path / "m.json", limit=2)
    run_suite(config, make_fake({"text": "x"}), suite=suite)

    def other_prompt(task: Any, mode: Any) -> Any:
        return (Message("system", "Another system prompt."), Message("user", task.question))

    changed = type(suite)(**{**suite.__dict__, "messages": other_prompt})
    with pytest.raises(ResumeError, match="prompt_hash"):
        run_suite(RunConfig(**{**config.__dict__, "resume": True}), make_fake(), suite=changed)


def test_results_and_journal_carry_the_full_identity(gold: GoldServer, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--temperature", "0.3", "--reasoning", "off") == 0
    document = json.loads(out.read_text())
    header = json.loads(journal_path(out).read_text().splitlines()[0])
    identity = document["identity"]
    assert header["identity"] == identity and header["run_id"] == document["run_id"]
    expected = {"backend": "openai", "base_url": gold.base_url, "model": "gold",
                "mode": "prompt", "max_tokens": 160, "temperature": 0.3, "reasoning": "off",
                "suite": "infranode"}  # fmt: skip
    assert {k: identity[k] for k in expected} == expected
    assert {"suite_version", "tools_hash", "prompt_hash", "preset", "seed"} <= set(identity)
    assert not {"concurrency", "rpm", "limit", "output", "timeout_s"} & set(identity)


# --- journals read as bytes ----------------------------------------------------------------


def test_a_journal_torn_inside_a_utf8_character_resumes(gold: GoldServer, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "2") == 3
    journal = journal_path(out)
    line = journal.read_text().splitlines()[-1].replace('"task_id"', '"note": "Grüße", "task_id"')
    torn = line.encode()[: line.encode().index("ü".encode()) + 1]  # half of "ü"
    journal.write_bytes(journal.read_bytes() + torn)
    assert run(gold, out, "--resume") == 0
    assert json.loads(out.read_text())["counts"]["answered"] == LIMIT
    assert journal.read_bytes().endswith(b"\n")


def test_invalid_utf8_in_a_middle_journal_line_is_named_by_line(
    gold: GoldServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "3") == 3
    journal = journal_path(out)
    lines = journal.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"task_id"', b'"x": "\xff\xfe", "task_id"')
    journal.write_bytes(b"\n".join(lines))
    before = files(out)
    assert run(gold, out, "--resume") == 2
    assert f"{journal}:3: unreadable journal line (not UTF-8" in one_line(capsys.readouterr().err)
    assert files(out) == before


DAMAGE = {
    "score a string": ("score", "perfect", "field 'score'"),
    "score values strings": (
        "score",
        {"parsed": "1", "tool_match": 1, "args_match": 1, "call_match": 1},
        "field 'parsed'",
    ),
    "repeat a float": ("repeat", 0.5, "field 'repeat'"),
    "usage negative": ("usage", {"input_tokens": -3}, "negative"),
    "raw output a list": ("raw_output", ["x"], "field 'raw_output'"),
}


@pytest.mark.parametrize("name", list(DAMAGE))
def test_a_damaged_journal_record_is_named_by_line_and_field(
    name: str, gold: GoldServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    field, value, expected = DAMAGE[name]
    out = tmp_path / "r.json"
    assert run(gold, out, "--max-requests", "3") == 3
    journal = journal_path(out)
    lines = journal.read_text().splitlines()
    record = json.loads(lines[1])
    record[field] = value
    lines[1] = json.dumps(record)
    journal.write_text("\n".join(lines) + "\n")
    before = files(out)
    assert run(gold, out, "--resume") == 2
    err = one_line(capsys.readouterr().err)
    assert f"{journal}:2: unreadable journal line" in err and expected in err
    assert files(out) == before


@pytest.mark.parametrize(
    ("items", "expected"),
    [("abc", "field 'items' is not a list"), ([{"task_id": 5}], "items[0]"), ([7], "items[0]")],
)
def test_a_damaged_results_file_is_named_and_kept(
    items: Any,
    expected: str,
    gold: GoldServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "r.json"
    assert run(gold, out, limit=2) == 0
    journal_path(out).unlink()
    document = json.loads(out.read_text())
    document["items"] = items
    out.write_text(json.dumps(document))
    before = out.read_bytes()
    assert run(gold, out, "--resume", limit=3) == 2
    err = one_line(capsys.readouterr().err)
    assert str(out) in err and expected in err
    assert out.read_bytes() == before and not journal_path(out).exists()


# --- numeric settings -----------------------------------------------------------------------

BAD_SETTINGS = [
    ("limit", 0), ("limit", -1), ("repeats", 0), ("concurrency", 0), ("max_retries", -1),
    ("max_requests", -1), ("stop_after_errors", 0), ("timeout_s", 0.0), ("timeout_s", -1.0),
    ("rpm", 0.0), ("rpm", math.nan), ("temperature", math.nan), ("temperature", -0.1),
    ("max_tokens", 0), ("concurrency", 10**6), ("timeout_s", math.inf), ("limit", True),
]  # fmt: skip


@pytest.mark.parametrize(("field", "value"), BAD_SETTINGS)
def test_the_library_refuses_every_out_of_range_setting(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=f"RunConfig.{field} "):
        RunConfig(**{field: value})


def test_a_fractional_rpm_paces_instead_of_failing() -> None:
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(0.5, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        assert limiter.acquire()
    assert waits and min(waits) >= 60.0 and now[0] >= 240.0  # one request per two minutes


def test_backoff_after_thousands_of_retries_stays_capped() -> None:
    assert 0 < backoff_delay(5000, None) <= BACKOFF_CAP_S
