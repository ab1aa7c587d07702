"""Scorer and metric edge cases: these rules are the benchmark's definition of correct."""

from __future__ import annotations

from typing import Any

import pytest

from tooleval.metrics import aggregate, metric_names
from tooleval.records import ItemScore, ParseResult, Task, ToolCall
from tooleval.scoring import ListingTarget, arguments_match, listing_target, score_call, score_parse
from tooleval.suites.infranode import load_tasks
from tooleval.suites.infranode.client import MemoTransport, make_transport, tool_request
from tooleval.suites.infranode.execmatch import exec_match
from tooleval.suites.infranode.variants import call_variants

REPLICA = MemoTransport(make_transport(None))
TWO_STEP = [t for t in load_tasks() if t.category == "two_step"]


def task(name: str, args: dict[str, object], **alternatives: tuple[object, ...]) -> Task:
    return Task("t-1", "cat", "?", ToolCall(name, args), "1", alternatives)


def test_exact_call_scores_one_everywhere() -> None:
    t = task("weather", {"slug": "koeln"})
    assert score_call(t, ToolCall("weather", {"slug": "koeln"})) == ItemScore(1, 1, 1, 1)


def test_no_call_is_unparsed_and_scores_zero() -> None:
    t = task("weather", {"slug": "koeln"})
    assert score_parse(t, ParseResult((), "no_json")) == ItemScore(0, 0, 0, 0)


def test_wrong_tool_right_args_counts_args_only() -> None:
    t = task("weather", {"slug": "koeln"})
    assert score_call(t, ToolCall("air_quality", {"slug": "koeln"})) == ItemScore(1, 0, 1, 0)


def test_non_canonical_slug_is_not_a_match() -> None:
    t = task("weather", {"slug": "muenchen"})
    assert score_call(t, ToolCall("weather", {"slug": "München"})).call_match == 0
    assert score_call(t, ToolCall("weather", {"slug": "Muenchen"})).call_match == 0


def test_strings_are_trimmed_but_otherwise_exact() -> None:
    t = task("weather", {"slug": "koeln"})
    assert score_call(t, ToolCall("weather", {"slug": "  koeln "})).call_match == 1
    assert score_call(t, ToolCall(" weather", {"slug": "koeln"})).tool_match == 1


def test_compare_city_order_is_irrelevant_but_membership_is_not() -> None:
    t = task("compare", {"cities": ["berlin", "koeln", "muenchen"], "resource": "weather"})
    same = {"cities": ["muenchen", "berlin", "koeln"], "resource": "weather"}
    fewer = {"cities": ["muenchen", "berlin"], "resource": "weather"}
    dup = {"cities": ["muenchen", "berlin", "berlin"], "resource": "weather"}
    assert arguments_match(t, same)
    assert not arguments_match(t, fewer)
    assert not arguments_match(t, dup)


def test_extra_argument_fails_unless_an_alternative_allows_it() -> None:
    plain = task("stations", {"slug": "berlin"})
    assert not arguments_match(plain, {"slug": "berlin", "q": "Ostkreuz"})
    with_q = task("stations", {"slug": "berlin"}, q=(None, "Ostkreuz", "ostkreuz"))
    assert arguments_match(with_q, {"slug": "berlin"})
    assert arguments_match(with_q, {"slug": "berlin", "q": "ostkreuz"})
    assert not arguments_match(with_q, {"slug": "berlin", "q": "Ostbahnhof"})


def test_missing_required_argument_fails() -> None:
    t = task("get_city_data", {"slug": "bonn", "resource": "charging"})
    assert not arguments_match(t, {"slug": "bonn"})


def test_booleans_never_equal_numbers() -> None:
    t = task("stations", {"slug": "berlin", "limit": 1})
    assert not arguments_match(t, {"slug": "berlin", "limit": True})
    assert arguments_match(t, {"slug": "berlin", "limit": 1.0})


def test_category_means_are_not_diluted_by_other_categories() -> None:
    pairs = [
        ("a", ItemScore(1, 1, 1, 1)),
        ("a", ItemScore(1, 1, 0, 0)),
        ("b", ItemScore(0, 0, 0, 0)),
        ("b", ItemScore(0, 0, 0, 0)),
    ]
    metrics = aggregate(pairs, ["a", "b", "c"])
    assert metrics["call_match"] == 0.25
    assert metrics["call_match_a"] == 0.5
    assert metrics["call_match_b"] == 0.0
    assert metrics["call_match_c"] is None
    assert tuple(metrics) == metric_names(["a", "b", "c"])


