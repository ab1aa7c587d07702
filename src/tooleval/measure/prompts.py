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

from tooleval.measure.tokenizers import NamedTokenizer, Template
from tooleval.prompting import Mode, system_prompt
from tooleval.records import ToolSpec
from tooleval.suites import Suite

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


def measure_suite(
    suite: Suite, mode: Mode, tok: NamedTokenizer, limit: int | None = None
) -> PromptSet:
    """Sizes of every task's prompt; all tasks share one prefix."""
    system = system_prompt(suite.tools, mode)
    if mode == "native":
        system = f"{system}\n\n{tools_json(suite.tools)}"
    tasks = suite.tasks[:limit] if limit else suite.tasks
    prefixes: dict[str, Size] = {}
    items: list[ItemPrompt] = []
    for task in tasks:
        prefix, body = chat_split(system, task.question, tok.template)
        key = prefix_id(prefix)
        if key not in prefixes:
            prefixes[key] = measure_text(prefix, tok)
        items.append(ItemPrompt(task.id, key, measure_text(body, tok), task.category))
    notes = (NATIVE_NOTE,) if mode == "native" else ()
    return PromptSet(suite.name, mode, tok.name, prefixes, tuple(items), notes)


def measure_cesium(tok: NamedTokenizer, router: str = "improved") -> PromptSet:
    """First-round prompt of each Cesium scenario with the tools its router actually sends.

    ``router`` is ``improved`` or ``original`` (keyword routing per prompt), or ``all`` / ``core``
    (the whole catalogue / the core tools for every scenario, as a baseline).

    Scenarios routed to the same tools (and locale) share a prefix. Later rounds resend the
    growing transcript and are not counted here.
    """
    from tooleval.suites.cesium.catalogue import load_catalogue
    from tooleval.suites.cesium.loop import system_prompt as cesium_system
    from tooleval.suites.cesium.routing import route_original
    from tooleval.suites.cesium.routing_improved import route_improved
    from tooleval.suites.cesium.scenarios import load_scenarios

    routers = {"improved": route_improved, "original": route_original}
    if router not in (*routers, *FIXED_TOOL_SETS):
        raise ValueError(f"--router {router!r}: choose improved, original, all or core")
    route = routers.get(router, route_original)
    mode = router if router in FIXED_TOOL_SETS else "auto"
    catalogue = load_catalogue()
    prefixes: dict[str, Size] = {}
    items: list[ItemPrompt] = []
    for scenario in load_scenarios():
        selection = route(scenario.prompt, mode, catalogue)
        system = cesium_system(scenario.locale, selection)
        system = f"{system}\n\n{tools_json(catalogue.specs(selection.tools))}"
        prefix, body = chat_split(system, scenario.prompt, tok.template)
        key = prefix_id(prefix)
        if key not in prefixes:
            prefixes[key] = measure_text(prefix, tok)
        detail = f"{len(selection.tools)} tools: {','.join(selection.toolsets) or 'none'}"
        items.append(ItemPrompt(scenario.id, key, measure_text(body, tok), detail))
    notes = (
        f"router {router}; tool size estimated from their OpenAI-style JSON",
        "first round only: later rounds resend the transcript",
    )
    return PromptSet("cesium", "native", tok.name, prefixes, tuple(items), notes)
