"""Deterministic routing: the original router reproduced exactly, the improved one scored."""

from __future__ import annotations

import argparse
import json
import re
from importlib import resources

import pytest

from tooleval.commands import routing
from tooleval.suites.cesium.gazetteer import places_in
from tooleval.suites.cesium.routing import route_original
from tooleval.suites.cesium.routing_eval import (
    check_anchors,
    evaluate,
    load_routing_cases,
    summarize,
)
from tooleval.suites.cesium.routing_improved import mask_payloads, route_improved
from tooleval.suites.cesium.scenarios import load_scenarios

# Upstream routing of the 30 cases: (id, toolsets sent, tools sent, toolsets skipped by the cap).
V, G, E, L, IA = "view", "geolocation", "entity", "layer", "interaction"
OBSERVED = [
    ("view-en", [V, G], 9, []), ("view-zh", [V, G], 9, []),
    ("entity-en", [E, V, G], 19, []), ("entity-zh", [E, V, G], 19, []),
    ("layer-en", [L, V, G], 18, []), ("layer-zh", [L, V, G], 18, []),
    ("camera-en", ["camera", V, G], 13, []), ("camera-zh", ["camera", V, G], 13, []),
    ("entity-ext-en", ["entity-ext", V, G], 16, []),
    ("entity-ext-zh", ["entity-ext", V, G], 16, []),
    ("animation-en", ["animation", E, G], 19, [V]), ("animation-zh", ["animation", E, G], 19, [V]),
    ("scene-en", ["scene", "camera", V], 14, []), ("scene-zh", ["scene", "camera", V], 14, []),
    ("tiles-en", ["tiles", V, IA, G], 19, []), ("tiles-zh", ["tiles", V, IA, G], 19, []),
    ("interaction-en", [IA, V, G], 12, []), ("interaction-zh", [IA, V, G], 12, []),
    ("trajectory-en", ["trajectory", V, E, G], 20, []),
    ("trajectory-zh", ["trajectory", V, E, G], 20, []),
    ("heatmap-en", ["heatmap", E, L], 20, [V, G]), ("heatmap-zh", ["heatmap", E, L], 20, [V, G]),
    ("geolocation-en", [G, V, E], 19, []), ("geolocation-zh", [G, V, E], 19, []),
    ("multi-tiles-interaction", ["tiles", IA, V, G], 19, []),
    ("multi-layer-interaction", [L, IA, V], 20, [G]),
    ("multi-entity-ext-animation", ["animation", "entity-ext", G], 16, [E, V]),
    ("multi-scene-camera", ["scene", "camera", V, G], 15, []),
    ("multi-geolocation-entity", [E, G, V], 19, []),
    ("multi-heatmap-view", ["heatmap", V, L, G], 19, []),
]  # fmt: skip
CASES = {c.id: c for c in load_routing_cases()}


def test_anchor_counts_match_upstream() -> None:
    anchors = check_anchors()
    assert [actual for _, _, actual in anchors] == [19, 19, 18, 19, 20, 15, 7, 61]
    assert all(expected == actual for _, expected, actual in anchors)


@pytest.mark.parametrize(("case_id", "toolsets", "count", "skipped"), OBSERVED)
def test_original_router_reproduces_upstream_routing(
    case_id: str, toolsets: list[str], count: int, skipped: list[str]
) -> None:
    selection = route_original(CASES[case_id].prompt)
    assert list(selection.toolsets) == toolsets
    assert len(selection.tools) == count
    assert list(selection.dropped_toolsets) == skipped


def test_original_summary_on_the_30_upstream_cases() -> None:
    upstream = [c for c in load_routing_cases() if c.source == "upstream"]
    summary = summarize("original", evaluate("original", upstream))
    assert (summary.cases, summary.passed, summary.recall) == (30, 30, 1.0)
    assert round(summary.average_tools_sent, 1) == 16.8 and summary.max_tools_sent == 20


@pytest.mark.parametrize(
    ("prompt", "routes"),
    [
        ("fly\u3000to Paris", ["view"]),  # JavaScript \s matches the ideographic space
        ("加载GeoJSON图层", ["layer"]),  # ASCII word boundary next to CJK characters
        ("stop orbiting", []),  # whole words only: no inflections
        ("Run geocoding here", []),
        ("draw a box", []),  # `boxes?` needs "boxe"
        ('{"type":"Polygon"}', ["entity"]),  # words inside payloads route
    ],
)
def test_original_matching_semantics(prompt: str, routes: list[str]) -> None:
    assert list(route_original(prompt).matched_routes) == routes


def test_original_modes() -> None:
    assert len(route_original("", "toolset:tiles").tools) == 7
    assert route_original("", "toolset:nope").tools == ()
    assert len(route_original("", "all").tools) == 61
    assert route_original(None).toolsets == ("core",)


def test_improved_masks_payloads_before_matching() -> None:
    text = 'Heat map: {"type":"Point","coordinates":[1,2]} from https://x.org/layers/a.kml `area`'
    masked = mask_payloads(text)
    assert "Point" not in masked and "layers" not in masked and "area" not in masked
    assert list(route_improved(text).matched_routes) == ["heatmap"]


def test_improved_matches_deliberate_inflections() -> None:
    assert "camera" in route_improved("Keep orbiting the tower").matched_routes
    assert "geolocation" in route_improved("Run geocoding for Shibuya").matched_routes


