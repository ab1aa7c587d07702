"""Shared helpers for the Cesium tests: minimal valid arguments and a scripted provider."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tooleval.providers.base import ProviderError
from tooleval.records import GenerationRequest, GenerationResponse, NativeToolCall, Usage


def example_value(schema: dict[str, Any]) -> Any:
    """A small value valid against ``schema`` (covers the keywords the catalogue uses)."""
    if "oneOf" in schema:
        return example_value(schema["oneOf"][0])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        return {k: example_value(props[k]) for k in schema.get("required", [])}
    if kind == "array":
        prefix = [example_value(s) for s in schema.get("prefixItems", [])]
        need = max(schema.get("minItems", 0), len(prefix) if prefix else 0)
        rest = [example_value(schema.get("items") or {}) for _ in range(need - len(prefix))]
        return (prefix + rest)[: max(need, len(prefix))]
    if kind in ("number", "integer"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = max(low, 0) + (1 if "exclusiveMinimum" in schema else 0)
        return min(value, schema.get("maximum", value))
    if kind == "boolean":
        return True
    if kind == "string":
        if schema.get("format") == "date-time":
            return "2026-08-13T00:00:00Z"
        if "pattern" in schema:
            return "US"
        return "x" * max(schema.get("minLength", 1), 1)
    return {}


class ScriptedProvider:
    """A fake Provider answering from a script; records every request it got."""

    name = "scripted"

    def __init__(self, script: Sequence[GenerationResponse | ProviderError]) -> None:
        self.script = list(script)
        self.requests: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.requests.append(request)
        item = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(item, ProviderError):
            raise item
        return item


def calls(*pairs: tuple[str, Any]) -> GenerationResponse:
    """A response with native calls; a str argument is sent verbatim (may be invalid JSON)."""
    native = tuple(
        NativeToolCall(name, args if isinstance(args, str) else json.dumps(args), f"c{i}")
        for i, (name, args) in enumerate(pairs)
    )
    return GenerationResponse(text=None, tool_calls=native, usage=Usage(10, 5))


def answer(text: str = "Done.") -> GenerationResponse:
    return GenerationResponse(text=text, usage=Usage(10, 3))
