"""The one request path and dispatcher that every command uses: caps, the backoff rule, and a
stop that ends every wait at once (single calls and conversations alike)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from conftest import make_fake, make_mini_suite
from tooleval.runner.conversation import Conversation
from tooleval.runner.dispatch import Dispatcher, InterruptGuard, Session
from tooleval.runner.item import ItemSession
from tooleval.runner.pacing import RETRY_AFTER_CAP_S, backoff_delay
from tooleval.runner.records import RunConfig
from tooleval.runner.requests import RequestPolicy, RunControl
from tooleval.suites import load_suite

FOREVER = {"error": "rate_limited", "retry_after": 600}


def sessions(kind: str, config: RunConfig) -> list[Any]:
    if kind == "single call":
        suite = make_mini_suite()
        return [ItemSession(t, 0, suite, config) for t in suite.tasks]
    suite = load_suite("infranode")
    return [Conversation(t, 0, suite, config) for t in suite.tasks[:4]]


@pytest.mark.parametrize("kind", ["single call", "conversation"])
def test_a_stop_ends_a_600_second_backoff_at_once(kind: str) -> None:
    config = RunConfig(concurrency=2, max_retries=3)
    control = RunControl(config.policy)
    fake = make_fake(FOREVER)
    finished: list[Session] = []
    work = sessions(kind, config)
    runner = threading.Thread(target=lambda: Dispatcher(fake, control, finished.append).run(work))
    runner.start()
    while len(fake.requests) < 2:  # both workers are now waiting out Retry-After: 600
        threading.Event().wait(0.01)
    control.halt("interrupted")
    runner.join(timeout=30)
    assert not runner.is_alive()  # it did not sleep out the 600 s
    assert control.stop_reason == "interrupted" and finished == []
    assert len(fake.requests) == 2  # no request after the stop


def test_the_request_budget_cuts_conversations_and_records_them() -> None:
    config = RunConfig(concurrency=1, max_requests=3, max_rounds=4)
    control = RunControl(config.policy)
    call = {"text": '{"name": "get_city_overview", "arguments": {"slug": "bonn"}}'}
    finished: list[Session] = []
    work = sessions("conversation", config)
    stop = Dispatcher(make_fake(call), control, finished.append).run(work)
    assert stop == "max_requests: 3 requests sent" and control.requests == 3
    endings = [s.record().ending for s in finished if isinstance(s, Conversation)]
    assert endings == ["budget_exhausted"] * 4  # the one cut mid-way and the three never started


def test_one_backoff_rule() -> None:
    assert backoff_delay(1, 7.0) == 7.0  # Retry-After honoured
    assert backoff_delay(1, 10_000.0) == RETRY_AFTER_CAP_S  # ... within reason
    for attempt in range(1, 12):
        high = min(60.0, 2.0 ** (attempt - 1))
        assert high / 2 <= backoff_delay(attempt, None) <= high  # jittered, capped at 60 s


def test_max_retries_counts_attempts() -> None:
    config = RunConfig(concurrency=1, max_retries=2)
    control = RunControl(config.policy, wait=lambda seconds: False)
    fake = make_fake({"error": "server_error"})
    (session,) = sessions("single call", config)[:1]
    Dispatcher(fake, control, lambda s: None).run([session])
    assert session.record is not None and session.record.attempts == 3
    assert len(fake.requests) == 3 and control.policy == RequestPolicy(max_retries=2, concurrency=1)


def test_ctrl_c_is_held_while_a_finished_item_is_written() -> None:
    """An interrupt inside ``finish`` (journal line written, record not yet kept) would lose
    the record from the results file; the guard raises it only once ``finish`` is done."""
    guard = InterruptGuard()
    kept: list[str] = []
    with pytest.raises(KeyboardInterrupt), guard.critical():
        guard._handler(2, None)  # Ctrl-C arrives here ...
        kept.append("journal line")
        kept.append("record")  # ... and is raised only after this
    assert kept == ["journal line", "record"]
    with pytest.raises(KeyboardInterrupt):
        guard._handler(2, None)  # outside a critical section: at once
