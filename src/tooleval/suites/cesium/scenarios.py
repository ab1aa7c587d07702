"""The 15 executable scenarios and the workflow check (ordered steps + argument matchers).

A step names a tool and matchers for its arguments. An argument key may list alternatives
(``"label|id"``: any one of them may satisfy the matcher). Matchers:
``eq`` (deep equality), ``approx`` (numbers, recursively through lists/objects, within ``tol``),
``contains`` (case-insensitive substring), ``color`` (a CSS colour name or hex, also inside a
material object's ``color``), ``len`` (list length), ``fromResult`` (equals the value at a dotted
path in the result of the call that satisfied an earlier step, numbers within ``tol``),
``absent`` (the argument must be missing). ``absentOk`` lets an omitted argument pass when the
schema default means the same.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from tooleval.records import ExecutedCall as ExecutedCall
from tooleval.suites.cesium.catalogue import read_data

COLORS = {
    "red": "#ff0000",
    "blue": "#0000ff",
    "yellow": "#ffff00",
    "white": "#ffffff",
    "green": "#008000",
    "black": "#000000",
}


@dataclass(frozen=True)
class Step:
    tool: str
    args: Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Scenario:
    id: str
    locale: str
    prompt: str
    expected_toolsets: tuple[str, ...]
    required_tools: tuple[str, ...]
    allowed_tools: tuple[str, ...]
    ordered: bool
    dependent: bool
    steps: tuple[Step, ...]

    @property
    def category(self) -> str:
        """The suite's categories are the locales (``en``, ``zh-CN``)."""
        return self.locale

    @property
    def question(self) -> str:
        return self.prompt


@dataclass(frozen=True)
class StepOutcome:
    tool: str
    status: str  # matched | order_violation | value_mismatch | missing
    call_index: int | None
    detail: str = ""


def _scenario(raw: dict[str, Any], index: int) -> Scenario:
    try:
        return Scenario(
            id=raw["id"],
            locale=raw["locale"],
            prompt=raw["prompt"],
            expected_toolsets=tuple(raw["expectedToolsets"]),
            required_tools=tuple(raw["requiredTools"]),
            allowed_tools=tuple(raw.get("allowedTools") or raw["requiredTools"]),
            ordered=bool(raw["ordered"]),
            dependent=bool(raw["dependent"]),
            steps=tuple(Step(s["tool"], s.get("args", {})) for s in raw["steps"]),
        )
    except KeyError as exc:
        raise ValueError(f"scenarios.json: scenarios[{index}] lacks {exc.args[0]!r}") from exc


@cache
def load_scenarios() -> tuple[Scenario, ...]:
    doc = read_data("scenarios.json")
    return tuple(_scenario(raw, i) for i, raw in enumerate(doc["scenarios"]))


def normalize_color(value: object) -> str | None:
    if isinstance(value, Mapping):
        value = value.get("color")
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if len(text) == 4 and text.startswith("#"):
        text = "#" + "".join(ch * 2 for ch in text[1:])
    text = text[:7] if text.startswith("#") and len(text) == 9 else text
    return COLORS.get(text, text)


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


def match_value(
    present: bool, actual: object, matcher: Mapping[str, Any], earlier: Sequence[ExecutedCall]
) -> bool:
    """Whether one argument satisfies one matcher; ``earlier`` = calls matched by prior steps."""
    if "absent" in matcher:
        return not present
    if not present:
        return bool(matcher.get("absentOk"))
    tol = float(matcher.get("tol", 1e-9))
    if "eq" in matcher:
        return approx_equal(actual, matcher["eq"], 0.0)
    if "approx" in matcher:
        return approx_equal(actual, matcher["approx"], tol)
    if "contains" in matcher:
        return isinstance(actual, str) and matcher["contains"].lower() in actual.lower()
    if "color" in matcher:
        return normalize_color(actual) == normalize_color(matcher["color"])
    if "len" in matcher:
        return isinstance(actual, list) and len(actual) == matcher["len"]
    if "fromResult" in matcher:
        source = matcher["fromResult"]
        step = int(source["step"])
        if step >= len(earlier):
            return False
        return approx_equal(actual, dig(earlier[step].result, source["path"]), tol)
    raise ValueError(f"unknown matcher {dict(matcher)!r}")


def call_matches(call: ExecutedCall, step: Step, earlier: Sequence[ExecutedCall]) -> bool:
    for key, matcher in step.args.items():
        names = key.split("|")
        if "absent" in matcher:
            if any(n in call.arguments for n in names):
                return False
            continue
        if not any(
            match_value(n in call.arguments, call.arguments.get(n), matcher, earlier) for n in names
        ):
            return False
    return True
