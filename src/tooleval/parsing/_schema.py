"""What the offered tools tell the parser: parameter types and tool names.

XML-parameter dialects (Qwen3-Coder, Seed-OSS, MiniMax, GLM) write every value as text; the
serving stacks convert it by the tool's JSON Schema, and so does ``coerce_value``: an
``integer`` parameter ``"5"`` becomes ``5``, a ``boolean`` ``"true"`` becomes ``True``, an
``array``/``object`` given as JSON (or near-JSON) is decoded. A value that does not fit its
declared type, and any value of an unknown tool or parameter, stays the text the model wrote.

``is_offered`` tells the dialects that are only calls when they name an offered tool (ReAct,
Functionary) whether they do. ``canonical_name`` strips a namespace prefix (``functions.``,
``tools.``, ``default_api.``) when the rest is an offered tool name and the whole name is not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tooleval.parsing._decode import decode_json
from tooleval.parsing._literal import decode_loose
from tooleval.records import ToolSpec

Tools = Sequence[ToolSpec]
NAMESPACES: Final = ("functions.", "tools.", "default_api.")
_INTEGER: Final = re.compile(r"[+-]?\d{1,300}")
_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BOOLEANS: Final = {"true": True, "false": False}


def tool_properties(tools: Tools, name: str) -> Mapping[str, Any] | None:
    """The ``properties`` of the offered tool ``name`` (namespace allowed), or None."""
    spec = _find_tool(tools, canonical_name(name, tools))
    if spec is None:
        return None
    properties = spec.parameters.get("properties")
    return properties if isinstance(properties, Mapping) else None


def _find_tool(tools: Tools, name: str) -> ToolSpec | None:
    return next((spec for spec in tools if spec.name == name), None)


class _LastNames:
    """The tool names of the tools sequence seen last (the runner offers the same one for
    every item). Holding the sequence keeps its identity from being reused."""

    entry: tuple[Tools, frozenset[str]] = ((), frozenset())

    @classmethod
    def of(cls, tools: Tools) -> frozenset[str]:
        seen, names = cls.entry
        if seen is not tools:
            names = frozenset(spec.name for spec in tools)
            cls.entry = (tools, names)
        return names


def is_offered(name: str, tools: Tools) -> bool:
    """Whether ``name`` (namespace allowed) names one of the offered tools."""
    return bool(tools) and canonical_name(name, tools) in _LastNames.of(tools)


def canonical_name(name: str, tools: Tools) -> str:
    """``name`` without a namespace prefix when only the rest names an offered tool."""
    if not tools:
        return name
    names = _LastNames.of(tools)
    if name in names:
        return name
    for prefix in NAMESPACES:
        if name.startswith(prefix) and name[len(prefix) :] in names:
            return name[len(prefix) :]
    return name


def _types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a schema allows, in the order given (``anyOf``/``oneOf`` flattened)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or ():
            if isinstance(option, Mapping):
                found.extend(_types(option))
    return found


def coerce_value(text: str, schema: Any) -> Any:
    """The typed value of a parameter written as text, by its JSON Schema (see module doc)."""
    if not isinstance(schema, Mapping):
        return text
    types = _types(schema)
    if "string" in types or not types:
        return text
    stripped = text.strip()
    if "null" in types and stripped in ("null", "None"):
        return None
    for kind in types:
        converted = _convert(stripped, kind)
        if converted is not _NO_VALUE:
            return converted
    return text


_NO_VALUE: Final = object()


def _convert(text: str, kind: str) -> Any:
    if kind == "integer":
        return int(text) if _INTEGER.fullmatch(text) else _NO_VALUE
    if kind == "number":
        return _number(text)
    if kind == "boolean":
        return _BOOLEANS.get(text.lower(), _NO_VALUE)
    if kind in ("array", "object"):
        return _structured(text, list if kind == "array" else dict)
    return _NO_VALUE


def _number(text: str) -> Any:
    if _INTEGER.fullmatch(text):
        return int(text)
    if not _NUMBER.fullmatch(text):
        return _NO_VALUE
    value = float(text)
    return value if math.isfinite(value) else _NO_VALUE


def _structured(text: str, kind: type) -> Any:
    decoded = decode_json(text)
    if decoded.reason is not None:
        decoded = decode_loose(text)
    if decoded.reason is None and isinstance(decoded.value, kind):
        return decoded.value
    return _NO_VALUE
