"""``tooleval audit``: prove mechanically that every InfraNode item is defensible.

Per item (``audit_items``): the gold executes with the expected status; call_match 1 implies
exec_match 1 for the gold, every alternative and generated variant; the stations rule accepts
exactly what the API keeps; the wording points to the gold key alone (confusables table) and
asks only for what the answer holds; the slug rule per category; nothing the model must work
out is printed in the prompt; two_step stations are named and off their city's board; either-or
questions say "oder". Across items: no question twice, no template shared by two categories,
and varied openings, templates and registers per category.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tooleval.records import Task, ToolSpec
from tooleval.suites.infranode.api.facts import aliases, cities, city_index, partial_coverage
from tooleval.suites.infranode.audit_given import repeated_pairs, shared_keys
from tooleval.suites.infranode.audit_items import (
    NOT_COVERED,
    SLUG_RESOLUTION,
    AuditContext,
    Defect,
    city_spellings,
    gold_slugs,
    item_defects,
)
from tooleval.suites.infranode.client import (
    MemoTransport,
    Transport,
    execute_tool,
    make_transport,
)
from tooleval.suites.infranode.confusables import load_table, mask
from tooleval.suites.infranode.phrasing import opening
from tooleval.suites.infranode.prompting import NATIVE_INSTRUCTIONS, PROMPT_INSTRUCTIONS
from tooleval.suites.infranode.slugforms import CityName, form_kind, is_plain, spoken_forms

MAX_OPENING_SHARE = 0.3
MAX_TEMPLATE_SHARE = 0.25


@dataclass(frozen=True)
class CategoryStats:
    """How varied one category's questions are."""

    category: str
    items: int
    templates: int
    top_template: int
    openings: int
    top_opening: tuple[str, int]
    registers: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)  # keys, POI types or slug forms

    def to_json(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "items": self.items,
            "templates": self.templates,
            "top_template_uses": self.top_template,
            "openings": self.openings,
            "top_opening": {"word": self.top_opening[0], "items": self.top_opening[1]},
            "registers": self.registers,
            "kinds": self.kinds,
        }


@dataclass(frozen=True)
class AuditReport:
    suite: str
    version: str
    source: str
    tasks: int
    defects: tuple[Defect, ...]
    categories: tuple[CategoryStats, ...]

    @property
    def ok(self) -> bool:
        return not self.defects

    def counts(self) -> dict[str, int]:
        return dict(Counter(d.check for d in self.defects))

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "version": self.version,
            "source": self.source,
            "tasks": self.tasks,
            "ok": self.ok,
            "defects_by_check": self.counts(),
            "defects": [d.to_json() for d in self.defects],
            "categories": [c.to_json() for c in self.categories],
        }


def template_of(task: Task) -> str:
    """The template a question came from: recorded by the generator, else its masked text."""
    phrasing = task.provenance.get("phrasing")
    if isinstance(phrasing, dict) and isinstance(phrasing.get("template"), str):
        return str(phrasing["template"])
    names = [n for slug in gold_slugs(task) for n in city_spellings(slug)]
    return mask(task.question, names).replace("#", "{city}")


def register_of(task: Task) -> str | None:
    phrasing = task.provenance.get("phrasing")
    register = phrasing.get("register") if isinstance(phrasing, dict) else None
    return register if isinstance(register, str) else None


def kind_of(task: Task) -> str:
    """What varies inside a category: the slug form, the key or POI type, else the tool."""
    form = task.provenance.get("slug_form")
    if isinstance(form, dict) and isinstance(form.get("kind"), str):
        return str(form["kind"])
    if task.category == SLUG_RESOLUTION:
        return written_form_kind(task)
    args = task.gold.arguments
    for name in ("resource", "type"):
        if isinstance(args.get(name), str):
            return str(args[name])
    return task.gold.name


def written_form_kind(task: Task) -> str:
    """The kind of the city name a slug_resolution question writes (see ``slugforms``)."""
    slug = task.gold.arguments.get("slug")
    city = city_index().get(slug) if isinstance(slug, str) else None
    if city is None:
        return "unknown"
    written = [n for n in city_spellings(city.slug) if n in task.question]
    longest = max(written, key=len, default="")
    return (form_kind(longest, city.name_de) or "plain") if longest else "unknown"


def available_kinds(context: AuditContext) -> dict[str, frozenset[str]]:
    """What each keyed category could vary over: askable keys with the right coverage for some
    plain city (resource_key: only keys that every city covers; the partial ones are
    not_covered's), askable POI types and compare resources, the slug form kinds of the register."""
    table = load_table()
    asked = {s for s, entry in table.subjects.items() if entry.asked}
    ok: set[str] = set()
    missing: set[str] = set()
    for city in cities():
        if not is_plain(city.slug, city.name_de):
            continue
        body = execute_tool(context.transport, "get_city_overview", {"slug": city.slug}).body
        for row in (body.get("data") or {}).get("data_types") or []:
            (ok if row.get("available") else missing).add(str(row.get("type")))
    names = [CityName(c.slug, c.name_de) for c in cities()]
    forms = spoken_forms(names, ((a.alias, a.slug, a.documented) for a in aliases()))
    return {
        "resource_key": frozenset(
            enum_values(context, "get_city_data", "resource") & ok & asked - set(partial_coverage())
        ),
        NOT_COVERED: frozenset(enum_values(context, "get_city_data", "resource") & missing & asked),
        "poi_type": frozenset(
            t for t in enum_values(context, "pois", "type") if f"poi:{t}" in asked
        ),
        "compare_multi": frozenset(
            r for r in enum_values(context, "compare", "resource") if table.canonical(r) in asked
        ),
        SLUG_RESOLUTION: frozenset(f.kind for f in forms),
    }


