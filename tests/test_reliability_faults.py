"""The fault matrix: a loopback OpenAI-compatible server misbehaves on demand, the real
provider and runner deal with it.

Each fault must be classified correctly, retried exactly when it is retryable (with the
server's Retry-After when it sends one), never scored as a model answer and never crash the
run. ``--stop-after-errors`` and ``--max-requests`` are checked through the CLI.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from servers.base import closed_port
from servers.gold_server import Fault, GoldServer, answer_for, completion
from tooleval.cli import main
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.runner.dispatch import Dispatcher
from tooleval.runner.item import ItemSession
from tooleval.runner.records import ItemRecord, RunConfig
from tooleval.runner.requests import RunControl
from tooleval.suites import Suite, load_suite

SUITE: Suite[Any] = load_suite("infranode")
# the first task the gold server answers with its gold call (its answers depend on a hash)
GOLD = next(
    t
    for t in SUITE.tasks
    if answer_for(t.question, t.gold.to_json())
    == json.dumps({"name": t.gold.name, "arguments": t.gold.arguments})
)
GOLD_TEXT = json.dumps(GOLD.gold.to_json())


def error_body(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "code": code, "param": None}}


def message(content: Any, finish: str = "stop", **extra: Any) -> Fault:
    return Fault(body=completion({"role": "assistant", "content": content, **extra}, finish))


def bad_tool_call() -> Fault:
    call = {"id": "c1", "type": "function", "function": {"name": "get_city_overview",
            "arguments": '{"slug": "hannover"'}}  # fmt: skip
    return Fault(body=completion({"role": "assistant", "content": None, "tool_calls": [call]}))


@dataclass(frozen=True)
class Case:
    fault: Fault | None  # None: connection refused (nothing listens)
    error_class: str
    retryable: bool
    retry_after: float | None = None


PAST_DATE = "Wed, 21 Oct 2015 07:28:00 GMT"
CUT_JSON = '{"id": "x", "choices": [{"index": 0, "mess'
RATE = error_body("Rate limit reached for requests per min", "rate_limit_exceeded")
CASES: dict[str, Case] = {
    "429 with Retry-After": Case(Fault(429, RATE, {"retry-after": "7"}), "rate_limited", True, 7.0),
    "429 with Retry-After as a date": Case(
        Fault(429, RATE, {"retry-after": PAST_DATE}), "rate_limited", True, 0.0
    ),
    "429 without Retry-After": Case(Fault(429, RATE), "rate_limited", True),
    "500": Case(Fault(500, error_body("boom", "server_error")), "server_error", True),
    "503 HTML page": Case(Fault(503, "<html>busy</html>"), "server_error", True),
    "connection refused": Case(None, "connection", True),
    "read timeout": Case(Fault(delay_s=3.0, body=completion({"content": "x"})), "timeout", True),
    "connection dropped": Case(Fault(disconnect=True), "connection", True),
    "body cut off (fewer bytes than announced)": Case(
        Fault(body=completion({"role": "assistant", "content": GOLD_TEXT}), short_by=40),
        "connection",
        True,
    ),
    "truncated JSON": Case(Fault(body=CUT_JSON), "invalid_body", False),
    "invalid JSON": Case(Fault(body="{not json at all"), "invalid_body", False),
    "JSON array instead of object": Case(Fault(body="[1, 2]"), "invalid_body", False),
    "choices not a list": Case(Fault(body={"choices": "nope"}), "invalid_body", False),
    "empty choices": Case(Fault(body={**completion({}), "choices": []}), "empty_choices", False),
    "content null, reasoning only, cut by length": Case(
        message(None, "length", reasoning_content="Ich überlege noch"), "reasoning_truncated", False
    ),
    "content null, reasoning only, finished": Case(
        message(None, "stop", reasoning_content="Ich überlege"), "empty_choices", False
    ),
    "content null, nothing else": Case(message(None), "empty_choices", False),
    "quota exhausted (429)": Case(
        Fault(429, error_body("You exceeded your current quota.", "insufficient_quota")),
        "quota_exhausted",
        False,
    ),
    "payment required (402)": Case(
        Fault(402, error_body("no credit", "billing")), "quota_exhausted", False
    ),
    "unauthorised (401)": Case(
        Fault(401, error_body("bad key", "invalid_api_key")), "client_error", False
    ),
    "error object in a 200 body": Case(
        Fault(body={"error": {"message": "upstream failed", "code": 502}}), "server_error", True
    ),
}
MAX_RETRIES = 2


@pytest.fixture
def server() -> Iterator[GoldServer]:
    with GoldServer() as gold:
        yield gold


def ask_once(server: GoldServer, case: Case, failures: int) -> tuple[ItemRecord, list[float]]:
    """One item through the real provider, request path and dispatcher; the first
    ``failures`` requests fail. Backoff waits are recorded, not slept."""
    server.fault = lambda number, _: case.fault if number <= failures else None
    url = server.base_url if case.fault is not None else f"http://127.0.0.1:{closed_port()}/v1"
    provider = OpenAICompatProvider("gold", base_url=url, timeout_s=0.5)
    waits: list[float] = []
    config = RunConfig(model="gold", concurrency=1, max_retries=MAX_RETRIES)
    control = RunControl(config.policy, wait=lambda seconds: waits.append(seconds) is not None)
    session = ItemSession(GOLD, 0, SUITE, config)
    stop = Dispatcher(provider, control, lambda finished: None).run([session])
    assert stop is None and session.record is not None
    return session.record, waits


@pytest.mark.parametrize("name", list(CASES))
def test_a_fault_that_persists_is_classified_and_never_scored(
    server: GoldServer, name: str
) -> None:
    case = CASES[name]
    record, waits = ask_once(server, case, failures=99)
    assert record.error_class == case.error_class, record.error_message
    assert record.score is None and record.parsed is None and not record.answered
    tries = MAX_RETRIES + 1 if case.retryable else 1
    assert record.attempts == tries and len(waits) == tries - 1
    if case.fault is not None:
        assert server.requests == tries
    if case.retry_after is not None:
        assert waits == [case.retry_after] * (tries - 1)
    assert all(0 < wait <= 60 for wait in waits) or case.retry_after is not None


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.retryable and c.fault])
def test_a_passing_retryable_fault_ends_in_the_real_answer(server: GoldServer, name: str) -> None:
    record, waits = ask_once(server, CASES[name], failures=MAX_RETRIES)
    assert record.error_class is None and record.attempts == MAX_RETRIES + 1
    assert record.score is not None and record.score.call_match == 1
    assert len(waits) == MAX_RETRIES


def test_tool_call_with_invalid_json_arguments_is_the_models_miss(server: GoldServer) -> None:
    """Broken arguments are the model's answer, not a provider failure: a scored miss."""
    record, waits = ask_once(server, Case(bad_tool_call(), "", False), failures=99)
    assert record.error_class is None and waits == []
    assert record.parsed is not None and record.parsed.reason == "invalid_arguments_json"
    assert record.score is not None and record.score.parsed == 0 and record.score.call_match == 0
    assert record.native_calls[0].arguments == '{"slug": "hannover"'


