"""Multi-step InfraNode episodes against the replica, run by the shared multi-turn driver
with the scripted fake backend."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake
from tooleval.providers.fake import FakeProvider
from tooleval.records import ConversationRecord, Mode
from tooleval.runner import run_conversations, run_suite
from tooleval.runner.item import build_request
from tooleval.runner.records import RunConfig
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.records import EpisodeScore

SUITE = load_suite()
TASKS = {task.id: task for task in SUITE.tasks}
REPLICA = make_transport(None)


def episodes(
    config: RunConfig, provider: Any, task_ids: Sequence[str], tmp: Path
) -> list[dict[str, Any]]:
    """The items of a multi-turn run of ``task_ids`` (results written under ``tmp``)."""
    config = RunConfig(**{**config.__dict__, "task_ids": tuple(task_ids), "output": tmp / "e.json"})
    return list(run_conversations(config, provider, suite=SUITE)["items"])


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
) -> tuple[ConversationRecord, FakeProvider]:
    provider = make_fake(*replies)
    config = RunConfig(backend="fake", mode=mode, max_rounds=rounds, concurrency=1)
    records: list[ConversationRecord] = []
    config = RunConfig(**{**config.__dict__, "task_ids": (task_id,)})
    run_conversations(config, provider, suite=SUITE, on_record=records.append, extra=None)
    return records[0], provider


def score(record: ConversationRecord) -> EpisodeScore:
    assert isinstance(record.score, EpisodeScore)
    return record.score


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
    assert score(record).outcome == "success"
    assert (score(record).steps, score(record).calls, score(record).wasted_calls) == (3, 2, 0)
    assert score(record).answer_grounded == 1
    assert record.first_call is not None and record.first_call.call_match == 1
    feedback = provider.requests[1].messages[-1]
    assert feedback.role == "user" and feedback.content is not None
    assert feedback.content.startswith("Ergebnis von stations: {")


def test_first_request_is_the_single_call_request() -> None:
    _, provider = run(TWO_STEP, [{"text": "Weiß ich nicht."}])
    expected = build_request(TASKS[TWO_STEP], SUITE, RunConfig(mode="prompt"))
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
    assert score(record).outcome == outcome
    assert score(record).success == 0


def test_invented_number_makes_the_answer_ungrounded() -> None:
    replies = [
        call("stations", slug="duesseldorf", q="Flughafen"),
        call("station_board_departures", eva=TARGET),
        {"text": "Es fahren heute 4711 Züge, der nächste um 03:17 Uhr."},
    ]
    record, _ = run(TWO_STEP, replies)
    assert score(record).outcome == "ungrounded"
    assert score(record).facts_unsupported == 2


def test_running_out_of_rounds_is_no_answer() -> None:
    replies = [call("stations", slug="duesseldorf"), call("station_board_departures", eva=TARGET)]
    record, _ = run(TWO_STEP, replies, rounds=2)
    assert score(record).outcome == "no_answer"
    assert record.final_answer is None and score(record).steps == 2


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
    assert score(record).outcome == "success"
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
    assert score(record).outcome == "success"


def test_unreadable_call_is_invalid_and_repairable() -> None:
    broken = {"text": '{"name": "weather", "arguments": {"slug": muenchen}}'}
    replies = [broken, call("weather", slug="muenchen"), {"text": humidity("muenchen")}]
    record, provider = run("slug_resolution-002", replies)
    assert (score(record).outcome, score(record).invalid_calls) == ("success", 1)
    assert "unreadable_call" in (provider.requests[1].messages[-1].content or "")


def compare_answer(cities: list[str]) -> str:
    body = execute_tool(REPLICA, "compare", {"cities": cities, "resource": "weather"}).body
    temps = [str(row["data"]["payload"]["temperature_c"]) for row in body["data"]]
    return "Temperaturen: " + " und ".join(temps) + " Grad."


def test_compare_multi_one_call_succeeds_per_city_calls_fail() -> None:
    cities = ["dresden", "salzgitter"]
    good = [call("compare", cities=cities, resource="weather"), {"text": compare_answer(cities)}]
    record, _ = run("compare_multi-005", good)
    assert score(record).outcome == "success"
    per_city = [call("weather", slug="dresden"), call("weather", slug="salzgitter")]
    record, _ = run("compare_multi-005", [*per_city, {"text": compare_answer(cities)}])
    assert score(record).outcome == "per_city_calls"


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
    assert score(record).outcome == outcome


def test_not_covered_without_any_call_is_no_call() -> None:
    record, _ = run("not_covered-001", [{"text": "In Rostock stehen 52.000 Bäume."}])
    assert score(record).outcome == "no_call"


def test_batch_provider_runs_in_lockstep(tmp_path: Path) -> None:
    call = {"text": '{"name": "get_city_overview", "arguments": {"slug": "x"}}'}
    provider = make_fake(call, batch=True)
    items = episodes(
        RunConfig(max_rounds=3), provider, ["routing_broad-001", "routing_broad-002"], tmp_path
    )
    assert provider.batches == [2, 2, 2]
    assert [i["outcome"] for i in items] == ["wrong_call", "wrong_call"]
    assert all(i["score"]["invalid_calls"] == 3 for i in items)


def test_failed_batch_ends_every_open_episode_unscored(tmp_path: Path) -> None:
    provider = make_fake({"error": "client_error"}, batch=True)
    items = episodes(RunConfig(), provider, ["routing_broad-001", "routing_broad-002"], tmp_path)
    assert [(i["error_class"], i["score"]) for i in items] == [("client_error", None)] * 2
    assert [i["ending"] for i in items] == ["provider_error"] * 2


# --- the first call of an episode is read and scored exactly as a single call ---------------

XML_AND_NEAR_JSON = {
    # Qwen3-Coder XML: the list arrives as text and is typed by compare's schema
    "compare_multi-001": (
        "<tool_call>\n<function=compare>\n<parameter=cities>\n"
        '["cottbus", "ingolstadt"]\n</parameter>\n<parameter=resource>\nunemployment\n'
        "</parameter>\n</function>\n</tool_call>"
    ),
    # GLM-4.5 key/value tags after a reasoning block
    "poi_type-001": (
        "<think>Kitas in Bochum: pois.</think>\n<tool_call>pois\n<arg_key>slug</arg_key>\n"
        "<arg_value>bochum</arg_value>\n<arg_key>type</arg_key>\n"
        "<arg_value>kindergarten</arg_value>\n</tool_call>"
    ),
    # near-JSON: single quotes, a trailing comma, a functions. namespace
    "resource_key-001": (
        "{'name': 'functions.get_city_data', "
        "'arguments': {'slug': 'hanau', 'resource': 'fuel-prices',}}"
    ),
    # exactly the requested JSON object: the only one that is format_ok
    "routing_named-001": '{"name": "weather", "arguments": {"slug": "magdeburg"}}',
}
NATIVE_RENAMED = {
    "routing_named-001": {"tool_calls": [{"name": "functions.weather", "arguments": "{}"}]},
    "slug_resolution-002": native("weather", slug="muenchen"),
}


def _first_calls_and_single_scores(
    answers: dict[str, dict[str, Any]], mode: Mode, tmp: Path
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The same scripted answers run as single calls and as episodes: single-call scores,
    episode first-call scores and the episode document, per task id."""
    ids = tuple(answers)
    questions = {task_id: TASKS[task_id].question for task_id in ids}
    script = [*({"task_id": t, **reply} for t, reply in answers.items()), {"text": "Fertig."}]
    config = RunConfig(backend="fake", mode=mode, max_rounds=2, concurrency=1, task_ids=ids)
    single_config = RunConfig(**{**config.__dict__, "output": tmp / "single.json"})
    single = run_suite(single_config, make_fake(*script, questions=questions), suite=SUITE)
    episode_config = RunConfig(**{**config.__dict__, "output": tmp / "episodes.json"})
    multi = run_conversations(episode_config, make_fake(*script, questions=questions), suite=SUITE)
    scores = {item["task_id"]: item["score"] for item in single["items"]}
    firsts = {item["task_id"]: item["first_call"] for item in multi["items"]}
    return scores, firsts, multi


