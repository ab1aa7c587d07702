"""Walking JSON Schema documents: every sub-schema with its JSON path, and strict JSON checks."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

SINGLE = (
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
MAPS = (
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
)
# Keywords that only mean something for arrays: a node with one of them and no ``type`` is an
# array schema all the same (a bare ``prefixItems`` tuple, a draft-7 ``additionalItems`` …).
ARRAY_KEYWORDS = (
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
)
LISTS = ("prefixItems", "oneOf", "anyOf", "allOf")


def iter_nodes(schema: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(path, node)`` for every object-valued sub-schema, root first.

    Paths: ``.key`` for single sub-schemas, ``.key.name`` for schema maps, ``.key[i]`` for
    schema lists (and for the old array form of ``items``). Draft-7 keywords are walked too
    (``additionalItems``, schema-valued ``dependencies``).
    """
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key in SINGLE:
        value = schema.get(key)
        if isinstance(value, dict):
            yield from iter_nodes(value, f"{path}.{key}")
        elif key == "items" and isinstance(value, list):
            for i, item in enumerate(value):
                yield from iter_nodes(item, f"{path}.items[{i}]")
    for key in MAPS:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from iter_nodes(sub, f"{path}.{key}.{name}")
    for key in LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            for i, sub in enumerate(value):
                yield from iter_nodes(sub, f"{path}.{key}[{i}]")


def json_problem(value: Any, path: str = "$") -> tuple[str, str] | None:
    """The first value strict JSON cannot carry, as ``(path, message)``; None when clean.

    Strict means: dicts with string keys, lists (or tuples, which every JSON encoder writes as
    arrays), strings, booleans, None, integers and finite floats only (no sets, bytes, NaN or
    Infinity, which lenient encoders coerce or drop).
    """
    if value is None or isinstance(value, bool | str | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, f"non-finite number {value!r}")
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            problem = json_problem(item, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return (path, f"non-string key {key!r}")
            problem = json_problem(item, f"{path}.{key}")
            if problem:
                return problem
        return None
    return (path, f"{type(value).__name__} is not a JSON value")


def types_of(node: dict[str, Any]) -> set[str]:
    value = node.get("type")
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, str)}
    return set()


def is_array_schema(node: dict[str, Any]) -> bool:
    """``type`` says array, or no ``type`` is given and an array-only keyword is present."""
    types = types_of(node)
    if types:
        return "array" in types
    return isinstance(node.get("items"), list) or any(k in node for k in ARRAY_KEYWORDS)


def depth_of(path: str) -> int:
    """Nesting depth of an object node: how many ``properties`` hops lead to it."""
    return path.count(".properties.")
