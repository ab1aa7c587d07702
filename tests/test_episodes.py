"""Multi-step InfraNode episodes against the replica, run by the shared multi-turn driver
with the scripted fake backend."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake
from tooleval.providers.fake import FakeProvider
from tooleval.records import ConversationRecord, Mode, Task, ToolCall
from tooleval.runner import run_conversations, run_suite
from tooleval.runner.item import build_request
from tooleval.runner.records import RunConfig
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.api import board_evas
from tooleval.suites.infranode.api.facts import city_index
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.records import EpisodeScore

SUITE = load_suite()
TASKS = {task.id: task for task in SUITE.tasks}
REPLICA = make_transport(None)


def first_of(category: str, tool: str | None = None, resource: str | None = None) -> Task:
    """The first shipped task of a category (and tool / resource): tests follow the suite."""
    return next(
        t
        for t in SUITE.tasks
        if t.category == category
        and (tool is None or t.gold.name == tool)
        and (resource is None or t.gold.arguments.get("resource") == resource)
    )


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
    with tempfile.TemporaryDirectory() as tmp:  # never the working directory's results/
        output = Path(tmp) / "e.json"
        config = RunConfig(**{**config.__dict__, "task_ids": (task_id,), "output": output})
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


def two_step_asking(board: str) -> Task:
    """The first two_step task whose question asks for ``board`` (departures or arrivals)."""
    return next(
        t
        for t in SUITE.tasks
        if t.category == "two_step" and t.provenance["target_station"]["board"] == board
    )


TWO_STEP_TASK = two_step_asking("departures")
TWO_STEP = TWO_STEP_TASK.id
TARGET = TWO_STEP_TASK.provenance["target_station"]["eva"]
SLUG = TWO_STEP_TASK.gold.arguments["slug"]
Q = TWO_STEP_TASK.provenance["target_station"]["name"].split(" ")[-1].split("-")[-1]
ON_BOARD = sorted(board_evas(SLUG))[0]  # another station of the city: the wrong one
UNLISTED = "8000099"
SLUG_TASK = first_of("slug_resolution", tool="weather")
SLUG_CANONICAL = SLUG_TASK.gold.arguments["slug"]
SLUG_WRITTEN = SLUG_TASK.provenance["slug_form"]["text"]
COMPARE_TASK = first_of("compare_multi", resource="weather")
NOT_COVERED_TASK = first_of("not_covered")


def test_two_step_success_prompt_mode() -> None:
    replies = [
        call("stations", slug=SLUG, q=Q),
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
            [call("station_board_departures", eva=ON_BOARD), call("stations", slug=SLUG)],
            "wrong_order",
        ),
        (
            [call("stations", slug=SLUG), call("station_board_departures", eva=UNLISTED)],
            "hallucinated_eva",
        ),
        (
            [call("stations", slug=SLUG), call("station_board_arrivals", eva=ON_BOARD)],
            "wrong_station",
        ),
        ([call("stations", slug=SLUG), {"text": "Keine Ahnung."}], "incomplete"),
        ([call("weather", slug=SLUG), {"text": "Es ist warm."}], "wrong_call"),
        ([{"text": "Um 12:03 fährt ein ICE."}], "no_call"),
    ],
    ids=["wrong_order", "hallucinated_eva", "wrong_station", "incomplete", "wrong_call", "no_call"],
)
def test_two_step_failures(replies: list[dict[str, Any]], outcome: str) -> None:
    record, _ = run(TWO_STEP, [*replies, {"text": "Fertig."}])
    assert score(record).outcome == outcome
    assert score(record).success == 0


def test_the_asked_board_for_the_target_eva_needs_no_list() -> None:
    """Single-call scoring accepts the stated board called directly with the target's EVA
    number; an episode that does the same and answers from that board succeeds too."""
    replies = [call("station_board_departures", eva=TARGET), {"text": first_departure(TARGET)}]
    record, _ = run(TWO_STEP, replies)
    assert record.first_call is not None and record.first_call.call_match == 1
    assert (score(record).outcome, score(record).success) == ("success", 1)
    other_board = [call("station_board_arrivals", eva=TARGET), {"text": "."}]
    record, _ = run(TWO_STEP, other_board)
    assert score(record).success == 0


def test_the_other_board_of_the_target_is_the_wrong_board() -> None:
    """A question about departures is not answered by the arrivals board, nor the reverse."""
    arriving = two_step_asking("arrivals")
    arriving_eva = arriving.provenance["target_station"]["eva"]
    arriving_slug = arriving.gold.arguments["slug"]
    cases = [
        (TWO_STEP, SLUG, "station_board_arrivals", TARGET),
        (arriving.id, arriving_slug, "station_board_departures", arriving_eva),
    ]
    for task_id, slug, board, eva in cases:
        record, _ = run(task_id, [call("stations", slug=slug), call(board, eva=eva), {"text": "."}])
        assert (score(record).outcome, score(record).success) == ("wrong_board", 0)


def test_the_asked_board_after_the_other_one_is_a_correction() -> None:
    replies = [
        call("stations", slug=SLUG, q=Q),
        call("station_board_arrivals", eva=TARGET),
        call("station_board_departures", eva=TARGET),
        {"text": first_departure(TARGET)},
    ]
    record, _ = run(TWO_STEP, replies, rounds=4)
    assert (score(record).outcome, score(record).wasted_calls) == ("success", 1)


def test_a_two_step_item_must_state_its_board() -> None:
    from tooleval.suites.infranode.episodes.scoring import asked_board

    target = {k: v for k, v in TWO_STEP_TASK.provenance["target_station"].items() if k != "board"}
    unstated = Task(
        "two_step-x", "two_step", "?", TWO_STEP_TASK.gold, "2.0.0", {}, {"target_station": target}
    )
    with pytest.raises(ValueError, match=r"two_step-x: provenance\.target_station\.board"):
        asked_board(unstated)
    assert asked_board(TWO_STEP_TASK) == "station_board_departures"


def test_invented_number_makes_the_answer_fail() -> None:
    replies = [
        call("stations", slug=SLUG, q=Q),
        call("station_board_departures", eva=TARGET),
        {"text": "Es fahren heute 4711 Züge, der nächste um 03:17 Uhr."},
    ]
    record, _ = run(TWO_STEP, replies)
    assert score(record).outcome == "contradicted"
    assert (score(record).facts_contradicted, score(record).facts_unsupported) == (1, 1)


def test_running_out_of_rounds_is_no_answer() -> None:
    replies = [call("stations", slug=SLUG), call("station_board_departures", eva=TARGET)]
    record, _ = run(TWO_STEP, replies, rounds=2)
    assert score(record).outcome == "no_answer"
    assert record.final_answer is None and score(record).steps == 2


def test_provider_error_is_not_scored() -> None:
    record, _ = run(TWO_STEP, [{"error": "client_error"}])
    assert record.error_class == "client_error"
    assert record.score is None and record.first_call is None
    assert record.to_json()["outcome"] == "provider_error"


def test_two_step_fixture_preconditions() -> None:
    listing = execute_tool(REPLICA, "stations", {"slug": SLUG}).body["data"]["payload"]["stations"]
    fetched = {eva for s in listing for eva in s["evas"]}
    assert TARGET in fetched and ON_BOARD in fetched and UNLISTED not in fetched
    assert ON_BOARD != TARGET


def test_retryable_error_is_retried() -> None:
    replies = [{"error": "rate_limited", "retry_after": 0}, call("weather", slug=SLUG_CANONICAL)]
    record, provider = run(SLUG_TASK.id, [*replies, {"text": "Schön."}])
    assert record.error_class is None and len(provider.requests) == 3


def test_native_mode_feeds_tool_messages_by_id() -> None:
    replies = [
        native("stations", "c1", slug=SLUG, q=Q),
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


def de(value: float) -> str:
    return str(value).replace(".", ",")


def weather_answer(slug: str) -> str:
    """A true answer to any weather question about ``slug``: every measured field with its
    word and unit (the final-answer check needs the asked field's value)."""
    data = execute_tool(REPLICA, "weather", {"slug": slug}).body["data"]["payload"]
    return (
        f"Es sind {de(data['temperature_c'])} °C, Luftfeuchtigkeit {de(data['humidity'])} %, "
        f"Wind {de(data['wind_speed'])} km/h."
    )


def test_exec_equivalent_slug_succeeds_but_first_call_does_not_match() -> None:
    replies = [
        call("weather", slug=SLUG_WRITTEN),
        {"text": weather_answer(SLUG_CANONICAL)},
    ]
    record, _ = run(SLUG_TASK.id, replies)
    assert record.first_call is not None and record.first_call.call_match == 0
    assert score(record).outcome == "success"


def test_unreadable_call_is_invalid_and_repairable() -> None:
    # a bare name where a string belongs: not even near-JSON (a trailing comma would be read)
    broken = {"text": '{"name": "weather", "arguments": {"slug": ' + SLUG_CANONICAL + "}}"}
    replies = [
        broken,
        call("weather", slug=SLUG_CANONICAL),
        {"text": weather_answer(SLUG_CANONICAL)},
    ]
    record, provider = run(SLUG_TASK.id, replies)
    assert (score(record).outcome, score(record).invalid_calls) == ("success", 1)
    assert "unreadable_call" in (provider.requests[1].messages[-1].content or "")


def compare_answer(cities: list[str]) -> str:
    """Each compared city's temperature, named (the check needs a value per asked city)."""
    body = execute_tool(REPLICA, "compare", {"cities": cities, "resource": "weather"}).body
    names = {slug: city_index()[slug].name_de for slug in cities}
    temps = [
        f"{names[row['city']]}: {de(row['data']['payload']['temperature_c'])} °C"
        for row in body["data"]
    ]
    return "Temperaturen: " + "; ".join(temps) + "."


def test_compare_multi_one_call_succeeds_per_city_calls_fail() -> None:
    cities = list(reversed(COMPARE_TASK.gold.arguments["cities"]))
    good = [call("compare", cities=cities, resource="weather"), {"text": compare_answer(cities)}]
    record, _ = run(COMPARE_TASK.id, good)
    assert score(record).outcome == "success"
    per_city = [call("weather", slug=slug) for slug in cities]
    record, _ = run(COMPARE_TASK.id, [*per_city, {"text": compare_answer(cities)}])
    assert score(record).outcome == "per_city_calls"


NC_CITY = city_index()[NOT_COVERED_TASK.gold.arguments["slug"]].name_de
NC_COVERED = execute_tool(REPLICA, "get_city_data", NOT_COVERED_TASK.gold.arguments).body["meta"][
    "covered_cities"
]


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("Dazu liegen leider keine Daten vor.", "success"),
        (f"Diese Daten gibt es nur für {city_index()[NC_COVERED[0]].name_de}.", "success"),
        (f"In {NC_CITY} sind es genau 52.000.", "invented_data"),
        (f"{NC_CITY} ist eine schöne Stadt.", "gap_not_reported"),
    ],
)
def test_not_covered(answer: str, outcome: str) -> None:
    replies = [call("get_city_data", **NOT_COVERED_TASK.gold.arguments), {"text": answer}]
    record, _ = run(NOT_COVERED_TASK.id, replies)
    assert score(record).outcome == outcome


