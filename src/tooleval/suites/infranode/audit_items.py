"""Per-item checks of the InfraNode audit: each returns the defects it finds in one task.

A check is a pure function of the task and an ``AuditContext`` (the tools as the model sees
them, the instructions, and a transport to execute calls on). See ``audit`` for the report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tooleval.records import Task, ToolCall
from tooleval.scoring import integer_value, listing_target, score_call
from tooleval.suites.infranode.api.facts import aliases, city_index
from tooleval.suites.infranode.audit_given import check_gloss, check_slug_derivable
from tooleval.suites.infranode.audit_records import AuditContext as AuditContext
from tooleval.suites.infranode.audit_records import Defect as Defect
from tooleval.suites.infranode.client import body_status, execute_tool
from tooleval.suites.infranode.confusables import (
    call_subject,
    mask,
    unclear_city_names,
    wording_problems,
)
from tooleval.suites.infranode.execmatch import exec_match
from tooleval.suites.infranode.generator import board_station_names, station_rows
from tooleval.suites.infranode.slugforms import display_alias, is_plain
from tooleval.suites.infranode.variants import call_variants

NOT_COVERED = "not_covered"
SLUG_RESOLUTION = "slug_resolution"
GUESSED_ARGUMENT = {SLUG_RESOLUTION: "slug", "resource_key": "resource", NOT_COVERED: "resource"}
COMPARATIVE = (
    r"besser|schlechter|wärmer|kälter|sauberer|höher|niedriger|mehr|weniger|größer|kleiner|"
    r"teurer|günstiger|billiger|sicherer|am \w+sten"
)
EITHER_OR = (
    re.compile(rf"\b({COMPARATIVE})\s*:\s*(in\s+)?#(\s*,\s*#)*\s+und\s+#", re.I),
    re.compile(r"^(wo|wer|in welcher stadt|welche stadt)\b[^?]*#(\s*,\s*#)*\s+und\s+#", re.I),
)


def descriptions(value: Any) -> Iterator[str]:
    """Every ``description`` string inside a JSON schema."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "description" and isinstance(item, str):
                yield item
            else:
                yield from descriptions(item)
    elif isinstance(value, list):
        for item in value:
            yield from descriptions(item)


def prompt_texts(context: AuditContext) -> list[str]:
    """What the model reads besides the question and the enums: instructions, descriptions."""
    texts = list(context.instructions)
    for tool in context.tools:
        texts.append(tool.description)
        texts.extend(descriptions(tool.parameters))
    return texts


def city_spellings(slug: str) -> list[str]:
    """The register name and every alias of a city, as they may be written in a question."""
    city = city_index().get(slug)
    names = [city.name_de] if city else []
    for alias in aliases():
        if alias.slug == slug:
            names += [alias.alias, alias.alias.title(), display_alias(alias.alias) or ""]
    return [n for n in names if n]


def gold_slugs(task: Task) -> list[str]:
    args = task.gold.arguments
    found = [args["slug"]] if isinstance(args.get("slug"), str) else []
    cities = args.get("cities")
    return found + [c for c in cities if isinstance(c, str)] if isinstance(cities, list) else found


def place_names(task: Task) -> list[str]:
    """Names to mask before reading the wording: the gold cities, the spoken form, the station."""
    names = [n for slug in gold_slugs(task) for n in city_spellings(slug)]
    form = task.provenance.get("slug_form")
    if isinstance(form, dict) and isinstance(form.get("text"), str):
        names.append(form["text"])
    target = task.provenance.get("target_station")
    if isinstance(target, dict) and isinstance(target.get("name"), str):
        names.append(target["name"])
    return names


def masked_question(task: Task) -> str:
    return mask(task.question, place_names(task))


def check_version(task: Task, context: AuditContext) -> list[str]:
    if task.suite_version != context.suite_version:
        return [f"suite_version {task.suite_version!r}, the suite is {context.suite_version}"]
    return []


def check_gold_executes(task: Task, context: AuditContext) -> list[str]:
    expected = NOT_COVERED if task.category == NOT_COVERED else "ok"
    try:
        response = execute_tool(context.transport, task.gold.name, task.gold.arguments)
    except ValueError as exc:
        return [f"gold call cannot be sent: {exc}"]
    status = body_status(response.body) if response.status == 200 else f"HTTP {response.status}"
    problems = [] if status == expected else [f"gold answers {status}, expected {expected}"]
    recorded = task.provenance.get("source_status")
    if recorded is not None and recorded != status:
        problems.append(f"provenance records {recorded}, the API answers {status}")
    return problems


def check_call_implies_exec(task: Task, context: AuditContext) -> list[str]:
    """call_match 1 must mean exec_match 1 for the gold, every alternative and variant."""
    problems = []
    for call in call_variants(task):
        if score_call(task, call).call_match and not exec_match(task, call, context.transport):
            problems.append(f"call_match 1 but exec_match 0 for {call.name}({call.arguments})")
    return problems[:5]


def rule_applies(call_args: Mapping[str, Any], gold_args: Mapping[str, Any]) -> bool:
    """A well-typed stations call for the gold city (where call_match must equal exec_match)."""
    q, limit = call_args.get("q"), call_args.get("limit")
    count = integer_value(limit)
    return (
        call_args.get("slug") == gold_args.get("slug")
        and (q is None or isinstance(q, str))
        and (limit is None or (count is not None and count > 0))
    )


def well_typed(call: ToolCall, gold: ToolCall) -> bool:
    """A call where call_match must equal exec_match: a stations call for the gold city with
    typed arguments, or a board call with one EVA number."""
    if call.name == gold.name:
        return rule_applies(call.arguments, gold.arguments)
    return set(call.arguments) == {"eva"} and isinstance(call.arguments["eva"], str | int)


