"""Scoring routers on the routing cases: recall, precision and tools sent, no network.

Per case: ``recall`` = required tools sent / required tools; ``precision`` = required tools
sent / tools sent. Summaries pool cases (micro averages): Σ hits / Σ required and
Σ hits / Σ sent. A case passes (upstream criterion) when every expected toolset is among the
toolsets sent, every required tool is sent, and at most 20 tools are sent: the same rule for
both routers. The improved router may raise its own cap to keep every primary toolset; such a
case fails the rule and its tools beyond 20 are reported apart (``over_cap``,
``overCapCases``, ``overCapTools``). Negative cases (no required tools) pass when nothing
beyond the core fallback is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from tooleval.suites.cesium.catalogue import read_data
from tooleval.suites.cesium.routing import Selection, load_route_table, route_original
from tooleval.suites.cesium.routing_improved import route_improved

Router = Callable[[str], Selection]
ROUTERS: dict[str, Router] = {
    "original": lambda prompt: route_original(prompt),
    "improved": lambda prompt: route_improved(prompt),
}

# Upstream unit-test anchors: (label, mode, prompt, expected tool count).
ANCHORS: tuple[tuple[str, str, str, int], ...] = (
    ("tiles prompt (en)", "auto", "Load 3D Tiles and enable edge display", 19),
    ("tiles prompt (zh)", "auto", "加载三维瓦片并设置边缘显示", 19),
    ("GeoJSON layer prompt", "auto", "Load a GeoJSON layer and update its style", 18),
    ("animation prompt", "auto", "Create an animation and track the entity", 19),
    ("layer + highlight", "auto", "Load a GeoJSON layer and highlight the important area", 20),
    ("greeting (core fallback)", "auto", "你好", 15),
    ("toolset:tiles", "toolset:tiles", "", 7),
    ("all", "all", "", 61),
)


@dataclass(frozen=True)
class RoutingCase:
    id: str
    locale: str
    prompt: str
    expected_toolsets: tuple[str, ...]
    required_tools: tuple[str, ...]
    source: str
    kind: str
    changed: str = ""  # how and why tooleval changed an upstream case (a documented deviation)


@dataclass(frozen=True)
class CaseScore:
    case: RoutingCase
    selection: Selection
    missing_tools: tuple[str, ...]
    passed: bool

    @property
    def hits(self) -> int:
        return len(self.case.required_tools) - len(self.missing_tools)

    @property
    def over_cap(self) -> int:
        """Tools sent beyond the rule's limit of 20."""
        return max(0, len(self.selection.tools) - load_route_table().max_tools)


@dataclass(frozen=True)
class RoutingSummary:
    router: str
    cases: int
    passed: int
    recall: float
    precision: float
    average_tools_sent: float
    max_tools_sent: int
    over_cap_cases: int = 0
    over_cap_tools: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "router": self.router,
            "cases": self.cases,
            "passed": self.passed,
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
            "averageToolsSent": round(self.average_tools_sent, 2),
            "maxToolsSent": self.max_tools_sent,
            "overCapCases": self.over_cap_cases,
            "overCapTools": self.over_cap_tools,
        }


def _case(raw: dict[str, object], index: int) -> RoutingCase:
    try:
        return RoutingCase(
            id=str(raw["id"]),
            locale=str(raw["locale"]),
            prompt=str(raw["prompt"]),
            expected_toolsets=tuple(raw["expectedToolsets"]),  # type: ignore[arg-type]
            required_tools=tuple(raw["requiredTools"]),  # type: ignore[arg-type]
            source=str(raw["source"]),
            kind=str(raw["kind"]),
            changed=str(raw.get("changed", "")),
        )
    except KeyError as exc:
        raise ValueError(f"routing_cases.json: cases[{index}] lacks {exc.args[0]!r}") from exc


@cache
def load_routing_cases() -> tuple[RoutingCase, ...]:
    doc = read_data("routing_cases.json")
    return tuple(_case(raw, i) for i, raw in enumerate(doc["cases"]))


def score_case(case: RoutingCase, selection: Selection) -> CaseScore:
    missing = tuple(t for t in case.required_tools if t not in selection.tools)
    limit = load_route_table().max_tools  # the rule's 20, whatever cap the router used
    toolsets_ok = all(t in selection.toolsets for t in case.expected_toolsets)
    if case.kind == "negative":
        passed = selection.toolsets in ((), ("core",))
    else:
        passed = not missing and toolsets_ok and len(selection.tools) <= limit
    return CaseScore(case, selection, missing, passed)


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def summarize(router: str, scores: Sequence[CaseScore]) -> RoutingSummary:
    sent = [len(s.selection.tools) for s in scores]
    hits = sum(s.hits for s in scores)
    return RoutingSummary(
        router=router,
        cases=len(scores),
        passed=sum(s.passed for s in scores),
        recall=ratio(hits, sum(len(s.case.required_tools) for s in scores)),
        precision=ratio(hits, sum(sent)),
        average_tools_sent=ratio(sum(sent), len(scores)),
        max_tools_sent=max(sent, default=0),
        over_cap_cases=sum(s.over_cap > 0 for s in scores),
        over_cap_tools=sum(s.over_cap for s in scores),
    )


def evaluate(router: str, cases: Sequence[RoutingCase]) -> list[CaseScore]:
    route = ROUTERS[router]
    return [score_case(case, route(case.prompt)) for case in cases]


def check_anchors() -> list[tuple[str, int, int]]:
    """(label, expected, actual) for each upstream anchor under the original router."""
    return [
        (label, expected, len(route_original(prompt, mode).tools))
        for label, mode, prompt, expected in ANCHORS
    ]
