"""The improved router: same route table, fixed blind spots, nothing dropped silently.

Changes from the original, each deliberate:
1. Payloads are masked before matching: inline JSON objects/arrays, URLs, inline code and
   fenced code blocks. Words inside a GeoJSON payload ("Polygon", "Point") no longer route.
2. Inflections are matched on purpose (``geocod(e|es|ed|ing)``, ``orbit(s|ed|ing)?``, …),
   listed per route as ``improved_en`` / ``improved_zh`` in routes.json.
3. Primary toolsets are always sent whole; if they alone exceed the cap, the cap is raised
   for this prompt and a note says so. A primary intent is never dropped.
4. Supporting toolsets are not sent whole: each contributes a few companion tools (e.g. view
   gives flyTo/setView/zoomToExtent/getView), which keeps recall and cuts tools sent.
5. Greetings and thanks with no route match get no tools; other unmatched prompts still get core.
6. ``toolset:<unknown>`` is an error, not an empty tool list.
"""

from __future__ import annotations

import re
from functools import cache

from tooleval.suites.cesium.catalogue import Catalogue, load_catalogue
from tooleval.suites.cesium.routing import (
    Route,
    Selection,
    compile_terms,
    fixed_mode,
    load_route_table,
    ordered_toolsets,
)

_FENCE = re.compile(r"```.*?```", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)
_CHITCHAT = re.compile(
    r"^\W*(?:hello|hi|hey|thanks?|thank\s+you|good\s+(?:morning|evening)|what\s+can\s+you\s+do"
    r"|who\s+are\s+you|你好|您好|谢谢|多谢|你能做什么|你是谁)\b",
    re.IGNORECASE,
)


def _mask_brackets(text: str) -> str:
    """Blank out balanced {...} and [...] spans that look like JSON (contain a quote or digit)."""
    out = list(text)
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch in "{[":
            stack.append(i)
        elif ch in "}]" and stack:
            start = stack.pop()
            if not stack and re.search(r"[\"'\d:]", text[start : i + 1]):
                out[start : i + 1] = " " * (i + 1 - start)
    return "".join(out)


def mask_payloads(prompt: str) -> str:
    """The natural-language part of a prompt: code, URLs and JSON replaced by spaces."""
    text = _FENCE.sub(" ", prompt)
    text = _INLINE_CODE.sub(" ", text)
    text = _URL.sub(" ", text)
    return _mask_brackets(text)


@cache
def _improved_patterns() -> tuple[tuple[Route, re.Pattern[str]], ...]:
    return tuple(
        (r, compile_terms(r.english + r.improved_english, r.chinese + r.improved_chinese))
        for r in load_route_table().routes
    )


def _primary_tools(catalogue: Catalogue, primaries: list[str]) -> list[str]:
    tools: list[str] = []
    for toolset in primaries:
        tools.extend(t for t in catalogue.toolset_tools(toolset) if t not in tools)
    return tools


def _add_companions(
    tools: list[str], supporting: list[str], companions: dict[str, tuple[str, ...]], cap: int
) -> tuple[list[str], list[str]]:
    """Add companion tools of supporting toolsets while they fit; returns (added, dropped)."""
    added: list[str] = []
    dropped: list[str] = []
    for toolset in supporting:
        new = [t for t in companions.get(toolset, ()) if t not in tools and t not in added]
        if len(tools) + len(added) + len(new) > cap:
            dropped.append(toolset)
            continue
        added.extend(new)
    return added, dropped


def route_improved(
    prompt: str | None, mode: str = "auto", catalogue: Catalogue | None = None
) -> Selection:
    catalogue = catalogue or load_catalogue()
    if mode.startswith("toolset:") and mode.removeprefix("toolset:") not in catalogue.toolsets:
        raise ValueError(f"unknown toolset {mode.removeprefix('toolset:')!r} in mode {mode!r}")
    fixed = fixed_mode(mode, catalogue, "improved")
    if fixed is not None:
        return fixed
    text = mask_payloads("" if prompt is None else str(prompt))
    matched = [route for route, pattern in _improved_patterns() if pattern.search(text)]
    if not matched:
        if _CHITCHAT.search(text):
            return Selection("improved", "auto", (), (), (), notes=("chit-chat: no tools",))
        return Selection("improved", "auto", (), ("core",), catalogue.core)
    table = load_route_table()
    primaries = ordered_toolsets(matched)[: len({r.primary for r in matched})]
    tools = _primary_tools(catalogue, primaries)
    cap = max(table.max_tools, len(tools))
    notes = (f"cap raised to {cap} to keep every primary toolset",) if cap > table.max_tools else ()
    supporting = [t for t in ordered_toolsets(matched) if t not in primaries]
    added, dropped = _add_companions(tools, supporting, table.companions, cap)
    return Selection(
        "improved",
        "auto",
        tuple(r.name for r in matched),
        tuple(primaries),
        tuple(tools + added),
        dropped_toolsets=tuple(dropped),
        companion_tools=tuple(added),
        cap=cap,
        notes=notes,
    )
