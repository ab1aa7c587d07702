"""Surfaces: tool lists exactly as each consumer receives them.

For a suite: ``canonical`` (the ToolSpec schemas), ``mcp`` (the ``tools/list`` entries),
``openai`` (the ``tools`` of the chat-completions body tooleval builds), ``gemini`` (the
function declarations, ``parametersJsonSchema``) and ``anthropic`` (the Messages API tools).
Tools files and MCP servers give one surface each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.fileio import read_json
from tooleval.records import ToolSpec


@dataclass(frozen=True)
class ToolEntry:
    name: str
    schema: Any


@dataclass(frozen=True)
class Surface:
    name: str  # e.g. "cesium:openai", "file:tools.json", "mcp:<command>"
    kind: str  # canonical | mcp | openai | gemini | anthropic | external
    entries: tuple[ToolEntry, ...]


# These three mirror the request builders of tooleval.providers (openai_compat.build_openai_body,
# anthropic.anthropic_tool, gemini.build_gemini_body) without importing the vendor SDKs those
# modules load at import time (seconds); tests/test_schema_compat.py checks they stay identical.


def openai_tools(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The ``tools`` array of the chat-completions body the openai backend sends."""
    return [spec.to_openai() for spec in specs]


def anthropic_tools(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The ``tools`` of a Messages API request (bad names are audited, not refused)."""
    return [
        {"name": s.name, "description": s.description, "input_schema": dict(s.parameters)}
        for s in specs
    ]


def gemini_declaration(spec: ToolSpec) -> dict[str, Any]:
    """The function declaration tooleval sends to Gemini: full JSON Schema, not the subset."""
    return {
        "name": spec.name,
        "description": spec.description,
        "parametersJsonSchema": dict(spec.parameters),
    }


def suite_surfaces(suite: str, specs: Sequence[ToolSpec]) -> list[Surface]:
    def surface(kind: str, pairs: list[tuple[str, Any]]) -> Surface:
        return Surface(f"{suite}:{kind}", kind, tuple(ToolEntry(n, s) for n, s in pairs))

    functions = [t["function"] for t in openai_tools(specs)]
    declarations = [gemini_declaration(s) for s in specs]
    return [
        surface("canonical", [(s.name, s.parameters) for s in specs]),
        surface("mcp", [(s.name, s.to_mcp()["inputSchema"]) for s in specs]),
        surface("openai", [(f["name"], f.get("parameters")) for f in functions]),
        surface("gemini", [(d["name"], d["parametersJsonSchema"]) for d in declarations]),
        surface("anthropic", [(t["name"], t["input_schema"]) for t in anthropic_tools(specs)]),
    ]


def _entry(item: Any, where: str) -> ToolEntry:
    if not isinstance(item, dict):
        raise ValueError(f"{where}: a tool must be a JSON object")
    if item.get("type") == "function" and isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str):
        raise ValueError(f"{where}: a tool needs a string 'name'")
    for key in ("inputSchema", "parameters", "input_schema", "parametersJsonSchema"):
        if key in item:
            return ToolEntry(name, item[key])
    raise ValueError(f"{where} ({name}): no inputSchema, parameters or input_schema")


def entries_from_json(doc: Any, source: str) -> tuple[ToolEntry, ...]:
    """Tools from an OpenAI function list, an MCP ``tools/list`` result or a plain list."""
    if isinstance(doc, dict) and "result" in doc and isinstance(doc["result"], dict):
        doc = doc["result"]  # a whole JSON-RPC response
    if isinstance(doc, dict) and isinstance(doc.get("tools"), list):
        doc = doc["tools"]
    if not isinstance(doc, list):
        raise ValueError(f"{source}: expected a list of tools or an object with 'tools'")
    return tuple(_entry(item, f"{source}: tools[{i}]") for i, item in enumerate(doc))


def file_surface(path: Path) -> Surface:
    doc = read_json(path)  # JsonFileError (a ValueError) names the file and line
    return Surface(f"file:{path.name}", "external", entries_from_json(doc, str(path)))
