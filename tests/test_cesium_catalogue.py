"""The Cesium catalogue and argument validation (Draft 2020-12, strict RFC 3339)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from cesium_helpers import example_value
from tooleval.schema_compat.walk import iter_nodes, types_of
from tooleval.suites.cesium import load_catalogue, load_tools
from tooleval.suites.cesium.scenarios import load_scenarios
from tooleval.suites.cesium.validation import check_call, decode_arguments, validate_arguments

SIZES = {"view": 8, "entity": 10, "layer": 9, "camera": 4, "entity-ext": 7, "animation": 8,
         "scene": 2, "tiles": 7, "interaction": 3, "trajectory": 1, "heatmap": 1,
         "geolocation": 1}  # fmt: skip
CORE = ("flyTo", "setView", "getView", "addMarker", "addPolyline", "addPolygon", "addLabel",
        "addGeoJsonLayer", "setBasemap", "removeEntity", "clearAll", "geocode", "highlight",
        "measure", "screenshot")  # fmt: skip
CAT = load_catalogue()
TOOLS = CAT.by_name()


def schema(name: str) -> dict[str, Any]:
    return dict(TOOLS[name].spec.parameters)


def test_catalogue_has_61_tools_in_12_toolsets_and_15_core() -> None:
    assert len(load_tools()) == 61
    assert CAT.toolsets == tuple(SIZES)
    assert {t: len(CAT.toolset_tools(t)) for t in CAT.toolsets} == SIZES
    assert CAT.core == CORE
    assert {t.name for t in CAT.tools if t.core} == set(CORE)


def test_every_schema_is_a_closed_object_with_items_on_every_array() -> None:
    for tool in CAT.tools:
        params = dict(tool.spec.parameters)
        Draft202012Validator.check_schema(params)
        Draft202012Validator.check_schema(dict(tool.output_schema))
        assert params["type"] == "object" and params["additionalProperties"] is False
        for path, node in iter_nodes(params):
            assert "array" not in types_of(node) or "items" in node, (tool.name, path)


@pytest.mark.parametrize(
    ("tool", "prop", "facts"),
    [
        ("flyTo", "pitch", {"minimum": -90, "maximum": 90, "default": -45}),
        ("geocode", "countryCode", {"pattern": "^[A-Za-z]{2}$"}),
        ("addCylinder", "slices", {"type": "integer", "minimum": 3, "maximum": 4096}),
        ("setEdgeDisplayMode", "mode", {"enum": ["surfaces_only", "surfaces_and_edges",
                                                 "edges_only"]}),
        ("addBox", "material", {}),
    ],
)  # fmt: skip
def test_parameter_facts(tool: str, prop: str, facts: dict[str, Any]) -> None:
    node = schema(tool)["properties"][prop]
    assert {k: node[k] for k in facts} == facts
    if tool == "addBox":
        assert [b["type"] for b in node["oneOf"]] == ["string", "object"]


def test_every_tool_accepts_its_minimal_example() -> None:
    for tool in CAT.tools:
        args = example_value(schema(tool.name))
        assert validate_arguments(schema(tool.name), args) == (), tool.name


def test_reference_arguments_of_every_scenario_step_type_check() -> None:
    """Each scenario's first step tool exists and the step names only real parameters."""
    for scenario in load_scenarios():
        for step in scenario.steps:
            props = schema(step.tool)["properties"]
            for key in step.args:
                assert all(name in props for name in key.split("|")), (scenario.id, key)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-08-13T00:00:00Z", True),
        ("2026-08-13T00:10:00.250+08:00", True),
        ("2026-08-13", False),
        ("2026-08-13T00:00:00", False),
        ("Aug 13 2026", False),
        ("2026-02-30T00:00:00Z", False),
    ],
)
def test_date_time_is_strict_rfc3339(value: str, ok: bool) -> None:
    args = {"action": "setTime", "time": value}
    assert (validate_arguments(schema("controlClock"), args) == ()) is ok


def test_booleans_are_not_numbers_and_integral_floats_are_integers() -> None:
    issues = validate_arguments(schema("flyTo"), {"longitude": True, "latitude": 1})
    assert issues and issues[0].startswith("$.longitude")
    args = {"longitude": 1, "latitude": 2, "length": 1, "topRadius": 0, "bottomRadius": 1,
            "slices": 5.0}  # fmt: skip
    assert validate_arguments(schema("addCylinder"), args) == ()


def test_nan_and_infinity_are_rejected() -> None:
    assert not check_call(schema("flyTo"), '{"longitude": NaN, "latitude": 1}').valid
    assert not check_call(schema("flyTo"), '{"longitude": Infinity, "latitude": 1}').valid
    overflow = check_call(schema("flyTo"), '{"longitude": 1e999, "latitude": 1}')
    assert overflow.issues == ("$ contains NaN or Infinity, which JSON does not allow",)


@pytest.mark.parametrize(
    ("text", "issue"),
    [
        ('{"address": "x"', "arguments are not valid JSON"),
        ("[1, 2]", "arguments must decode to an object"),
        ('"text"', "arguments must decode to an object"),
    ],
)
def test_bad_argument_text_is_an_issue_never_an_exception(text: str, issue: str) -> None:
    result = decode_arguments(text)
    assert result.arguments is None and result.issues[0].startswith(issue)


def test_schema_traps_are_caught_with_paths() -> None:
    marker = {"longitude": 116.3972, "latitude": 39.9163, "name": "Forbidden City"}
    assert "'name' was unexpected" in validate_arguments(schema("addMarker"), marker)[0]
    fly = {"longitude": 2.2945, "latitude": 48.8584, "pitch": -90.5}
    assert validate_arguments(schema("flyTo"), fly)[0].startswith("$.pitch")
    waypoints = [{"longitude": 1, "latitude": 2, "time": "soon"}] * 2
    issue = validate_arguments(schema("createAnimation"), {"waypoints": waypoints})[0]
    assert issue.startswith("$.waypoints[0].time")


def test_empty_arguments_text_means_no_arguments() -> None:
    assert check_call(schema("screenshot"), "").valid
    assert check_call(schema("screenshot"), json.dumps({})).valid


def test_every_data_file_carries_the_suite_version() -> None:
    from tooleval.suites.cesium.catalogue import read_data

    files = ("tools.json", "routes.json", "routing_cases.json", "scenarios.json")
    versions = {name: read_data(name)["version"] for name in files}
    assert versions == dict.fromkeys(files, CAT.version)
    assert CAT.version == "2.0.0"