def check_stations_rule(task: Task, context: AuditContext) -> list[str]:
    """The recorded listing is the API's, and the rule accepts exactly what the API keeps (and
    the asked board of the station's EVA number, which gives exactly what was asked)."""
    target = listing_target(task)
    if target is None:
        return []
    answer = execute_tool(context.transport, task.gold.name, task.gold.arguments)
    if list(target.listing) != [row.get("name") for row in station_rows(answer.body)]:
        return ["provenance listing differs from the API's station list"]
    problems = []
    for call in call_variants(task):
        if well_typed(call, task.gold):
            scored = score_call(task, call).call_match
            executed = exec_match(task, call, context.transport)
            if scored != executed:
                problems.append(
                    f"call_match {scored} but exec_match {executed} for {call.arguments}"
                )
    return problems[:5]


def check_wording(task: Task, context: AuditContext) -> list[str]:
    """By the confusables table the question points to its gold key alone (not for two_step)."""
    if task.category == "two_step":
        return []
    subject = call_subject(task.gold)
    if subject is None:
        return [f"no subject for the gold call {task.gold.name}"]
    alternatives = (
        call_subject(ToolCall(task.gold.name, {**task.gold.arguments, name: value}))
        for name, values in task.alternatives.items()
        for value in values
        if value is not None
    )
    accepted = frozenset(s for s in alternatives if s is not None and s != subject)
    return wording_problems(masked_question(task), subject, accepted)


def check_city_word(task: Task, context: AuditContext) -> list[str]:
    """A city that is also an everyday word ("Essen") is named where only a place fits."""
    return unclear_city_names(task.question, place_names(task))


def check_slug_rule(task: Task, context: AuditContext) -> list[str]:
    """Plain, named cities outside slug_resolution; no slug given away inside it."""
    problems = []
    for slug in gold_slugs(task):
        city = city_index().get(slug)
        if city is None:
            problems.append(f"slug {slug!r} is not in the register")
        elif task.category == SLUG_RESOLUTION:
            if re.search(rf"(?<![\w-]){re.escape(slug)}(?![\w-])", task.question.casefold()):
                problems.append(f"the question contains the slug {slug!r} itself")
        elif not is_plain(city.slug, city.name_de):
            problems.append(
                f"{city.name_de} ({slug}) needs slug conversion outside slug_resolution"
            )
        elif city.name_de not in task.question:
            problems.append(f"the question does not name {city.name_de}")
    return problems


def check_prompt_leak(task: Task, context: AuditContext) -> list[str]:
    """The argument a category asks the model to work out is not printed in the prompt."""
    argument = GUESSED_ARGUMENT.get(task.category)
    value = task.gold.arguments.get(argument) if argument else None
    if not isinstance(value, str):
        return []
    pattern = re.compile(rf"(?<![a-z0-9-]){re.escape(value)}(?![a-z0-9-])")
    if any(pattern.search(text) for text in prompt_texts(context)):
        return [f"{argument} {value!r} appears in a tool description or the instructions"]
    return []


def check_two_step(task: Task, context: AuditContext) -> list[str]:
    """The station is named in the question and is not on its city's main-station board; the
    item states which board it asks for (departures or arrivals)."""
    target = task.provenance.get("target_station")
    if task.category != "two_step":
        return []
    if not isinstance(target, dict):
        return ["no target_station in the provenance"]
    name = str(target.get("name") or "")
    problems = [] if name and name in task.question else ["the station is not named"]
    if target.get("board") not in ("departures", "arrivals"):
        problems.append("target_station.board is not 'departures' or 'arrivals'")
    board = execute_tool(
        context.transport,
        "get_city_data",
        {"slug": task.gold.arguments.get("slug"), "resource": "station-departures"},
    )
    if name in board_station_names(board.body):
        problems.append("the station is on the city's board, so get_city_data answers it too")
    return problems


def check_either_or(task: Task, context: AuditContext) -> list[str]:
    masked = masked_question(task)
    if any(p.search(masked) for p in EITHER_OR):
        return ["an either-or question joins its choices with 'und' (needs 'oder')"]
    return []


def check_one_sentence(task: Task, context: AuditContext) -> list[str]:
    """A comparison is asked in one sentence, not with a cue tacked on after it."""
    if task.category != "compare_multi":
        return []
    ends = re.findall(r"[?.!](?=\s|$)", task.question.strip())
    return [] if len(ends) <= 1 else ["the comparison is not asked in one sentence"]


Check = Callable[[Task, AuditContext], list[str]]
ITEM_CHECKS: dict[str, Check] = {
    "suite_version": check_version,
    "gold_executes": check_gold_executes,
    "call_implies_exec": check_call_implies_exec,
    "stations_rule": check_stations_rule,
    "wording": check_wording,
    "city_word": check_city_word,
    "slug_rule": check_slug_rule,
    "prompt_leak": check_prompt_leak,
    "two_step_target": check_two_step,
    "either_or": check_either_or,
    "one_sentence": check_one_sentence,
    "slug_derivable": check_slug_derivable,
    "gloss": check_gloss,
}


def item_defects(task: Task, context: AuditContext, checks: Sequence[str] = ()) -> list[Defect]:
    """Every defect the item checks (all, or those named in ``checks``) find in ``task``."""
    names = checks or tuple(ITEM_CHECKS)
    return [
        Defect(task.id, name, msg) for name in names for msg in ITEM_CHECKS[name](task, context)
    ]
