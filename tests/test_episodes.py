"""Multi-step episodes against the replica, driven by the scripted fake backend."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from tooleval.episodes import EpisodeConfig, EpisodeRecord, run_episodes
from tooleval.episodes.records import Mode
from tooleval.providers.fake import FakeProvider, parse_reply
from tooleval.records import Task
from tooleval.runner.item import build_request
from tooleval.runner.records import RunConfig
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.client import execute_tool, make_transport

SUITE = load_suite()
TASKS = {task.id: task for task in SUITE.tasks}
REPLICA = make_transport(None)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A prompt-mode reply: the call as JSON text."""
    return {"text": json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)}


def native(name: str, call_id: str | None = None, **arguments: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "arguments": arguments}
    if call_id:
        entry["id"] = call_id
    return {"tool_calls": [entry]}


def run(
    task_id: str, replies: Sequence[dict[str, Any]], mode: Mode = "prompt", rounds: int = 4
) -> tuple[EpisodeRecord, FakeProvider]:
    provider = FakeProvider([parse_reply(r) for r in replies])
    config = EpisodeConfig(backend="fake", mode=mode, max_rounds=rounds, concurrency=1)
    task = TASKS[task_id]
    records = run_episodes(config, provider, [task], SUITE.tools, REPLICA, sleep=lambda s: None)
    return records[0], provider


def first_departure(eva: str) -> str:
    """A true sentence about the board of ``eva`` (line, destination, time)."""
    body = execute_tool(REPLICA, "station_board_departures", {"eva": eva}).body
    dep = body["data"]["payload"]["departures"][0]
    clock = dep["planned_time"][11:16]
    return f"Nächste Abfahrt: {dep['line']} nach {dep['destination']} um {clock} Uhr."


TWO_STEP = "two_step-001"  # Düsseldorf Flughafen, EVA 8000082; the Hbf is 8000085
TARGET = "8000082"


def test_two_step_success_prompt_mode() -> None:
    replies = [
        call("stations", slug="duesseldorf", q="Flughafen"),
        call("station_board_departures", eva=TARGET),
        {"text": first_departure(TARGET)},
    ]
    record, provider = run(TWO_STEP, replies)
    assert record.score is not None
    assert record.score.outcome == "success"
    assert (record.score.steps, record.score.calls, record.score.wasted_calls) == (3, 2, 0)
    assert record.score.answer_grounded == 1
    assert record.first_call is not None and record.first_call.call_match == 1
    feedback = provider.requests[1].messages[-1]
    assert feedback.role == "user" and feedback.content is not None
    assert feedback.content.startswith("Ergebnis von stations: {")


def test_first_request_is_the_single_call_request() -> None:
    _, provider = run(TWO_STEP, [{"text": "Weiß ich nicht."}])
    expected = build_request(TASKS[TWO_STEP], SUITE.tools, RunConfig(mode="prompt"))
    assert provider.requests[0] == expected


@pytest.mark.parametrize(
    ("replies", "outcome"),
    [
        (
            [call("station_board_departures", eva=TARGET), call("stations", slug="duesseldorf")],
            "wrong_order",
        ),
        (
            [call("stations", slug="duesseldorf"), call("station_board_departures", eva="8000099")],
            "hallucinated_eva",
        ),
        (
            [call("stations", slug="duesseldorf"), call("station_board_arrivals", eva="8000085")],
            "wrong_station",
        ),
        ([call("stations", slug="duesseldorf"), {"text": "Keine Ahnung."}], "incomplete"),
        ([call("weather", slug="duesseldorf"), {"text": "Es ist warm."}], "wrong_call"),
        ([{"text": "Um 12:03 fährt ein ICE."}], "no_call"),
    ],
    ids=["wrong_order", "hallucinated_eva", "wrong_station", "incomplete", "wrong_call", "no_call"],
)
def test_two_step_failures(replies: list[dict[str, Any]], outcome: str) -> None:
    record, _ = run(TWO_STEP, [*replies, {"text": "Fertig."}])
    assert record.score is not None and record.score.outcome == outcome
    assert record.score.success == 0


def test_invented_number_makes_the_answer_ungrounded() -> None:
    replies = [
        call("stations", slug="duesseldorf", q="Flughafen"),
        call("station_board_departures", eva=TARGET),
        {"text": "Es fahren heute 4711 Züge, der nächste um 03:17 Uhr."},
    ]
    record, _ = run(TWO_STEP, replies)
    assert record.score is not None and record.score.outcome == "ungrounded"
    assert record.score.facts_unsupported == 2


def test_running_out_of_rounds_is_no_answer() -> None:
    replies = [call("stations", slug="duesseldorf"), call("station_board_departures", eva=TARGET)]
    record, _ = run(TWO_STEP, replies, rounds=2)
    assert record.score is not None and record.score.outcome == "no_answer"
    assert record.final_answer is None and record.score.steps == 2


def test_provider_error_is_not_scored() -> None:
    record, _ = run(TWO_STEP, [{"error": "client_error"}])
    assert record.error_class == "client_error"
    assert record.score is None and record.first_call is None
    assert record.to_json()["outcome"] == "provider_error"


def test_retryable_error_is_retried() -> None:
    replies = [{"error": "rate_limited", "retry_after": 0}, call("weather", slug="muenchen")]
    record, provider = run("slug_resolution-002", [*replies, {"text": "Schön."}])
    assert record.error_class is None and len(provider.requests) == 3


