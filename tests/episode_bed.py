"""Scripted episodes built from each task's executed gold calls (survives a regenerated suite).

Correct episodes make the gold calls and answer with the key facts in several German styles
(exact with decimal comma, hedged and rounded, Mio./space thousands, cents, JSON-style
decimal point, clock times local or UTC, gap reports in other words). Wrong episodes are
principled perturbations: a contradicted value, a wrong sign, swapped compared cities,
another city's value, a train reported punctual, an invented number, and for not_covered a
denial of the phenomenon, another city's gap, a covered city's value as the asked city's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode.client import Transport
from tooleval.suites.infranode.episodes.entities import display_name
from tooleval.suites.infranode.episodes.facts import Fact, FactBase
from tooleval.suites.infranode.episodes.goldchain import execute, gold_calls, key_facts
from tooleval.suites.infranode.episodes.grounding import key_fact_ids
from tooleval.suites.infranode.episodes.records import ExecutedCall
from tooleval.suites.infranode.episodes.scoring import BOARD_TOOLS, covered_cities

UNIT_TEXT = {
    "degC": "°C",
    "pct": "%",
    "kmh": "km/h",
    "eur": "€",
    "ugm3": "µg/m³",
    "km2": "km²",
    "cm": "cm",
    "mw": "MW",
    "min": "Minuten",
    "kwh_m2": "kWh/m²",
    "km": "km",
    "kw": "kW",
    "pp": "Prozentpunkte",
    "mwp": "MWp",
    "gwh": "GWh",
}
LABELS = {
    "temperature_c": "Temperatur",
    "humidity": "Luftfeuchtigkeit",
    "wind_speed": "Wind",
    "pm10": "PM10",
    "pm25": "PM2.5",
    "no2": "Stickstoffdioxid",
    "o3": "Ozon",
    "unemployment": "Arbeitslosenquote",
    "population": "Einwohner",
    "passenger_cars": "Pkw",
    "electric_cars": "Elektroautos",
    "total_available": "Insgesamt",
    "count": "Anzahl",
    "tourism": "Übernachtungen",
    "households": "Haushalte",
    "share": "Anteil",
    "brw_median_eur_m2": "Bodenrichtwert",
    "load": "Netzlast",
    "cases": "Straftaten",
    "registrations": "Gewerbeanmeldungen",
    "area_km2": "Fläche",
    "avg_diesel": "Diesel",
    "annual_irradiation_kwh_m2": "Einstrahlung",
    "kaufkraft_eur_je_einwohner": "Kaufkraft",
    "turnout": "Wahlbeteiligung",
    "delay_minutes": "Verspätung",
}
CONDITIONS = {"dry": "trocken", "rain": "Regen", "thunderstorm": "Gewitter", "fog": "Nebel"}
OPPOSITE = {
    "dry": "Es regnet.",
    "rain": "Es ist trocken.",
    "thunderstorm": "Es ist trocken.",
    "fog": "Es regnet in Strömen.",
}


@dataclass(frozen=True)
class Scripted:
    name: str
    calls: tuple[ExecutedCall, ...]
    answer: str
    expected: str  # the outcome class ("a|b": either)


def german_number(value: float, decimals: int, group: str = ".") -> str:
    text = f"{value:,.{decimals}f}".replace(",", "_").replace(".", ",")
    return text.replace("_", group)


def decimals_of(value: float) -> int:
    text = repr(float(value))
    return 0 if text.endswith(".0") else len(text.split(".")[1])


def statable(base: FactBase, task: Task, root: int) -> Fact | None:
    """A key number of ``root`` that the vocabulary can name."""
    keyed = key_fact_ids(base, task.question)
    scope = base.subtree(root)
    for index in sorted(keyed):
        fact = base.facts[index]
        plain = fact.record in scope and fact.shape == "number" and not fact.derived
        if plain and fact.field in LABELS and float(fact.value) > 0:
            return fact
    return None


def phrase(fact: Fact, style: str) -> str:
    value, decimals = float(fact.value), decimals_of(float(fact.value))
    label, unit = LABELS[fact.field], UNIT_TEXT.get(fact.unit or "", "")
    if style == "hedged" and value >= 20:
        step = 10 ** max(0, int(math.log10(value)) - 1)
        return f"{label}: rund {german_number(round(value / step) * step, 0)} {unit}".strip()
    if style == "big" and value >= 100_000:
        return f"{label}: {german_number(value / 1e6, 2)} Mio.".strip()
    if style == "big" and value >= 10_000 and decimals == 0:
        return f"{label}: {german_number(value, 0, ' ')} {unit}".strip()
    if style == "big" and fact.unit == "eur" and value < 10:
        return f"{label}: {german_number(value * 100, max(0, decimals - 2))} Cent"
    if style == "json":
        return f"{label}: {value} {unit}".strip()
    return f"{label}: {german_number(value, decimals)} {unit}".strip()


def where(base: FactBase, root: int) -> str:
    city = base.records[root].city
    return f"In {display_name(city)}" if city else "Dort"


def correct_answers(task: Task, base: FactBase) -> list[str]:
    if task.category == "two_step":
        return board_answers(base)
    answers = []
    for style in ("exact", "hedged", "big", "json"):
        parts = []
        for root in base.key_roots:
            fact = statable(base, task, root)
            parts.append(f"{where(base, root)}: {phrase(fact, style)}." if fact else "")
        answers.append(" ".join(parts).strip())
    for root in base.key_roots[:1]:
        condition = next((f for f in base.facts if f.field == "condition"), None)
        if condition is not None and len(base.key_roots) == 1:
            answers.append(f"{where(base, root)} ist es: {CONDITIONS[str(condition.value)]}.")
        names = [f for f in base.facts if f.key and f.shape == "text" and f.field == "name"]
        if names:
            answers.append(f"Zum Beispiel: {names[0].value}.")
    return [a for a in dict.fromkeys(answers) if a]


def head_departure(base: FactBase) -> dict[str, object]:
    root = base.key_roots[0]
    head = next(r.rid for r in base.records if r.parent == root and r.index == 0)
    return {f.field: f.value for f in base.facts if f.record == head and not f.derived}


def board_answers(base: FactBase) -> list[str]:
    head = head_departure(base)
    other = head.get("destination") or head.get("origin")
    hour, minute = str(head["planned_time"])[11:13], str(head["planned_time"])[14:16]
    utc = (int(hour) - 2) % 24
    return [
        f"Nächster Zug: {head['line']} ({other}) um {hour}:{minute} Uhr.",
        f"Um {int(hour)}.{minute} Uhr: {head['line']}, Gleis {head['platform']}.",
        f"Der {head['line']} kommt um {utc:02d}:{minute} Uhr UTC.",
    ]


def wrong_answers(task: Task, base: FactBase) -> list[tuple[str, str, str]]:
    """(name, answer, expected outcome) perturbations of the key facts."""
    out: list[tuple[str, str, str]] = []
    if task.category == "two_step":
        head = head_departure(base)
        delay = float(head.get("delay_minutes") or 0)
        hour, minute = str(head["planned_time"])[11:13], str(head["planned_time"])[14:16]
        late = f"Der {head['line']} um {hour}:{minute} Uhr hat {delay + 17:.0f} Minuten Verspätung."
        out.append(("wrong_delay", late, "contradicted"))
        if delay >= 6:
            out.append(
                (
                    "punctual",
                    f"Der {head['line']} um {hour}:{minute} ist pünktlich.",
                    "contradicted",
                )
            )
        out.append(("wrong_time", f"Der {head['line']} fährt um 03:17 Uhr.", "contradicted"))
        return out
    for root in base.key_roots:
        fact = statable(base, task, root)
        if fact is None:
            continue
        wrong = float(fact.value) * 1.37 + 3
        twisted = Fact(
            fact.record,
            fact.field,
            round(wrong, decimals_of(float(fact.value))),
            fact.unit,
            True,
            "number",
        )
        out.append(
            ("contradicted", f"{where(base, root)}: {phrase(twisted, 'exact')}.", "contradicted")
        )
        if fact.unit == "degC":
            out.append(
                (
                    "sign",
                    f"{where(base, root)}: Temperatur -{german_number(float(fact.value), 1)} °C.",
                    "contradicted",
                )
            )
    # a bare number answers the question's field if it names one (contradicted), else nothing
    out.append(
        (
            "invented",
            f"{where(base, base.key_roots[0])} gibt es 4711 davon.",
            "ungrounded|contradicted",
        )
    )
    condition = next((f for f in base.facts if f.field == "condition"), None)
    if condition is not None:
        out.append(
            (
                "condition",
                f"{where(base, base.key_roots[0])}: {OPPOSITE[str(condition.value)]}",
                "contradicted",
            )
        )
    return out


def swapped(task: Task, base: FactBase) -> str | None:
    """compare_multi: the first two cities' values exchanged."""
    facts = [statable(base, task, root) for root in base.key_roots[:2]]
    if None in facts or facts[0].field != facts[1].field or facts[0].value == facts[1].value:  # type: ignore[union-attr]
        return None
    first, second = base.key_roots[:2]
    a, b = facts  # type: ignore[misc]
    return (
        f"{where(base, first)}: {phrase(b, 'exact')}. {where(base, second)}: {phrase(a, 'exact')}."
    )


