"""Shared helper for the Cesium tests: minimal valid arguments for any catalogue schema."""

from __future__ import annotations

from typing import Any


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
