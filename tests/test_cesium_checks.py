"""Step checks that accept every correct form: schema defaults, CSS colours, equivalents …"""

from __future__ import annotations

from typing import Any

import pytest

from tooleval.suites.cesium import load_catalogue
from tooleval.suites.cesium.gazetteer import places
from tooleval.suites.cesium.matchers import mismatched_keys, schema_defaults
from tooleval.suites.cesium.routing import route_original
from tooleval.suites.cesium.routing_improved import route_improved
from tooleval.suites.cesium.scenarios import ExecutedCall, Step, load_scenarios, parse_scenarios
from tooleval.suites.cesium.workflow import check_workflow, step_mismatches

SCENARIOS = {s.id: s for s in load_scenarios()}
TOOLS = load_catalogue().by_name()


def matchers_of(step: Step) -> list[tuple[str, str, dict[str, Any]]]:
    pairs = [(step.tool, key, dict(m)) for key, m in step.args.items()]
    return pairs + [(e.tool, k, dict(m)) for e in step.equivalents for k, m in e.args.items()]


def test_absent_ok_is_only_written_where_the_schema_has_no_default() -> None:
    for scenario in SCENARIOS.values():
        for step in scenario.steps:
            for tool, key, matcher in matchers_of(step):
                defaults = schema_defaults(tool)
                if matcher.get("absentOk"):
                    assert not any(n in defaults for n in key.split("|")), (scenario.id, key)


def test_scenario_references_are_real() -> None:
    for scenario in SCENARIOS.values():
        prompt = scenario.prompt
        sent = set(route_original(prompt).tools) & set(route_improved(prompt).tools)
        for number, step in enumerate(scenario.steps):
            assert all(0 <= a < number for a in step.after), scenario.id
            for equivalent in step.equivalents:
                assert equivalent.reason and equivalent.tool in TOOLS
                assert equivalent.tool in scenario.allowed_tools and equivalent.tool in sent
            for _, _, matcher in matchers_of(step):
                if "place" in matcher:
                    assert matcher["place"] in places(), scenario.id
                if "fromResult" in matcher:
                    assert matcher["fromResult"]["step"] in step.after
        assert all(v.step < len(scenario.steps) for v in scenario.answer)


def mismatches(scenario_id: str, number: int, tool: str, args: dict[str, Any]) -> list[str] | None:
    return step_mismatches(SCENARIOS[scenario_id].steps[number], tool, args, [])


@pytest.mark.parametrize(
    ("scenario_id", "number", "name", "args"),
    [
        ("view-instant-en", 0, "setView", {"longitude": 116.3972, "latitude": 39.9163,
                                           "height": 1200}),  # heading, pitch: defaults
        ("view-instant-en", 0, "flyTo", {"longitude": 116.3972, "latitude": 39.9163,
                                         "height": 1200, "duration": 0}),  # equivalent
        ("view-instant-en", 0, "setView", {"longitude": 116.3972, "latitude": 39.9163,
                                           "height": 1200, "heading": 360}),  # = heading 0
        ("multi-view-screenshot-en", 0, "flyTo", {"longitude": 2.2945, "latitude": 48.8584,
                                                  "height": 1800}),  # duration default 2
        ("camera-orbit-en", 0, "startOrbit", {"speed": 0.01}),
        ("entity-route-zh", 0, "addMarker", {"longitude": 116.3972, "latitude": 39.9163,
                                             "label": "起点", "color": "rgb(255, 0, 0)"}),
        ("entity-route-zh", 1, "addPolyline", {"color": "hsl(240, 100%, 50%)", "coordinates": [
            [116.3972, 39.9163, 0], [116.4074, 39.9042, 0], [116.417, 39.91, 0]]}),
        ("entity-ext-rectangle-zh", 0, "addRectangle", {
            "name": "测试范围", "west": 116.3, "south": 39.85, "east": 116.5, "north": 40.0,
            "material": {"type": "color", "color": "rgba(255,255,0,0.6)"}, "outline": True,
            "outlineColor": "#FFF"}),
        ("interaction-measure-en", 0, "measure", {"mode": "distance", "positions": [
            [116.4074, 39.9042, 0], [116.3972, 39.9163, 0]]}),  # height 0, other direction
        ("geolocation-zh", 0, "geocode", {"address": "The Bund, Shanghai"}),
        ("multi-geocode-marker-en", 0, "geocode", {"address": "故宫"}),
        ("animation-track-en", 0, "createAnimation", {"name": "demo-flight", "waypoints": [
            {"longitude": 116.397, "latitude": 39.916, "height": 1000,
             "time": "2026-08-13T08:00:00+08:00"},
            {"longitude": 121.4742, "latitude": 31.2301, "height": 1200.0,
             "time": "2026-08-13T00:10:00.000Z"}]}),
    ],
)  # fmt: skip
def test_correct_forms_pass(scenario_id: str, number: int, name: str, args: Any) -> None:
    assert mismatches(scenario_id, number, name, args) == []


