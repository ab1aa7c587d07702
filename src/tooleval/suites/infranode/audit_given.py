"""Audit checks on what the model is given: the slug rule leads to the gold slug, no German
gloss of the gold value in a description is repeated in the question, and no city is asked the
same thing twice (nor a key shared by resource_key and not_covered).

Item checks take a task and the ``AuditContext``; suite checks take every task. See ``audit``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tooleval.records import Task, ToolCall, ToolSpec
from tooleval.scoring import listing_target
from tooleval.suites.infranode.api.facts import aliases, cities, city_index
from tooleval.suites.infranode.audit_records import AuditContext, Defect
from tooleval.suites.infranode.confusables import call_subject, fold
from tooleval.suites.infranode.slugforms import CityName, denoted_slugs, form_kind, slug_rule

MIN_GLOSS_STEM = 4


def register_names() -> tuple[CityName, ...]:
    return tuple(CityName(c.slug, c.name_de) for c in cities())


def check_slug_derivable(task: Task, context: AuditContext) -> list[str]:
    """slug_resolution: the stated slug rule leads from the name as written to the gold slug
    alone (applied to the name itself, or to the one official name a short form or an exonym
    denotes among the register's cities)."""
    if task.category != "slug_resolution":
        return []
    form = task.provenance.get("slug_form")
    text = form.get("text") if isinstance(form, Mapping) else None
    gold = task.gold.arguments.get("slug")
    city = city_index().get(gold) if isinstance(gold, str) else None
    if not isinstance(text, str) or city is None:
        return ["no spoken form (provenance slug_form.text) or no register city for the gold"]
    kind = form_kind(text, city.name_de) or "plain"
    exonyms = {a.slug for a in aliases() if a.alias.casefold() == text.casefold()}
    denoted = denoted_slugs(text, kind, register_names(), exonyms)
    if denoted != {gold}:
        found = ", ".join(sorted(denoted)) or "no register slug"
        return [
            f"the slug rule gives {found} for {text!r} ({kind}), not {gold!r} alone "
            f"(the rule gives {slug_rule(text)!r} for the name as written)"
        ]
    return []


def glosses(description: str, value: str) -> list[str]:
    """The words a description pairs with ``value``: "pharmacy (Apotheke)" -> ["Apotheke"]."""
    pattern = re.compile(rf"(?<![\w-])'?{re.escape(value)}'?\s*\(([^)]*)\)")
    return [word for match in pattern.finditer(description) for word in fold(match[1]).split()]


def enum_arguments(tool: ToolSpec, call: ToolCall) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The gold's argument values that the tool constrains to an enum, with their schema."""
    properties = tool.parameters.get("properties") or {}
    for name, value in call.arguments.items():
        schema = properties.get(name)
        if isinstance(value, str) and isinstance(schema, Mapping) and "enum" in schema:
            yield value, schema


def gloss_stem(word: str) -> str:
    """A gloss word without a final inflection letter, so "apotheke" also finds "Apotheken"."""
    return word[:-1] if len(word) > MIN_GLOSS_STEM + 1 else word


def check_gloss(task: Task, context: AuditContext) -> list[str]:
    """No word of the question is one the tool text pairs with the gold enum value (the choice
    the category measures would be given away)."""
    tool = next((t for t in context.tools if t.name == task.gold.name), None)
    if tool is None:
        return []
    question = fold(task.question)
    problems = []
    for value, schema in enum_arguments(tool, task.gold):
        texts = [tool.description, str(schema.get("description") or "")]
        for word in {w for text in texts for w in glosses(text, value)}:
            if len(word) >= MIN_GLOSS_STEM and gloss_stem(word) in question:
                problems.append(f"the question says {word!r}, the gloss of {value!r} in the tools")
    return problems


def asked_pairs(task: Task) -> list[tuple[str, str]]:
    """(city slug, subject) pairs a task asks for: one per city of its gold call (none for a task
    about one station of a list: its station, not its city, is what it asks for)."""
    subject = call_subject(task.gold)
    if subject is None or listing_target(task) is not None:
        return []
    args = task.gold.arguments
    slugs = args.get("cities") if isinstance(args.get("cities"), list) else [args.get("slug")]
    return [(slug, subject) for slug in slugs or [] if isinstance(slug, str)]


def repeated_pairs(tasks: Sequence[Task]) -> list[Defect]:
    """No city is asked for the same key (or tool subject) in two categories (within one, a
    comparison may include a city again, and slug_resolution asks one city in several written
    forms on purpose; the generator keeps single-city keyed categories free of repeats)."""
    seen: dict[tuple[str, str], Task] = {}
    found = []
    for task in tasks:
        for pair in asked_pairs(task):
            first = seen.setdefault(pair, task)
            if first.category != task.category:
                message = f"{pair[0]} {pair[1]} is asked by {first.id}"
                found.append(Defect(task.id, "repeated_pair", message))
    return found


def shared_keys(tasks: Sequence[Task], first: str, second: str) -> list[Defect]:
    """``first`` asks no key that ``second`` asks (their key guessing stays independent)."""
    keys: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        subject = call_subject(task.gold)
        if subject is not None and task.category in (first, second):
            keys[task.category].add(subject)
    return [
        Defect(None, "shared_key", f"{first} and {second} both ask for {key}")
        for key in sorted(keys[first] & keys[second])
    ]