def test_not_covered_without_any_call_is_no_call() -> None:
    record, _ = run(NOT_COVERED_TASK.id, [{"text": f"In {NC_CITY} sind es 52.000."}])
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


def qwen_xml(call: ToolCall) -> str:
    """Qwen3-Coder's XML: every value arrives as text (lists as JSON text)."""
    params = "".join(
        f"<parameter={key}>\n{value if isinstance(value, str) else json.dumps(value)}\n"
        "</parameter>\n"
        for key, value in call.arguments.items()
    )
    return f"<tool_call>\n<function={call.name}>\n{params}</function>\n</tool_call>"


def glm_tags(call: ToolCall) -> str:
    """GLM-4.5's key/value tags."""
    pairs = "".join(
        f"<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"
        for key, value in call.arguments.items()
    )
    return f"<tool_call>{call.name}\n{pairs}</tool_call>"


def near_json(call: ToolCall) -> str:
    """Single quotes, a trailing comma and a ``functions.`` namespace."""
    arguments = ", ".join(f"{key!r}: {value!r}" for key, value in call.arguments.items())
    return f"{{'name': 'functions.{call.name}', 'arguments': {{{arguments},}}}}"


COMPARE_XML = first_of("compare_multi")
POI_GLM = first_of("poi_type")
RESOURCE_NEAR = first_of("resource_key")
NAMED_EXACT = first_of("routing_named", tool="weather")
XML_AND_NEAR_JSON = {
    # the list arrives as text and is typed by compare's schema (a string without the tools)
    COMPARE_XML.id: qwen_xml(COMPARE_XML.gold),
    POI_GLM.id: "<think>Welcher POI-Typ passt?</think>\n" + glm_tags(POI_GLM.gold),
    RESOURCE_NEAR.id: near_json(RESOURCE_NEAR.gold),
    # exactly the requested JSON object: the only one that is format_ok
    NAMED_EXACT.id: call(NAMED_EXACT.gold.name, **NAMED_EXACT.gold.arguments)["text"],
}
NATIVE_RENAMED = {
    NAMED_EXACT.id: {"tool_calls": [{"name": "functions.weather", "arguments": "{}"}]},
    SLUG_TASK.id: native("weather", slug=SLUG_CANONICAL),
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
        COMPARE_XML.id: 0,
        POI_GLM.id: 0,
        RESOURCE_NEAR.id: 0,
        NAMED_EXACT.id: 1,
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
    assert scores[SLUG_TASK.id]["format_ok"] == 1
    renamed = scores[NAMED_EXACT.id]  # functions.weather read as weather, not as offered
    assert (renamed["tool_match"], renamed["format_ok"]) == (1, 0)


def test_later_turns_are_read_with_the_offered_tools(tmp_path: Path) -> None:
    """Every turn, not only the first, is typed by the schemas of the tools it was offered:
    ``limit`` written as text in XML is the integer the stations tool takes."""
    replies = [
        call("stations", slug=SLUG),
        {"text": qwen_xml(ToolCall("stations", {"slug": SLUG, "q": Q, "limit": 5}))},
        {"text": glm_tags(ToolCall("station_board_departures", {"eva": TARGET}))},
        {"text": first_departure(TARGET)},
    ]
    record, _ = run(TWO_STEP, replies)
    executed = [(c.name, dict(c.arguments), c.valid) for c in record.calls]
    assert executed == [
        ("stations", {"slug": SLUG}, True),
        ("stations", {"slug": SLUG, "q": Q, "limit": 5}, True),
        ("station_board_departures", {"eva": TARGET}, True),
    ]
    assert isinstance(record.calls[1].arguments["limit"], int)
    assert score(record).outcome == "success"