def episodes_for(task: Task, transport: Transport) -> list[Scripted]:
    calls = tuple(execute(gold_calls(task), transport))
    if task.category == "not_covered":
        return not_covered_bed(task, calls, transport)
    base = key_facts(task, transport)
    bed = [
        Scripted(f"correct-{i}", calls, a, "success")
        for i, a in enumerate(correct_answers(task, base))
    ]
    bed += [Scripted(n, calls, a, e) for n, a, e in wrong_answers(task, base)]
    if task.category == "compare_multi":
        text = swapped(task, base)
        if text:
            bed.append(Scripted("swapped", calls, text, "contradicted"))
        singles = [
            ToolCall(task.gold.name, {**task.gold.arguments, "cities": [c]})
            for c in task.gold.arguments["cities"]
        ]
        bed.append(
            Scripted(
                "per_city_calls",
                tuple(execute(singles, transport)),
                bed[0].answer,
                "per_city_calls",
            )
        )
    if task.category == "two_step":
        bed += two_step_wrong_calls(task, calls, transport, bed[0].answer)
    else:
        bed += other_city(task, base, transport)
    return bed


def other_city(task: Task, base: FactBase, transport: Transport) -> list[Scripted]:
    """Another city's value reported as the asked city's (both fetched)."""
    slug = task.gold.arguments.get("slug")
    fact = statable(base, task, base.key_roots[0])
    if not isinstance(slug, str) or fact is None:
        return []
    for other in ("muenchen", "hamburg", "koeln"):
        call = ToolCall(task.gold.name, {**task.gold.arguments, "slug": other})
        extra = execute([call], transport)[0]
        if extra.valid and other != slug:
            theirs = key_facts_of(extra, fact.field)
            if theirs is not None and theirs.value != fact.value:
                calls = (*execute(gold_calls(task), transport), extra)
                text = f"{where(base, base.key_roots[0])}: {phrase(theirs, 'exact')}."
                return [Scripted("other_city_value", calls, text, "contradicted")]
    return []