def test_first_call_of_an_episode_scores_like_the_single_call_in_every_dialect(
    tmp_path: Path,
) -> None:
    answers = {task_id: {"text": text} for task_id, text in XML_AND_NEAR_JSON.items()}
    scores, firsts, multi = _first_calls_and_single_scores(answers, "prompt", tmp_path)
    assert firsts == scores
    assert all(score["call_match"] == 1 for score in scores.values())
    assert {t: s["format_ok"] for t, s in scores.items()} == {
        "compare_multi-001": 0,
        "poi_type-001": 0,
        "resource_key-001": 0,
        "routing_named-001": 1,
    }
    assert multi["first_call"]["format_ok"] == 0.25
    executed = {item["task_id"]: item["calls"][0] for item in multi["items"]}
    for task_id, call in executed.items():  # executed as the call it was scored as
        assert (call["name"], call["arguments"]) == (
            TASKS[task_id].gold.name,
            TASKS[task_id].gold.arguments,
        )
        assert call["valid"], task_id


def test_first_native_call_of_an_episode_scores_like_the_single_call(tmp_path: Path) -> None:
    scores, firsts, _ = _first_calls_and_single_scores(NATIVE_RENAMED, "native", tmp_path)
    assert firsts == scores
    assert scores["slug_resolution-002"]["format_ok"] == 1
    renamed = scores["routing_named-001"]  # functions.weather read as weather, not as offered
    assert (renamed["tool_match"], renamed["format_ok"]) == (1, 0)