@pytest.mark.parametrize(
    ("scenario_id", "number", "name", "args", "keys"),
    [
        ("layer-basemap-en", 0, "setBasemap", {}, ["basemap"]),  # default is dark
        ("view-instant-en", 0, "setView", {"longitude": 116.3972, "latitude": 39.9163,
                                           "height": 1200, "heading": 359}, ["heading"]),
        ("view-instant-en", 0, "flyTo", {"longitude": 116.3972, "latitude": 39.9163,
                                         "height": 1200}, ["duration"]),  # animated 2 s
        ("multi-layer-highlight-zh", 1, "highlight", {"clear": True}, ["layerId", "clear"]),
        ("multi-layer-highlight-zh", 1, "highlight", {"featureIndex": 0}, ["layerId",
                                                                          "featureIndex"]),
        ("geolocation-zh", 0, "geocode", {"address": "上海"}, ["address"]),
        ("trajectory-zh", 0, "playTrajectory", {"name": "北京短轨迹", "coordinates": [
            [116.3972, 39.9163], [116.4074, 39.9042], [116.417, 39.91]],
            "durationSeconds": 20}, ["coordinates"]),  # heights 500/700/600 dropped
        ("animation-track-en", 0, "createAnimation", {"name": "demo-flight", "waypoints": [
            {"longitude": 116.397, "latitude": 39.916, "height": 1000,
             "time": "2026-08-13T00:00:00+08:00"},
            {"longitude": 121.474, "latitude": 31.23, "height": 1200,
             "time": "2026-08-13T00:10:00Z"}]}, ["waypoints"]),  # 8 h early
    ],
)  # fmt: skip
def test_wrong_forms_fail(scenario_id: str, number: int, name: str, args: Any, keys: Any) -> None:
    assert mismatches(scenario_id, number, name, args) == keys


def test_a_tool_that_is_not_the_step_or_an_equivalent_does_not_count() -> None:
    assert mismatches("multi-view-screenshot-en", 0, "setView", {"longitude": 2.2945}) is None


def test_absent_ok_and_absent() -> None:
    step = SCENARIOS["multi-layer-highlight-zh"].steps[1]
    earlier = [{"success": True, "data": {"id": "important-area"}}]
    assert mismatched_keys("highlight", {"layerId": "important-area"}, step.args, earlier) == []
    explicit = {"layerId": "important-area", "clear": False, "color": "#ff0"}
    assert mismatched_keys("highlight", explicit, step.args, earlier) == []


def test_workflow_accepts_the_correct_forms_the_old_checks_rejected() -> None:
    scenario = SCENARIOS["multi-layer-highlight-zh"]
    data = scenario.steps[0].args["data"]["approx"]
    calls = [
        ExecutedCall(0, "addGeoJsonLayer", {"id": "important-area", "data": data},
                     {"success": True, "data": {"id": "important-area"}}),
        ExecutedCall(1, "highlight", {"layerId": "important-area"}, {"success": True}),
    ]  # fmt: skip
    assert [s.status for s in check_workflow(scenario, calls)] == ["matched", "matched"]


@pytest.mark.parametrize(
    ("matcher", "message"),
    [
        ({"equals": 1}, r"steps\[0\]\.args\.basemap: unknown matcher key\(s\) equals"),
        ({"tol": 1}, r"args\.basemap: a matcher needs exactly one of"),
        ({"eq": 1, "approx": 1}, r"a matcher needs exactly one of"),
        ("satellite", r"a matcher must be an object"),
    ],
)
def test_bad_matchers_are_named_with_their_place(matcher: object, message: str) -> None:
    doc = {"scenarios": [{
        "id": "x", "locale": "en", "prompt": "p", "expectedToolsets": [], "requiredTools": [],
        "ordered": False, "dependent": False,
        "steps": [{"tool": "setBasemap", "args": {"basemap": matcher}}],
    }]}  # fmt: skip
    with pytest.raises(ValueError, match=message):
        parse_scenarios(doc)