def test_improved_never_drops_a_primary_and_reports_what_it_drops() -> None:
    prompt = CASES["para-three-primaries-en"].prompt
    original = route_original(prompt)
    assert "entity" in original.dropped_toolsets and "addMarker" not in original.tools
    improved = route_improved(prompt)
    assert set(improved.toolsets) == {"animation", "entity-ext", "entity"}
    assert improved.cap == len(improved.tools) == 25 and improved.notes
    assert improved.dropped_toolsets == ("geolocation", "view")


def test_improved_sends_nothing_for_chit_chat_and_core_otherwise() -> None:
    assert route_improved("你好").tools == ()
    assert route_improved("Thanks, that's all").tools == ()
    assert len(route_improved("Set the heading to 30 degrees").tools) == 15


def test_improved_rejects_unknown_toolsets() -> None:
    with pytest.raises(ValueError, match="unknown toolset"):
        route_improved("", "toolset:nope")


def test_improved_beats_original_on_all_cases() -> None:
    cases = load_routing_cases()
    original = summarize("original", evaluate("original", cases))
    improved = summarize("improved", evaluate("improved", cases))
    assert improved.recall == 1.0 > original.recall
    assert improved.precision > original.precision
    assert improved.average_tools_sent < original.average_tools_sent
    upstream = summarize(
        "improved", evaluate("improved", [c for c in cases if c.source == "upstream"])
    )
    assert (upstream.passed, upstream.cases, upstream.recall) == (29, 30, 1.0)


def test_both_routers_are_scored_by_the_same_20_tool_rule() -> None:
    """The improved router raises its own cap to keep every primary: such a case fails the
    upstream rule, and its tools beyond 20 are counted apart."""
    scores = {r: evaluate(r, load_routing_cases()) for r in ("original", "improved")}
    failed = {r: [s for s in items if not s.passed] for r, items in scores.items()}
    assert [s.case.id for s in failed["improved"]] == [
        "multi-entity-ext-animation",
        "para-three-primaries-en",
    ]
    for score in failed["improved"]:
        assert not score.missing_tools and score.over_cap == 5  # only the cap, 25 tools
    assert all(s.over_cap == 0 for s in scores["original"])
    summary = summarize("improved", scores["improved"])
    assert (summary.over_cap_cases, summary.over_cap_tools) == (2, 10)
    assert summary.to_json()["overCapTools"] == 10


def test_routing_cases_naming_a_place_require_geocode() -> None:
    """The suite's system prompt says: for a place name, call geocode first."""
    for case in [*load_routing_cases(), *load_scenarios()]:
        named = places_in(case.prompt)
        gives_coordinates = re.search(r"\d+\.\d+", case.prompt) is not None
        if named and not gives_coordinates:
            assert "geocode" in case.required_tools, (case.id, [p.name for p in named])
    changed = [c.id for c in load_routing_cases() if c.changed]
    assert changed == ["view-en", "view-zh", "para-orbit-zh"]


def routing_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tooleval")
    routing.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["routing", *argv])
    code: int = args.func(args)
    return code


def test_routing_cli_scores_both_routers(capsys: pytest.CaptureFixture[str]) -> None:
    assert routing_cli("--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summaries"]["original"]["upstream"]["averageToolsSent"] == 16.8
    assert doc["summaries"]["improved"]["all"]["recall"] == 1.0
    assert [a["actual"] for a in doc["anchors"]] == [19, 19, 18, 19, 20, 15, 7, 61]
    assert doc["upstreamFailures"] == {
        "original": [],
        "improved": ["multi-entity-ext-animation"],
    }
    over = [c for c in doc["cases"]["improved"] if c["overCap"]]
    assert [(c["id"], c["toolCount"], c["overCap"]) for c in over] == [
        ("multi-entity-ext-animation", 25, 5),
        ("para-three-primaries-en", 25, 5),
    ]


def test_routing_cli_text_reports_the_cap(capsys: pytest.CaptureFixture[str]) -> None:
    assert routing_cli() == 0  # the reproduction holds; the improved router's cap is reported
    out = capsys.readouterr().out
    assert "[improved] over the cap of 20 (fails the rule): multi-entity-ext-animation (25)" in out


def test_routing_cli_one_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    assert routing_cli("--prompt", "Keep orbiting the tower", "--router", "improved", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["toolsets"] == ["camera"] and "startOrbit" in doc["tools"]
    assert routing_cli("--prompt", "x", "--router", "improved", "--mode", "toolset:nope") == 2


def test_readme_routing_table_matches_the_scores() -> None:
    readme = resources.files("tooleval.suites.cesium").joinpath("README.md").read_text("utf-8")
    cases = load_routing_cases()
    groups = {
        "30 upstream": [c for c in cases if c.source == "upstream"],
        "8 paraphrases": [c for c in cases if c.kind == "paraphrase"],
        "all 42": list(cases),
    }
    for label, group in groups.items():
        for router in ("original", "improved"):
            s = summarize(router, evaluate(router, group))
            row = (
                f"| {label} | {router} | {s.passed}/{s.cases} | {s.recall:.3f} | "
                f"{s.precision:.3f} | {s.average_tools_sent:.2f} | {s.max_tools_sent} | "
                f"{s.over_cap_cases} / {s.over_cap_tools} |"
            )
            assert row in readme
