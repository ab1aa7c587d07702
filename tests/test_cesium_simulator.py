"""Simulated tools: argument-aware, stateful, and always inside their output schemas."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from cesium_helpers import example_value
from tooleval.suites.cesium import load_catalogue
from tooleval.suites.cesium.scenarios import ExecutedCall, load_scenarios
from tooleval.suites.cesium.simulator import SimulatedScene
from tooleval.suites.cesium.workflow import check_workflow

CAT = load_catalogue()
TOOLS = CAT.by_name()


def assert_valid_result(name: str, result: dict[str, Any]) -> None:
    errors = list(Draft202012Validator(dict(TOOLS[name].output_schema)).iter_errors(result))
    assert not errors, (name, result, errors[0].message)


def test_every_tool_result_fits_its_output_schema_before_and_after_setup() -> None:
    scene = SimulatedScene()
    for tool in CAT.tools:  # on an empty scene: many calls fail, still in shape
        assert_valid_result(
            tool.name, scene.execute(tool.name, example_value(dict(tool.spec.parameters)))
        )
    scene = SimulatedScene()
    marker = scene.execute("addMarker", {"longitude": 1, "latitude": 2})["data"]["entityId"]
    layer = scene.execute("addGeoJsonLayer", {"id": "x"})["data"]["id"]
    for tool in CAT.tools:
        args = example_value(dict(tool.spec.parameters))
        for key in ("entityId", "layerId"):
            if key in args:
                args[key] = marker if key == "entityId" else layer
        assert_valid_result(tool.name, scene.execute(tool.name, args))  # fmt: skip


@pytest.mark.parametrize(
    ("address", "lon", "lat"),
    [
        ("Forbidden City", 116.3972, 39.9163),
        ("上海外滩", 121.4903, 31.2397),
        ("北京市东城区", 116.4160, 39.9288),  # the district inside 北京, not the city
        ("1 Market Street, San Francisco", -122.3942, 37.7942),
        ("Tokyo Tower", 139.7454, 35.6586),  # the landmark, not the city centre
        ("Bund, Shanghai, China", 121.4903, 31.2397),
    ],
)
def test_geocode_returns_the_right_place(address: str, lon: float, lat: float) -> None:
    result = SimulatedScene().execute("geocode", {"address": address})
    assert (result["success"], result["longitude"], result["latitude"]) == (True, lon, lat)
    assert_valid_result("geocode", result)
    failed = SimulatedScene().execute("geocode", {"address": "Atlantis"})
    assert failed["success"] is False and "Atlantis" in failed["error"]
    assert_valid_result("geocode", failed)


def test_created_ids_are_echoed_or_fresh_and_unknown_ids_fail() -> None:
    scene = SimulatedScene()
    first = scene.execute("createAnimation", {"waypoints": []})["data"]["entityId"]
    second = scene.execute("createAnimation", {"waypoints": []})["data"]["entityId"]
    assert (first, second) == ("animation-1", "animation-2")
    assert scene.execute("trackEntity", {"entityId": first})["success"] is True
    assert scene.execute("trackEntity", {"entityId": "eval-createAnimation"})["success"] is False
    tiles = scene.execute("load3dTiles", {"id": "city-tiles", "url": "https://e.x/t.json"})
    assert tiles["data"]["id"] == "city-tiles"
    edge = {"tilesetId": "city-tiles", "mode": "edges_only"}
    assert scene.execute("setEdgeDisplayMode", edge)["success"] is True
    edge["tilesetId"] = "other"
    assert scene.execute("setEdgeDisplayMode", edge)["error"] == "unknown tileset id 'other'"
    assert scene.execute("removeLayer", {"id": "city-tiles"})["success"] is True
    assert scene.execute("highlight", {"layerId": "city-tiles"})["success"] is False


def test_state_persists_across_calls() -> None:
    scene = SimulatedScene()
    scene.execute("flyTo", {"longitude": 2.2945, "latitude": 48.8584, "height": 1800})
    scene.execute("saveViewpoint", {"name": "paris"})
    scene.execute("setView", {"longitude": 0, "latitude": 0})
    assert scene.execute("loadViewpoint", {"name": "paris"})["success"] is True
    assert scene.execute("getView", {})["data"]["longitude"] == 2.2945
    assert scene.execute("loadViewpoint", {"name": "tokyo"})["success"] is False
    measured = scene.execute("measure", {"mode": "distance", "positions": [[0, 0], [0, 1]]})
    assert round(measured["data"]["value"] / 1000) == 111


SCENARIOS = {s.id: s for s in load_scenarios()}


def executed(*items: tuple[str, dict[str, Any], dict[str, Any]]) -> list[ExecutedCall]:
    return [ExecutedCall(i, n, a, r) for i, (n, a, r) in enumerate(items)]


GEO = ("geocode", {"address": "Forbidden City"},
       {"success": True, "longitude": 116.3972, "latitude": 39.9163})  # fmt: skip
MARK = ("addMarker", {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"},
        {"success": True, "data": {"entityId": "marker-1"}})  # fmt: skip


def statuses(scenario_id: str, calls: list[ExecutedCall]) -> list[str]:
    return [s.status for s in check_workflow(SCENARIOS[scenario_id], calls)]


def test_workflow_in_order_with_values_from_results() -> None:
    assert statuses("multi-geocode-marker-en", executed(GEO, MARK)) == ["matched", "matched"]


def test_workflow_order_violation_and_value_mismatch() -> None:
    assert statuses("multi-geocode-marker-en", executed(MARK, GEO)) == [
        "matched",
        "order_violation",
    ]
    wrong = ("addMarker", {"longitude": 0, "latitude": 0, "label": "Forbidden City"}, MARK[2])
    assert statuses("multi-geocode-marker-en", executed(GEO, wrong)) == [
        "matched",
        "value_mismatch",
    ]
    assert statuses("multi-geocode-marker-en", executed(GEO)) == ["matched", "missing"]


def test_workflow_track_entity_needs_the_created_id() -> None:
    waypoints = SCENARIOS["animation-track-en"].steps[0].args["waypoints"]["waypoints"]
    anim = ("createAnimation", {"name": "demo-flight", "waypoints": waypoints},
            {"success": True, "data": {"entityId": "animation-1"}})  # fmt: skip
    ok = ("trackEntity", {"entityId": "animation-1"}, {"success": True})
    empty = ("trackEntity", {}, {"success": True})
    assert statuses("animation-track-en", executed(anim, ok)) == ["matched", "matched"]
    assert statuses("animation-track-en", executed(anim, empty))[1] == "value_mismatch"


def test_workflow_colour_and_alternative_argument_names() -> None:
    rect = {"name": "测试范围", "west": 116.3, "south": 39.85, "east": 116.5, "north": 40.0,
            "material": {"type": "color", "color": "#FF0"}, "outline": True,
            "outlineColor": "#ffffff"}  # fmt: skip
    calls = executed(("addRectangle", rect, {"success": True}))
    assert statuses("entity-ext-rectangle-zh", calls) == ["matched"]
    heat = SCENARIOS["heatmap-en"].steps[0].args["data"]["approx"]
    call = ("addHeatmap", {"id": "demand", "data": heat, "radius": 40}, {"success": True})
    assert statuses("heatmap-en", executed(call)) == ["matched"]
