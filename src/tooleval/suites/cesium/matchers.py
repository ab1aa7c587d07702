"""Argument matchers of the scenario steps: every correct form of a value passes.

A step maps argument names to matchers; ``"label|id"`` lets either argument satisfy it. An
argument the call leaves out takes the tool's schema default (the system prompt allows
defaults, and the outcome is the same), so ``setView`` without ``pitch`` has pitch −45 and
``highlight`` without ``color`` is yellow. ``absentOk`` is only for arguments without a schema
default whose absence means the asked thing (``highlight`` without ``clear`` does not clear).

Matchers:

- ``eq``: deep equality; ``approx``: numbers within ``tol``, recursively through lists/objects;
- ``angle``: degrees within ``tol`` modulo 360 (a heading of 360 is a heading of 0);
- ``contains``: case-insensitive substring;
- ``color``: the same CSS colour in any form (named, hex, ``rgb()``, ``rgba()``, ``hsl()``),
  also a material object's ``color``;
- ``len``: list length;
- ``points``: coordinate lists ``[lon, lat(, height)]`` in order (either direction with
  ``anyDirection``, for a measured line), lon/lat within ``tol``, a missing height is 0;
- ``waypoints``: ``{longitude, latitude, height?, time}`` lists, positions as for ``points``,
  times the same instant in any UTC offset;
- ``place``: the simulated geocoder resolves the text to this place id (any alias, language);
- ``fromResult``: equals the value at a dotted path in the result of the call that did an
  earlier step;
- ``absent``: the argument must be left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from tooleval.suites.cesium.catalogue import load_catalogue
from tooleval.suites.cesium.css_color import same_color
from tooleval.suites.cesium.gazetteer import geocode

Matcher = Mapping[str, Any]
KINDS = frozenset(
    {"eq", "approx", "angle", "contains", "color", "len", "points", "waypoints", "place",
     "fromResult", "absent"}
)  # fmt: skip
MODIFIERS = frozenset({"tol", "heightTol", "anyDirection", "absentOk"})
Results = Sequence[Mapping[str, Any] | None]  # per earlier step: the matched call's result
_MISSING = object()


def matcher_problem(matcher: object) -> str | None:
    """Why a matcher from scenarios.json is malformed, or None."""
    if not isinstance(matcher, Mapping):
        return "a matcher must be an object"
    kinds = sorted(k for k in matcher if k in KINDS)
    unknown = sorted(k for k in matcher if k not in KINDS | MODIFIERS)
    if unknown:
        return f"unknown matcher key(s) {', '.join(unknown)}"
    if len(kinds) != 1:
        return f"a matcher needs exactly one of {', '.join(sorted(KINDS))}"
    return None


@cache
def schema_defaults(tool: str) -> dict[str, Any]:
    """Top-level argument defaults declared by the tool's input schema."""
    found = load_catalogue().by_name().get(tool)
    props = found.spec.parameters.get("properties", {}) if found else {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


def schema_properties(tool: str) -> frozenset[str]:
    found = load_catalogue().by_name().get(tool)
    return frozenset(found.spec.parameters.get("properties", {})) if found else frozenset()


def approx_equal(actual: object, expected: object, tol: float) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return math.isfinite(actual) and abs(actual - expected) <= tol
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(
            approx_equal(a, e, tol) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            approx_equal(actual[k], v, tol) for k, v in expected.items()
        )
    return actual == expected


def dig(value: object, path: str) -> object:
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _same_point(actual: object, expected: Sequence[float], tol: float, height_tol: float) -> bool:
    if not isinstance(actual, list) or len(actual) not in (2, 3):
        return False
    numbers = [_number(v) for v in actual]
    if any(n is None for n in numbers):
        return False
    got = [n or 0.0 for n in numbers] + [0.0] * (3 - len(numbers))
    want = [float(v) for v in expected] + [0.0] * (3 - len(expected))
    return (
        abs(got[0] - want[0]) <= tol
        and abs(got[1] - want[1]) <= tol
        and abs(got[2] - want[2]) <= height_tol
    )


def same_points(actual: object, expected: Sequence[Sequence[float]], tol: float, h: float) -> bool:
    return (
        isinstance(actual, list)
        and len(actual) == len(expected)
        and all(_same_point(a, e, tol, h) for a, e in zip(actual, expected, strict=True))
    )


def _instant(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def same_waypoints(actual: object, expected: Sequence[Mapping[str, Any]], tol: float) -> bool:
    if not isinstance(actual, list) or len(actual) != len(expected):
        return False
    for got, want in zip(actual, expected, strict=True):
        if not isinstance(got, Mapping):
            return False
        point = [got.get("longitude"), got.get("latitude"), got.get("height", 0)]
        target = [want["longitude"], want["latitude"], want.get("height", 0)]
        if not _same_point(point, target, tol, 0.5):
            return False
        if _instant(got.get("time")) is None or _instant(got.get("time")) != _instant(want["time"]):
            return False
    return True


def _color_of(value: object) -> object:
    return value.get("color") if isinstance(value, Mapping) else value


def _present_value(actual: object, matcher: Matcher, earlier: Results) -> bool:
    tol = float(matcher.get("tol", 1e-9))
    if "eq" in matcher:
        return approx_equal(actual, matcher["eq"], 0.0)
    if "approx" in matcher:
        return approx_equal(actual, matcher["approx"], tol)
    if "angle" in matcher:
        number = _number(actual)
        gap = None if number is None else (number - float(matcher["angle"])) % 360
        return gap is not None and min(gap, 360 - gap) <= tol
    if "contains" in matcher:
        return isinstance(actual, str) and matcher["contains"].lower() in actual.lower()
    if "color" in matcher:
        return same_color(_color_of(actual), matcher["color"])
    if "len" in matcher:
        return isinstance(actual, list) and len(actual) == matcher["len"]
    if "points" in matcher:
        height_tol = float(matcher.get("heightTol", 0.5))
        ways = [matcher["points"], matcher["points"][::-1]]
        ways = ways if matcher.get("anyDirection") else ways[:1]
        return any(same_points(actual, way, tol, height_tol) for way in ways)
    if "waypoints" in matcher:
        return same_waypoints(actual, matcher["waypoints"], tol)
    if "place" in matcher:
        found = geocode(actual).place if isinstance(actual, str) else None
        return found is not None and found.id == matcher["place"]
    if "fromResult" in matcher:
        source = matcher["fromResult"]
        step = int(source["step"])
        result = earlier[step] if step < len(earlier) else None
        return result is not None and approx_equal(actual, dig(result, source["path"]), tol)
    raise ValueError(f"unknown matcher {dict(matcher)!r}")


def match_value(actual: object, matcher: Matcher, earlier: Results, default: object) -> bool:
    """One argument (``_MISSING`` when left out) against one matcher.

    ``default`` is the schema default for the argument, or ``_MISSING`` when there is none.
    """
    if "absent" in matcher:
        return actual is _MISSING
    if actual is _MISSING:
        if default is _MISSING:
            return bool(matcher.get("absentOk"))
        actual = default
    return _present_value(actual, matcher, earlier)


def mismatched_keys(
    tool: str, args: Mapping[str, Any], matchers: Mapping[str, Matcher], earlier: Results
) -> list[str]:
    """The matcher keys ``args`` (a call of ``tool``) fails; empty when every one passes."""
    defaults = schema_defaults(tool)
    failed: list[str] = []
    for key, matcher in matchers.items():
        names = key.split("|")
        if "absent" in matcher:
            ok = not any(n in args for n in names)
        else:
            ok = any(
                match_value(args.get(n, _MISSING), matcher, earlier, defaults.get(n, _MISSING))
                for n in names
            )
        if not ok:
            failed.append(key)
    return failed


def replacement_keeps(
    tool: str,
    values: Mapping[str, Any],
    matchers: Mapping[str, Matcher],
    earlier: Results,
    same_tool: bool,
) -> bool:
    """Whether a later call of ``tool`` that replaces the target's state with ``values`` (left
    out = default) keeps a step's matchers true. A call of another tool that sets none of the
    matched arguments (``zoomToExtent`` after ``setView``) leaves a state the step did not ask
    for, so it does not keep them."""
    touched = schema_properties(tool)
    relevant = {k: m for k, m in matchers.items() if touched & set(k.split("|"))}
    if not relevant and not same_tool:
        return False
    return not mismatched_keys(tool, values, relevant, earlier)