def enum_values(context: AuditContext, tool: str, argument: str) -> set[str]:
    for spec in context.tools:
        if spec.name == tool:
            values = spec.parameters.get("properties", {}).get(argument, {}).get("enum") or []
            return {str(v) for v in values}
    return set()


def kind_defects(category: str, tasks: Sequence[Task], available: frozenset[str]) -> list[Defect]:
    """A keyed category must not repeat a key while an available one is left out."""
    kinds = {kind_of(t) for t in tasks}
    wanted = min(len(tasks), len(available))
    if len(kinds & available) >= wanted:
        return []
    message = f"{category}: {len(kinds & available)} distinct of {len(available)} available"
    return [Defect(None, "kind_variety", f"{message} over {len(tasks)} items")]


def category_stats(category: str, tasks: Sequence[Task]) -> CategoryStats:
    templates = Counter(template_of(t) for t in tasks)
    openings = Counter(opening(template_of(t).replace("{city}", "#")) for t in tasks)
    registers = Counter(r for r in (register_of(t) for t in tasks) if r is not None)
    return CategoryStats(
        category=category,
        items=len(tasks),
        templates=len(templates),
        top_template=max(templates.values(), default=0),
        openings=len(openings),
        top_opening=openings.most_common(1)[0] if openings else ("", 0),
        registers=dict(sorted(registers.items())),
        kinds=dict(sorted(Counter(kind_of(t) for t in tasks).items())),
    )


def variety_defects(stats: CategoryStats, registers_known: bool) -> list[Defect]:
    """Too many items with one opening or one template, or a single register."""
    n, found = stats.items, []
    word, count = stats.top_opening
    if count > max(2, math.ceil(MAX_OPENING_SHARE * n)):
        found.append(f"{count} of {n} questions open with '{word}'")
    if stats.top_template > max(2, math.ceil(MAX_TEMPLATE_SHARE * n)):
        found.append(f"one template is used for {stats.top_template} of {n} questions")
    if registers_known and n >= 4 and len(stats.registers) < 2:
        found.append(f"all {n} questions are in one register")
    return [Defect(None, "variety", f"{stats.category}: {m}") for m in found]


def suite_defects(
    tasks: Sequence[Task],
    categories: Sequence[str],
    available: dict[str, frozenset[str]] | None = None,
) -> list[Defect]:
    """Defects across items: duplicates, shared templates, thin variety of wording or keys."""
    found: list[Defect] = []
    by_text: dict[str, list[str]] = defaultdict(list)
    by_template: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        by_text[task.question].append(task.id)
        by_template[template_of(task)].add(task.category)
    for text, ids in by_text.items():
        if len(ids) > 1:
            found.append(Defect(ids[1], "duplicate_question", f"same text as {ids[0]}: {text}"))
    for template, cats in by_template.items():
        if len(cats) > 1:
            where = ", ".join(sorted(cats))
            found.append(
                Defect(None, "template_shared", f"{where} share the template {template!r}")
            )
    found.extend(repeated_pairs(tasks))
    found.extend(shared_keys(tasks, "resource_key", NOT_COVERED))
    for category in categories:
        in_cat = [t for t in tasks if t.category == category]
        if in_cat:
            known = all(register_of(t) is not None for t in in_cat)
            found.extend(variety_defects(category_stats(category, in_cat), known))
            if available and category in available:
                found.extend(kind_defects(category, in_cat, available[category]))
    return found


def audit_tasks(
    tasks: Sequence[Task],
    tools: Sequence[ToolSpec],
    categories: Sequence[str],
    suite_version: str,
    source: str,
    transport: Transport | None = None,
    suite: str = "infranode",
) -> AuditReport:
    """Run every check on ``tasks`` as a model would see them with ``tools``."""
    context = AuditContext(
        tools=tuple(tools),
        instructions=(PROMPT_INSTRUCTIONS, NATIVE_INSTRUCTIONS),
        transport=MemoTransport(transport or make_transport(None)),
        suite_version=suite_version,
    )
    defects = [d for task in tasks for d in item_defects(task, context)]
    defects.extend(suite_defects(tasks, categories, available_kinds(context)))
    stats = tuple(
        category_stats(c, [t for t in tasks if t.category == c])
        for c in categories
        if any(t.category == c for t in tasks)
    )
    return AuditReport(suite, suite_version, source, len(tasks), tuple(defects), stats)


def audit_suite(tasks: Sequence[Task] | None = None, source: str = "tasks.jsonl") -> AuditReport:
    """Audit the packaged InfraNode tasks, or ``tasks`` read elsewhere, against its tools."""
    from tooleval.suites.infranode import CATEGORIES, SUITE_VERSION, load_tasks, load_tools

    chosen = load_tasks() if tasks is None else tasks
    return audit_tasks(chosen, load_tools(), CATEGORIES, SUITE_VERSION, source)
