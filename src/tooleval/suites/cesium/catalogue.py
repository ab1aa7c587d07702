"""The Cesium tool catalogue: 61 browser-safe tools in 12 toolsets, plus the 15 core tools.

The data lives in ``tools.json`` next to this module (read with ``importlib.resources``); each
tool carries its input schema (JSON Schema 2020-12), an output schema for simulated results,
its toolset and MCP-style annotations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from tooleval.fileio import package_json
from tooleval.records import JSONObject, ToolSpec

DATA_PACKAGE = "tooleval.suites.cesium"


@dataclass(frozen=True)
class CesiumTool:
    """One catalogue entry: the ToolSpec a model sees plus what only the harness needs."""

    spec: ToolSpec
    toolset: str
    core: bool
    output_schema: JSONObject
    annotations: JSONObject

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass(frozen=True)
class Catalogue:
    version: str
    toolsets: tuple[str, ...]
    core: tuple[str, ...]
    tools: tuple[CesiumTool, ...]

    def by_name(self) -> dict[str, CesiumTool]:
        return {tool.name: tool for tool in self.tools}

    def toolset_tools(self, toolset: str) -> tuple[str, ...]:
        """Tool names of one toolset in canonical order (empty for an unknown name)."""
        return tuple(tool.name for tool in self.tools if tool.toolset == toolset)

    def specs(self, names: tuple[str, ...] | list[str]) -> tuple[ToolSpec, ...]:
        table = self.by_name()
        return tuple(table[name].spec for name in names)


def read_data(filename: str) -> Any:
    """Parse a JSON data file shipped in this package (errors name the file and line)."""
    return package_json(DATA_PACKAGE, filename)


def _tool_from_json(raw: dict[str, Any], index: int) -> CesiumTool:
    try:
        spec = ToolSpec(raw["name"], raw["description"], raw["inputSchema"])
        return CesiumTool(
            spec=spec,
            toolset=raw["toolset"],
            core=bool(raw["core"]),
            output_schema=raw["outputSchema"],
            annotations=raw.get("annotations", {}),
        )
    except KeyError as exc:
        raise ValueError(f"tools.json: tools[{index}] lacks field {exc.args[0]!r}") from exc


@cache
def load_catalogue() -> Catalogue:
    doc = read_data("tools.json")
    tools = tuple(_tool_from_json(raw, i) for i, raw in enumerate(doc["tools"]))
    catalogue = Catalogue(
        version=str(doc["version"]),
        toolsets=tuple(doc["toolsets"]),
        core=tuple(doc["core"]),
        tools=tools,
    )
    _check_catalogue(catalogue)
    return catalogue


def _check_catalogue(catalogue: Catalogue) -> None:
    names = [tool.name for tool in catalogue.tools]
    if len(set(names)) != len(names):
        raise ValueError("tools.json: duplicate tool names")
    unknown = {tool.toolset for tool in catalogue.tools} - set(catalogue.toolsets)
    if unknown:
        raise ValueError(f"tools.json: tools in undeclared toolsets {sorted(unknown)}")
    missing_core = set(catalogue.core) - set(names)
    if missing_core:
        raise ValueError(f"tools.json: core tools not in the catalogue {sorted(missing_core)}")


def load_tools() -> tuple[ToolSpec, ...]:
    """All 61 tools as ToolSpecs, in canonical order."""
    return tuple(tool.spec for tool in load_catalogue().tools)
