"""The direct runner with the scripted fake: results, errors, resume, repeats, pacing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import MINI_CITIES, make_fake, make_mini_suite
from tooleval.providers.fake import FakeProvider
from tooleval.runner import ResumeError, RunConfig, run_suite
from tooleval.runner.journal import journal_path, read_journal
from tooleval.runner.pacing import SPACING_MARGIN, RateLimiter, backoff_delay
from tooleval.suites import Suite


def gold(city: str) -> dict[str, Any]:
    call = {"name": "weather", "arguments": {"slug": city}}
    return {"match": f"Wetter in {city}?", "text": json.dumps(call)}


def provider(*before: dict[str, Any], **per_city: list[dict[str, Any]]) -> FakeProvider:
    """Gold answers for every city; ``per_city`` replies come first for that city (in order)."""
    replies: list[dict[str, Any]] = list(before)
    for city in MINI_CITIES:
        replies += [{"match": f"Wetter in {city}?", **r} for r in per_city.get(city, [])]
        replies.append(gold(city))
    return make_fake(*replies)


def asked(fake: FakeProvider) -> Counter[str]:
    return Counter(r.messages[-1].content or "" for r in fake.requests)


def config(tmp_path: Path, **overrides: object) -> RunConfig:
    values: dict[str, object] = {"model": "m", "output": tmp_path / "m.json", "concurrency": 3}
    values.update(overrides)
    return RunConfig(**values)  # type: ignore[arg-type]


def test_complete_run_writes_results_and_journal(tmp_path: Path) -> None:
    doc = run_suite(config(tmp_path), provider(), suite=make_mini_suite())
    assert doc["complete"] is True and doc["format"] == "tooleval-results/2"
    assert doc["kind"] == "single_call" and doc["metrics"]["call_match"] == 1.0
    assert doc["metrics"] == doc["metrics_answered"]
    written = json.loads((tmp_path / "m.json").read_text())
    assert [i["task_id"] for i in written["items"]] == [f"t-{i}" for i in range(6)]
    journal = read_journal(journal_path(tmp_path / "m.json"))
    assert journal.header["suite"] == "mini" and len(journal.records) == 6


def test_provider_errors_are_counted_not_scored(tmp_path: Path) -> None:
    fake = provider(kiel=[{"error": "quota_exhausted"}] * 5)
    doc = run_suite(config(tmp_path), fake, suite=make_mini_suite())
    assert doc["complete"] is False
    assert doc["errors_by_class"] == {"quota_exhausted": 1}
    assert doc["metrics_answered"]["call_match"] == 1.0
    assert doc["metrics"]["call_match"] == pytest.approx(5 / 6)
    assert asked(fake)["Wetter in kiel?"] == 1  # quota errors are not retried


def test_retryable_errors_are_retried_with_retry_after(tmp_path: Path) -> None:
    limited = {"error": "rate_limited", "retry_after": 0.01}
    doc = run_suite(config(tmp_path), provider(ulm=[limited, limited]), suite=make_mini_suite())
    assert doc["complete"] is True
    ulm = next(i for i in doc["items"] if i["task_id"] == "t-4")
    assert ulm["attempts"] == 3


def broken(*cities: str) -> FakeProvider:
    return provider(**{c: [{"error": "server_error"}] * 9 for c in cities})


def test_stop_after_errors_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    suite = make_mini_suite()
    reference = run_suite(config(tmp_path / "ref", concurrency=1), provider(), suite=suite)
    cfg = config(tmp_path, concurrency=1, stop_after_errors=2, max_retries=0)
    first = run_suite(cfg, broken("bonn", "kiel", "ulm"), suite=suite)
    assert first["complete"] is False and first["stop_reason"].startswith("stop_after_errors")
    resumed = run_suite(config(tmp_path, concurrency=1, resume=True), provider(), suite=suite)
    assert resumed["complete"] is True
    strip = ("latency_s",)
    items = [{k: v for k, v in i.items() if k not in strip} for i in resumed["items"]]
    expected = [{k: v for k, v in i.items() if k not in strip} for i in reference["items"]]
    assert items == expected
    assert resumed["metrics"] == reference["metrics"]


def test_existing_journal_without_resume_is_refused(tmp_path: Path) -> None:
    run_suite(config(tmp_path, limit=2), provider(), suite=make_mini_suite())
    with pytest.raises(ResumeError, match="--resume"):
        run_suite(config(tmp_path, limit=2), provider(), suite=make_mini_suite())


def test_torn_journal_tail_is_ignored_on_resume(tmp_path: Path) -> None:
    suite = make_mini_suite()
    run_suite(config(tmp_path, concurrency=1), provider(), suite=suite)
    jpath = journal_path(tmp_path / "m.json")
    lines = jpath.read_text().splitlines(keepends=True)
    jpath.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
    fake = provider()
    doc = run_suite(config(tmp_path, resume=True), fake, suite=suite)
    assert doc["complete"] is True
    assert sum(asked(fake).values()) == 3  # items 4..6 re-asked, first three kept


def test_max_requests_stops_cleanly(tmp_path: Path) -> None:
    doc = run_suite(
        config(tmp_path, concurrency=1, max_requests=4), provider(), suite=make_mini_suite()
    )
    assert doc["counts"]["answered"] == 4 and doc["complete"] is False
    assert doc["stop_reason"].startswith("max_requests")


def test_repeats_keep_items_and_report_pass_hat_k(tmp_path: Path) -> None:
    flaky = provider(berlin=[gold("berlin"), {"text": "Keine Ahnung."}])
    doc = run_suite(config(tmp_path, repeats=2, concurrency=1), flaky, suite=make_mini_suite())
    assert len(doc["items"]) == 12
    assert doc["metrics"]["call_match"] == pytest.approx(11 / 12)
    assert doc["pass_hat_k"] == {"k": 2, "metric": "call_match", "value": pytest.approx(5 / 6)}


def test_output_cut_inside_reasoning_is_classified_not_scored(tmp_path: Path) -> None:
    thinking = make_fake({"text": "<think>Hmm, welche Stadt", "finish_reason": "length"})
    doc = run_suite(config(tmp_path, limit=2), thinking, suite=make_mini_suite())
    assert doc["errors_by_class"] == {"reasoning_truncated": 2}
    assert doc["metrics_answered"]["call_match"] is None


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_rate_limiter_never_exceeds_rpm_in_any_window() -> None:
    clock = FakeClock()
    limiter = RateLimiter(30, clock=clock.time, sleep=clock.sleep)
    stamps = []
    for _ in range(100):
        limiter.acquire()
        stamps.append(clock.now)
    for i, start in enumerate(stamps):
        in_window = [s for s in stamps[i:] if s < start + 60.0]
        assert len(in_window) <= 30
    assert stamps[-1] == pytest.approx(99 * 2.0 * SPACING_MARGIN)  # evenly spread, 1 % margin


def test_backoff_prefers_retry_after_and_grows_otherwise() -> None:
    assert backoff_delay(1, 7.0) == 7.0
    delays = [backoff_delay(n, None, base=1.0, cap=60.0) for n in (1, 2, 3, 4)]
    assert 0.5 <= delays[0] <= 1.0 and 4.0 <= delays[3] <= 8.0
    assert backoff_delay(20, None, cap=10.0) <= 10.0


def test_exec_match_reports_executable_but_not_canonical_calls(tmp_path: Path) -> None:
    from tooleval.suites import load_suite

    suite = load_suite("infranode")
    slug_tasks = [t for t in suite.tasks if t.category == "slug_resolution"][:3]
    sub = Suite(
        suite.name,
        suite.version,
        suite.tools,
        tuple(slug_tasks),
        suite.categories,
        suite.messages,
        suite.scorer,
        suite.exec_match,
    )

    def german_name(task: Any) -> dict[str, Any]:
        slug = task.gold.arguments["slug"]
        spoken = {"muenchen": "München", "koeln": "Köln"}.get(slug, slug.upper())
        call = {"name": task.gold.name, "arguments": {"slug": spoken}}
        return {"match": task.question, "text": json.dumps(call, ensure_ascii=False)}

    fake = make_fake(*(german_name(t) for t in slug_tasks))
    doc = run_suite(config(tmp_path), fake, suite=sub)
    assert doc["metrics"]["call_match"] == 0.0
    assert [i["exec_match"] for i in doc["items"]] == [1, 1, 1]
    assert doc["exec_match"] == {
        "exec_match": 1.0,
        "call_match": 0.0,
        "executable_not_canonical": 1.0,
    }