def test_native_mode_feeds_tool_messages_by_id() -> None:
    replies = [
        native("stations", "c1", slug="duesseldorf", q="Flughafen"),
        native("station_board_departures", None, eva=TARGET),
        {"text": first_departure(TARGET)},
    ]
    record, provider = run(TWO_STEP, replies, mode="native")
    assert record.score is not None and record.score.outcome == "success"
    second = provider.requests[1]
    assert second.tools == SUITE.tools
    assert [m.role for m in second.messages] == ["system", "user", "assistant", "tool"]
    assert second.messages[-1].tool_call_id == "c1"
    third = provider.requests[2].messages
    assert third[-2].tool_calls[0].call_id == "call_2_0"
    assert third[-1].tool_call_id == "call_2_0"


def humidity(slug: str) -> str:
    body = execute_tool(REPLICA, "weather", {"slug": slug}).body
    return str(body["data"]["payload"]["humidity"]).replace(".", ",")


def test_exec_equivalent_slug_succeeds_but_first_call_does_not_match() -> None:
    replies = [call("weather", slug="München"), {"text": f"Luftfeuchte: {humidity('muenchen')} %"}]
    record, _ = run("slug_resolution-002", replies)
    assert record.first_call is not None and record.first_call.call_match == 0
    assert record.score is not None and record.score.outcome == "success"


def test_unreadable_call_is_invalid_and_repairable() -> None:
    broken = {"text": '{"name": "weather", "arguments": {"slug": muenchen}}'}
    replies = [broken, call("weather", slug="muenchen"), {"text": humidity("muenchen")}]
    record, provider = run("slug_resolution-002", replies)
    assert record.score is not None
    assert (record.score.outcome, record.score.invalid_calls) == ("success", 1)
    assert "unreadable_call" in (provider.requests[1].messages[-1].content or "")


def compare_answer(cities: list[str]) -> str:
    body = execute_tool(REPLICA, "compare", {"cities": cities, "resource": "weather"}).body
    temps = [str(row["data"]["payload"]["temperature_c"]) for row in body["data"]]
    return "Temperaturen: " + " und ".join(temps) + " Grad."


def test_compare_multi_one_call_succeeds_per_city_calls_fail() -> None:
    cities = ["dresden", "salzgitter"]
    good = [call("compare", cities=cities, resource="weather"), {"text": compare_answer(cities)}]
    record, _ = run("compare_multi-005", good)
    assert record.score is not None and record.score.outcome == "success"
    per_city = [call("weather", slug="dresden"), call("weather", slug="salzgitter")]
    record, _ = run("compare_multi-005", [*per_city, {"text": compare_answer(cities)}])
    assert record.score is not None and record.score.outcome == "per_city_calls"


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("Dazu liegen leider keine Daten vor.", "success"),
        ("Ein Baumkataster gibt es nur für Berlin.", "success"),
        ("In Rostock stehen 52.000 Straßenbäume.", "invented_data"),
        ("Rostock ist eine Hansestadt.", "gap_not_reported"),
    ],
)
def test_not_covered(answer: str, outcome: str) -> None:
    replies = [call("get_city_data", slug="rostock", resource="tree-cadastre"), {"text": answer}]
    record, _ = run("not_covered-001", replies)
    assert record.score is not None and record.score.outcome == outcome


def test_not_covered_without_any_call_is_no_call() -> None:
    record, _ = run("not_covered-001", [{"text": "In Rostock stehen 52.000 Bäume."}])
    assert record.score is not None and record.score.outcome == "no_call"


class LockstepProvider:
    """A batch provider (like the embedded model) answering by round number."""

    name = "lockstep"

    def __init__(self, script: Sequence[str]) -> None:
        self.script = script
        self.batches: list[int] = []

    def generate(self, request: Any) -> Any:
        raise AssertionError("the batched path must use generate_batch")

    def generate_batch(self, requests: Sequence[Any]) -> list[Any]:
        from tooleval.records import GenerationResponse

        self.batches.append(len(requests))
        turn = (len(requests[0].messages) - 2) // 2
        text = self.script[min(turn, len(self.script) - 1)]
        return [GenerationResponse(text=text) for _ in requests]


def test_batch_provider_runs_in_lockstep() -> None:
    tasks: list[Task] = [TASKS["routing_broad-001"], TASKS["routing_broad-002"]]
    provider = LockstepProvider(['{"name": "get_city_overview", "arguments": {"slug": "x"}}'])
    config = EpisodeConfig(max_rounds=3)
    records = run_episodes(config, provider, tasks, SUITE.tools, REPLICA)
    assert provider.batches == [2, 2, 2]
    assert [r.score.outcome for r in records if r.score] == ["wrong_call", "wrong_call"]
    assert all(r.score and r.score.invalid_calls == 3 for r in records)


class FailingBatchProvider(LockstepProvider):
    def generate_batch(self, requests: Sequence[Any]) -> list[Any]:
        from tooleval.providers.base import ErrorClass, ProviderError

        raise ProviderError(ErrorClass.CLIENT_ERROR, "prompt too long")


def test_failed_batch_ends_every_open_episode_unscored() -> None:
    tasks = [TASKS["routing_broad-001"], TASKS["routing_broad-002"]]
    records = run_episodes(EpisodeConfig(), FailingBatchProvider([]), tasks, SUITE.tools, REPLICA)
    assert [(r.error_class, r.score) for r in records] == [("client_error", None)] * 2