def test_null_and_blank_optional_arguments_count_as_omitted() -> None:
    t = task("weather", {"slug": "koeln"})
    assert score_call(t, ToolCall("weather", {"slug": "koeln", "q": None})).call_match == 1
    assert score_call(t, ToolCall("weather", {"slug": "koeln", "note": "  "})).call_match == 1
    assert score_call(t, ToolCall("weather", {"slug": "  "})).call_match == 0
    assert tool_request("stations", {"slug": "berlin", "q": "  ", "limit": None}) == (
        "/api/v1/cities/berlin/stations",
        {},
    )


def listing_task(listing: tuple[str, ...], name: str) -> Task:
    provenance: dict[str, Any] = {
        "target_station": {"eva": "1", "name": name, "listing": list(listing)}
    }
    return Task("s-1", "two_step", "?", ToolCall("stations", {"slug": "x"}), "2", {}, provenance)


def test_listing_target_accepts_any_filter_and_limit_that_keep_the_station() -> None:
    t = listing_task(("X Hbf", "X Süd", "X-Nord", "Xanten"), "X-Nord")
    listing = ("X Hbf", "X Süd", "X-Nord", "Xanten")
    assert listing_target(t) == ListingTarget("X-Nord", listing, eva="1")
    assert arguments_match(t, {"slug": "x"})
    assert arguments_match(t, {"slug": "x", "q": "x nord", "limit": 1})
    assert arguments_match(t, {"slug": "x", "q": "Nord"})
    assert arguments_match(t, {"slug": "x", "q": "X", "limit": 3})
    assert not arguments_match(t, {"slug": "x", "q": "X", "limit": 2})  # cut off at rank 3
    assert not arguments_match(t, {"slug": "x", "q": "Süd"})
    assert not arguments_match(t, {"slug": "x", "q": "Nord", "limit": True})
    # the API reads limit from the query string: a string of digits is that integer
    assert arguments_match(t, {"slug": "x", "q": "Nord", "limit": "5"})
    assert arguments_match(t, {"slug": "x", "q": "X", "limit": " 3 "})
    assert not arguments_match(t, {"slug": "x", "q": "X", "limit": "2"})
    assert not arguments_match(t, {"slug": "x", "q": "Nord", "limit": "5.0"})
    assert not arguments_match(t, {"slug": "x", "q": "Nord", "limit": "+5"})
    assert not arguments_match(t, {"slug": "y", "q": "Nord"})
    assert not arguments_match(t, {"slug": "x", "q": "Nord", "extra": 1})


def station_spellings(task: Task) -> list[dict[str, Any]]:
    """Correct ways to ask for the task's station that suite 1.0.0 scored 0."""
    target = task.provenance["target_station"]
    name, rank = target["name"], target["listing"].index(target["name"]) + 1
    slug = task.gold.arguments["slug"]
    rest = name.split(" ", 1)[-1].split("-", 1)[-1]
    queries = [
        name.replace(" ", "-"),
        name.replace("-", " "),
        name.replace("ß", "ss"),
        rest.upper(),
    ]
    calls = [{"slug": slug, "q": q} for q in queries]
    calls += [{"slug": slug, "q": None}, {"slug": slug, "q": ""}, {"slug": slug, "limit": rank}]
    return [*calls, {"slug": slug, "q": name, "limit": 1}]


@pytest.mark.parametrize("item", TWO_STEP, ids=lambda t: t.id)
def test_stations_rule_scores_every_correct_spelling_for_call_and_exec_alike(item: Task) -> None:
    for arguments in station_spellings(item):
        call = ToolCall("stations", arguments)
        assert score_call(item, call).call_match == 1, arguments
        assert exec_match(item, call, REPLICA) == 1, arguments
    rank = (
        item.provenance["target_station"]["listing"].index(
            item.provenance["target_station"]["name"]
        )
        + 1
    )
    cut = ToolCall("stations", {**item.gold.arguments, "limit": rank - 1})
    if rank > 1:
        assert score_call(item, cut).call_match == 0 and exec_match(item, cut, REPLICA) == 0


@pytest.mark.parametrize("item", load_tasks(), ids=lambda t: t.id)
def test_call_match_implies_exec_match_for_every_task_and_variant(item: Task) -> None:
    for call in call_variants(item):
        if score_call(item, call).call_match:
            assert exec_match(item, call, REPLICA) == 1, (item.id, call)
