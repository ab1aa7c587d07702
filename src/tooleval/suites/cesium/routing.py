"""Deterministic tool routing: which tools reach the model for a prompt, with no network.

``route_original`` reproduces the upstream keyword router exactly: 12 routes tested in fixed
order (English terms between ASCII word boundaries, Chinese terms as substrings), primary
toolsets of every matched route first, then their supporting toolsets, greedy whole-toolset
packing under a cap of 20 tools, and the 15 core tools when nothing matches. Modes ``all``,
``core`` and ``toolset:<name>`` behave as upstream (an unknown toolset gives zero tools).
The improved router lives in ``routing_improved``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tooleval.suites.cesium.catalogue import Catalogue, load_catalogue, read_data

# JavaScript's \s (without the u flag) still matches every Unicode space, U+3000 included.
_JS_SPACE = (
    "[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
)


@dataclass(frozen=True)
class Route:
    name: str
    english: tuple[str, ...]
    chinese: tuple[str, ...]
    primary: str
    supporting: tuple[str, ...]
    improved_english: tuple[str, ...]
    improved_chinese: tuple[str, ...]


@dataclass(frozen=True)
class RouteTable:
    version: str
    max_tools: int
    routes: tuple[Route, ...]
    companions: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Selection:
    """The tools a router sends for one prompt, and why."""

    router: str
    mode: str
    matched_routes: tuple[str, ...]
    toolsets: tuple[str, ...]
    tools: tuple[str, ...]
    dropped_toolsets: tuple[str, ...] = ()
    companion_tools: tuple[str, ...] = ()
    cap: int | None = None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "router": self.router,
            "mode": self.mode,
            "matchedRoutes": list(self.matched_routes),
            "toolsets": list(self.toolsets),
            "tools": list(self.tools),
            "toolCount": len(self.tools),
            "droppedToolsets": list(self.dropped_toolsets),
            "companionTools": list(self.companion_tools),
            "cap": self.cap,
            "notes": list(self.notes),
        }


@cache
def load_route_table() -> RouteTable:
    doc = read_data("routes.json")
    routes = tuple(
        Route(
            name=raw["route"],
            english=tuple(raw["en"]),
            chinese=tuple(raw["zh"]),
            primary=raw["primary"],
            supporting=tuple(raw["supporting"]),
            improved_english=tuple(raw.get("improved_en", ())),
            improved_chinese=tuple(raw.get("improved_zh", ())),
        )
        for raw in doc["routes"]
    )
    companions = {k: tuple(v) for k, v in doc.get("support_companions", {}).items()}
    return RouteTable(str(doc["version"]), int(doc["max_auto_tools"]), routes, companions)


def compile_terms(english: tuple[str, ...], chinese: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for a route: ASCII-bounded English alternatives or plain Chinese substrings."""
    words = "|".join(term.replace("\\s", _JS_SPACE) for term in english)
    parts = [f"\\b(?:{words})\\b"] if english else []
    parts += [re.escape(term) for term in chinese]
    return re.compile("|".join(parts), re.IGNORECASE | re.ASCII)


@cache
def _original_patterns() -> tuple[tuple[Route, re.Pattern[str]], ...]:
    return tuple((r, compile_terms(r.english, r.chinese)) for r in load_route_table().routes)


def ordered_toolsets(routes: list[Route]) -> list[str]:
    """Primary toolsets of the matched routes (route order), then their supporting ones."""
    ordered: list[str] = []
    for name in [r.primary for r in routes] + [s for r in routes for s in r.supporting]:
        if name not in ordered:
            ordered.append(name)
    return ordered


def pack_toolsets(
    catalogue: Catalogue, toolsets: list[str], cap: int
) -> tuple[list[str], list[str], list[str]]:
    """Greedy whole-toolset packing: (included toolsets, tools, skipped toolsets)."""
    included: list[str] = []
    tools: list[str] = []
    skipped: list[str] = []
    for toolset in toolsets:
        new = [t for t in catalogue.toolset_tools(toolset) if t not in tools]
        if len(tools) + len(new) > cap:
            skipped.append(toolset)
            continue
        tools.extend(new)
        included.append(toolset)
    return included, tools, skipped


def fixed_mode(mode: str, catalogue: Catalogue, router: str) -> Selection | None:
    """The non-auto modes (``all``, ``core``, ``toolset:<name>``); None for auto."""
    if mode == "all":
        names = tuple(t.name for t in catalogue.tools)
        return Selection(router, "all", (), catalogue.toolsets, names)
    if mode == "core":
        return Selection(router, "core", (), ("core",), catalogue.core)
    if mode.startswith("toolset:"):
        name = mode.removeprefix("toolset:")
        tools = catalogue.toolset_tools(name)
        return Selection(router, mode, (), (name,) if tools else (), tools)
    return None


def route_original(
    prompt: str | None, mode: str = "auto", catalogue: Catalogue | None = None
) -> Selection:
    """The upstream router, reproduced exactly (including its blind spots)."""
    catalogue = catalogue or load_catalogue()
    fixed = fixed_mode(mode, catalogue, "original")
    if fixed is not None:
        return fixed
    text = "" if prompt is None else str(prompt)
    matched = [route for route, pattern in _original_patterns() if pattern.search(text)]
    if not matched:
        return Selection("original", "auto", (), ("core",), catalogue.core)
    cap = load_route_table().max_tools
    included, tools, skipped = pack_toolsets(catalogue, ordered_toolsets(matched), cap)
    return Selection(
        "original",
        "auto",
        tuple(r.name for r in matched),
        tuple(included),
        tuple(tools),
        dropped_toolsets=tuple(skipped),
        cap=cap,
    )
