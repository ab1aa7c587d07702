"""Prompt sizes per item: the shared prefix (system + tools, cacheable) and the per-item part.

In prompt mode the tools are part of the system message. In native mode they travel in the
API's tools field; their size is estimated from the OpenAI-style JSON a provider receives (each
provider renders tools into the prompt its own way, so this is an estimate). With a ChatML
template (the embedded model) the role markers are counted too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.measure.tokenizers import NamedTokenizer, Template
from tooleval.records import Mode, ToolSpec
from tooleval.suites import Suite
from tooleval.suites.cesium import load_suite as load_cesium
from tooleval.suites.cesium.catalogue import load_catalogue
from tooleval.suites.cesium.prompting import scenario_instructions
from tooleval.suites.cesium.routing import route_original

FIXED_TOOL_SETS = ("all", "core")
NATIVE_NOTE = "native mode: tool size estimated from their OpenAI-style JSON"


@dataclass(frozen=True)
class Size:
    chars: int
    tokens: int


@dataclass(frozen=True)
class ItemPrompt:
    """One request's first prompt: which shared prefix it uses and its own part."""

    item_id: str
    prefix_id: str
    body: Size
    detail: str = ""


@dataclass(frozen=True)
class PromptSet:
    suite: str
    mode: str
    tokenizer: str
    prefixes: Mapping[str, Size]
    items: tuple[ItemPrompt, ...]
    notes: tuple[str, ...] = ()

    def input_tokens(self, item: ItemPrompt) -> int:
        return self.prefixes[item.prefix_id].tokens + item.body.tokens

    def input_chars(self, item: ItemPrompt) -> int:
        return self.prefixes[item.prefix_id].chars + item.body.chars

    @property
    def total_tokens(self) -> int:
        return sum(self.input_tokens(i) for i in self.items)

    @property
    def total_chars(self) -> int:
        return sum(self.input_chars(i) for i in self.items)


def measure_text(text: str, tok: NamedTokenizer) -> Size:
    return Size(len(text), tok.count(text))


def chat_split(system: str, user: str, template: Template) -> tuple[str, str]:
    """(shared prefix, per-item part) of a system + user conversation as the model sees it."""
    if template == "none":
        return system, user
    from tooleval.local.tokenizer import render_chatml

    prefix = render_chatml([("system", system)], add_generation_prompt=False)
    full = render_chatml([("system", system), ("user", user)])
    return prefix, full[len(prefix) :]


def tools_json(tools: Sequence[ToolSpec]) -> str:
    return json.dumps([t.to_openai() for t in tools], ensure_ascii=False, separators=(",", ":"))


def prefix_id(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def offered_tools(suite: Suite[Any], task: Any) -> tuple[ToolSpec, ...]:
    """The tools a task's first request offers (per task where the suite routes them)."""
    return suite.dialogue.tools(task) if suite.dialogue is not None else suite.tools


def measure_suite(
    suite: Suite[Any], mode: Mode, tok: NamedTokenizer, limit: int | None = None
) -> PromptSet:
    """Sizes of every task's first prompt (the suite's own messages). Tasks whose system
    message and tools are the same share a prefix."""
    tasks = suite.tasks[:limit] if limit else suite.tasks
    prefixes: dict[str, Size] = {}
    items: list[ItemPrompt] = []
    for task in tasks:
        system, user = (m.content or "" for m in suite.messages(task, mode)[:2])
        tools = offered_tools(suite, task)
        if mode == "native":
            system = f"{system}\n\n{tools_json(tools)}"
        prefix, body = chat_split(system, user, tok.template)
        key = prefix_id(prefix)
        if key not in prefixes:
            prefixes[key] = measure_text(prefix, tok)
        detail = task.category if tools == suite.tools else f"{len(tools)} tools: {task.category}"
        items.append(ItemPrompt(task.id, key, measure_text(body, tok), detail))
    notes: tuple[str, ...] = (NATIVE_NOTE,) if mode == "native" else ()
    if suite.dialogue is not None and tasks and offered_tools(suite, tasks[0]) != suite.tools:
        notes += ("tools as routed per task; first round only: later rounds resend the transcript",)
    return PromptSet(suite.name, mode, tok.name, prefixes, tuple(items), notes)


def measure_cesium(tok: NamedTokenizer, router: str = "improved") -> PromptSet:
    """First-round prompt of each Cesium scenario with the tools ``router`` sends it:
    ``improved`` or ``original`` (keyword routing per prompt, the suite's own requests), or
    ``all`` / ``core`` (the whole catalogue / the 15 core tools for every scenario, a baseline).
    Later rounds resend the growing transcript and are not counted."""
    if router not in (*FIXED_TOOL_SETS, "improved", "original"):
        raise ValueError(f"--router {router!r}: choose improved, original, all or core")
    if router not in FIXED_TOOL_SETS:
        return measure_suite(load_cesium(router), "native", tok)
    tool_set = router
    catalogue = load_catalogue()
    prefixes: dict[str, Size] = {}
    items: list[ItemPrompt] = []
    for scenario in load_cesium().tasks:
        selection = route_original(scenario.prompt, tool_set, catalogue)
        system = scenario_instructions(scenario.locale, selection.toolsets)
        system = f"{system}\n\n{tools_json(catalogue.specs(selection.tools))}"
        prefix, body = chat_split(system, scenario.prompt, tok.template)
        key = prefix_id(prefix)
        if key not in prefixes:
            prefixes[key] = measure_text(prefix, tok)
        items.append(ItemPrompt(scenario.id, key, measure_text(body, tok), f"{tool_set} tools"))
    notes = (f"every scenario gets the {tool_set} tools", NATIVE_NOTE)
    return PromptSet("cesium", "native", tok.name, prefixes, tuple(items), notes)
