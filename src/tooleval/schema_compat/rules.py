"""Schema rules. Each yields ``(JSON path, message)`` for one tool's parameter schema.

The first five are the original gate's rules; the rest model stricter provider dialects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from tooleval.schema_compat.walk import (
    depth_of,
    is_array_schema,
    iter_nodes,
    json_problem,
    types_of,
)

Check = Callable[[Any], Iterator[tuple[str, str]]]

COMBINATORS = ("oneOf", "anyOf", "allOf")
CONSTRAINTS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
)


def json_serializable(schema: Any) -> Iterator[tuple[str, str]]:
    problem = json_problem(schema)
    if problem:
        yield problem[0], f"schema is not strict JSON: {problem[1]}"


def root_object(schema: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        yield "$", 'the root schema must be an object with type "object"'


def root_union(schema: Any) -> Iterator[tuple[str, str]]:
    if isinstance(schema, dict):
        for key in COMBINATORS:
            if key in schema:
                yield f"$.{key}", f"{key} is not allowed at the root of a tool schema"


def schema_pointer(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        if "$schema" in node:
            yield f"{path}.$schema", "the $schema meta-schema pointer must not be published"


def array_items(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        if is_array_schema(node) and "items" not in node:
            yield path, "an array schema must declare items (also beside prefixItems)"


def closed_objects(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        if "object" in types_of(node) and node.get("additionalProperties") is not False:
            yield path, "every object must set additionalProperties: false"


def all_required(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        props = node.get("properties")
        if isinstance(props, dict):
            missing = [k for k in props if k not in (node.get("required") or [])]
            if missing:
                yield path, f"every property must be required; optional: {', '.join(missing)}"


def keywords_outside(allowed: frozenset[str], what: str) -> Check:
    """A check reporting every schema keyword not in ``allowed``."""

    def check(schema: Any) -> Iterator[tuple[str, str]]:
        for path, node in iter_nodes(schema):
            for key in node:
                if key not in allowed:
                    yield f"{path}.{key}", f"{key} is {what}"

    return check


def keywords_in(banned: frozenset[str], what: str) -> Check:
    def check(schema: Any) -> Iterator[tuple[str, str]]:
        for path, node in iter_nodes(schema):
            for key in node:
                if key in banned:
                    yield f"{path}.{key}", f"{key} is {what}"

    return check


def single_type(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        if isinstance(node.get("type"), list):
            yield f"{path}.type", "type must be one name, not a list"


def string_enums(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        values = node.get("enum")
        if isinstance(values, list) and not all(isinstance(v, str) for v in values):
            yield f"{path}.enum", "enum values must be strings"


def max_depth(limit: int) -> Check:
    def check(schema: Any) -> Iterator[tuple[str, str]]:
        deepest = max((depth_of(p) for p, _ in iter_nodes(schema)), default=0)
        if deepest > limit:
            yield "$", f"objects nest {deepest} levels deep; the limit is {limit}"

    return check


def min_items_zero_or_one(schema: Any) -> Iterator[tuple[str, str]]:
    for path, node in iter_nodes(schema):
        if node.get("minItems", 0) not in (0, 1):
            yield f"{path}.minItems", "minItems other than 0 or 1 is not supported"


def unenforced_constraints(schema: Any) -> Iterator[tuple[str, str]]:
    """One summary per tool: value constraints the model sees but the provider never checks."""
    found = sorted({k for _, node in iter_nodes(schema) for k in node if k in CONSTRAINTS})
    if found:
        yield "$", "accepted but not enforced on arguments: " + ", ".join(found)
