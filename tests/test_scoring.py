"""Scorer and metric edge cases: these rules are the benchmark's definition of correct."""

from __future__ import annotations

from tooleval.metrics import aggregate, metric_names
from tooleval.records import ItemScore, ParseResult, Task, ToolCall
from tooleval.scoring import arguments_match, score_call, score_parse


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