def key_facts_of(call: ExecutedCall, field: str) -> Fact | None:
    from tooleval.suites.infranode.episodes.facts import Shown, fact_base

    base = fact_base([Shown(call.body, True)], 4000)
    return next((f for f in base.facts if f.field == field and not f.derived), None)


def two_step_wrong_calls(
    task: Task, calls: tuple[ExecutedCall, ...], transport: Transport, answer: str
) -> list[Scripted]:
    target = str(task.provenance["target_station"]["eva"])
    stations = calls[0].body["data"]["payload"]["stations"]
    other = next(str(s["eva"]) for s in stations if target not in s["evas"])
    board = calls[1].name
    (reverse,) = BOARD_TOOLS - {board}
    wrong_station = execute([task.gold, ToolCall(board, {"eva": other})], transport)
    wrong_board = execute([task.gold, ToolCall(reverse, {"eva": target})], transport)
    invented = execute([task.gold, ToolCall(board, {"eva": "8099999"})], transport)
    early = execute([ToolCall(board, {"eva": other}), task.gold], transport)
    return [
        Scripted("wrong_station", tuple(wrong_station), answer, "wrong_station"),
        Scripted("wrong_board", tuple(wrong_board), answer, "wrong_board"),
        Scripted("hallucinated_eva", tuple(invented), answer, "hallucinated_eva"),
        Scripted("wrong_order", tuple(early), answer, "wrong_order"),
    ]


def not_covered_bed(
    task: Task, calls: tuple[ExecutedCall, ...], transport: Transport
) -> list[Scripted]:
    city = display_name(str(task.gold.arguments["slug"]))
    elsewhere = display_name(
        next(c for c in ("karlsruhe", "rostock") if c != task.gold.arguments["slug"])
    )
    covered = [display_name(c) for c in covered_cities(calls)]
    named = ", ".join(covered[:-1]) + (" und " if len(covered) > 1 else "") + covered[-1]
    bed = [
        Scripted("gap", calls, f"Für {city} liegen dazu leider keine Daten vor.", "success"),
        Scripted("covered", calls, f"Diese Daten gibt es derzeit nur für {named}.", "success"),
        Scripted("service", calls, f"InfraNode deckt {city} für diese Frage nicht ab.", "success"),
        Scripted("silent", calls, f"{city} ist eine schöne Stadt.", "gap_not_reported"),
        Scripted("invented", calls, f"In {city} sind es 4.711 Stück.", "invented_data"),
        Scripted("denial", calls, f"Nein, in {city} gibt es so etwas nicht.", "invented_data"),
        Scripted(
            "other_gap",
            calls,
            f"Für {elsewhere} liegen keine Daten vor, für {city} schon.",
            "gap_not_reported",
        ),
    ]
    other = next(c for c in ("karlsruhe", "rostock", "bochum") if c != task.gold.arguments["slug"])
    wrong = execute([ToolCall(task.gold.name, {**task.gold.arguments, "slug": other})], transport)
    if wrong[0].source_status == "not_covered":
        bed.append(Scripted("other_city_call", tuple(wrong), bed[0].answer, "wrong_call"))
    first = covered_cities(calls)[0]
    fetched = execute(
        [task.gold, ToolCall(task.gold.name, {**task.gold.arguments, "slug": first})], transport
    )
    numbers = [
        f
        for f in (
            key_facts_of(fetched[1], f)
            for f in (
                "total_available",
                "count",
                "network_length_km",
                "brw_median_eur_m2",
                "station_count",
            )
        )
        if f
    ]
    if numbers:
        value = german_number(float(numbers[0].value), decimals_of(float(numbers[0].value)))
        bed.append(
            Scripted(
                "covered_value_as_asked",
                tuple(fetched),
                f"In {city} sind es {value}.",
                "invented_data",
            )
        )
    return bed


def execute_call(transport: Transport, call: ToolCall) -> ExecutedCall:
    [executed] = execute([call], transport)
    return executed