def test_invalid_unicode_in_the_answer_is_kept_and_written(
    server: GoldServer, tmp_path: Path
) -> None:
    """A lone surrogate (``\\ud800``) in model output must not break the journal or results."""
    text = '\\ud800 {"name": "get_city_overview", "arguments": {"slug": "hannover\\udfff"}}'
    raw = '{"choices": [{"index": 0, "message": {"content": "' + text.replace('"', '\\"') + '"}}]}'
    server.fault = lambda number, _: Fault(body=raw)
    out = tmp_path / "u.json"
    assert run_cli(server, out, "--limit", "3") == 0
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["counts"]["answered"] == 3
    assert document["items"][0]["raw_output"].startswith("\ud800")
    journal = (tmp_path / "u.journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(journal) == 4


def run_cli(server: GoldServer, out: Path, *extra: str) -> int:
    return main(
        ["run", "--backend", "openai", "--base-url", server.base_url, "--model", "gold",
         "--output", str(out), "--timeout", "0.5", *extra]
    )  # fmt: skip


def fault_for(question: str) -> Case | None:
    """A fixed fault for about half of the questions, chosen by a hash of the question."""
    digest = hashlib.sha256(question.encode()).digest()
    case = CASES[list(CASES)[digest[1] % len(CASES)]]
    return case if digest[0] % 2 == 0 and case.fault is not None else None


def test_a_run_through_every_fault_finishes_and_resumes_to_the_clean_result(
    server: GoldServer, tmp_path: Path
) -> None:
    clean = tmp_path / "clean.json"
    assert run_cli(server, clean, "--limit", "60") == 0

    def fault(number: int, question: str) -> Fault | None:
        case = fault_for(question)
        return case.fault if case else None

    server.fault = fault
    out = tmp_path / "faulty.json"
    assert run_cli(server, out, "--limit", "60", "--max-retries", "0", "--concurrency", "4") == 3
    document = json.loads(out.read_text())
    cases = {t.id: fault_for(t.question) for t in SUITE.tasks[:60]}
    failing = {task_id: case for task_id, case in cases.items() if case is not None}
    by_id = {i["task_id"]: i for i in document["items"]}
    for task_id, case in failing.items():
        assert by_id[task_id]["error_class"] == case.error_class
        assert by_id[task_id]["score"] is None
    assert document["counts"]["errors"] == len(failing) >= 10
    assert document["counts"]["answered"] == 60 - len(failing)
    server.fault = None
    assert run_cli(server, out, "--limit", "60", "--resume") == 0
    resumed = json.loads(out.read_text())
    reference = json.loads(clean.read_text())
    assert resumed["metrics"] == reference["metrics"]
    assert [i["score"] for i in resumed["items"]] == [i["score"] for i in reference["items"]]


def always(fault: Fault) -> Any:
    return lambda number, question: fault


def test_stop_after_errors_stops_at_the_nth_failed_item(server: GoldServer, tmp_path: Path) -> None:
    server.fault = always(Fault(500, error_body("boom", "server_error")))
    out = tmp_path / "s.json"
    code = run_cli(server, out, "--limit", "20", "--concurrency", "1", "--max-retries", "0",
                   "--stop-after-errors", "3")  # fmt: skip
    assert code == 3
    document = json.loads(out.read_text())
    assert document["stop_reason"] == "stop_after_errors: 3 provider errors"
    assert document["counts"] == {"planned": 20, "answered": 0, "errors": 3}
    assert server.requests == 3


def test_stop_after_errors_with_workers_lets_only_inflight_items_finish(
    server: GoldServer, tmp_path: Path
) -> None:
    server.fault = always(Fault(500, error_body("boom", "server_error")))
    out = tmp_path / "w.json"
    code = run_cli(server, out, "--limit", "40", "--concurrency", "4", "--max-retries", "0",
                   "--stop-after-errors", "5")  # fmt: skip
    assert code == 3
    document = json.loads(out.read_text())
    assert document["stop_reason"].startswith("stop_after_errors")
    assert 5 <= document["counts"]["errors"] <= 5 + 3  # at most the other 3 workers' items
    assert server.requests == document["counts"]["errors"]


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_max_requests_is_a_hard_cap_on_http_requests_retries_included(
    server: GoldServer, tmp_path: Path, concurrency: str
) -> None:
    server.fault = lambda number, _: Fault(429, RATE, {"retry-after": "0"}) if number % 2 else None
    out = tmp_path / "m.json"
    code = run_cli(
        server, out, "--limit", "30", "--concurrency", concurrency, "--max-requests", "9"
    )
    assert code == 3
    document = json.loads(out.read_text())
    assert server.requests == 9
    assert document["stop_reason"] == "max_requests: 9 requests sent"
    assert document["counts"]["errors"] == 0  # items cut off by the cap are not recorded
    assert 1 <= document["counts"]["answered"] <= 5
    assert sum(i["attempts"] for i in document["items"]) <= 9
