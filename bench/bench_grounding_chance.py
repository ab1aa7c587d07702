"""How often does a random integer pass the final-answer check as a stated fact?

For every task: the gold calls are executed (as a correct episode makes them), then each
integer 1..100 is stated in two answers about the asked entity — bare ("Hannover: 42.") and
with the asked field's word and unit ("Hannover: Temperatur 42 °C.") — and counted as passing
when the grounding check calls that number ``supported``. The rate of a task is the larger of
the two. Prints the figures and rewrites the ``chance`` section of docs/episodes.md.

    uv run python bench/bench_grounding_chance.py [--no-write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, now_utc, write_section

from tooleval.records import Task
from tooleval.suites.infranode import CATEGORIES, load_suite
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.entities import display_name
from tooleval.suites.infranode.episodes.facts import FactBase
from tooleval.suites.infranode.episodes.goldchain import execute, gold_calls
from tooleval.suites.infranode.episodes.grounding import key_fact_ids
from tooleval.suites.infranode.episodes.scoring import ground
from tooleval.suites.infranode.episodes.vocabulary import FIELDS

DOC = ROOT / "docs" / "episodes.md"
UNIT_TEXT = {"degC": "°C", "pct": "%", "kmh": "km/h", "eur": "€", "ugm3": "µg/m³", "min": "Minuten",
             "km2": "km²", "cm": "cm", "mw": "MW", "km": "km", "kw": "kW"}  # fmt: skip
GOAL = 0.02


def entity(task: Task, base: FactBase) -> str:
    slug = task.gold.arguments.get("slug")
    if isinstance(slug, str):
        return display_name(slug)
    root = base.records[base.key_roots[0]] if base.key_roots else None
    if root is not None and root.city:
        return display_name(root.city)
    return root.names[0] if root is not None and root.names else "Dort"


def field_phrase(task: Task, base: FactBase) -> str:
    """The asked field's word and unit ("Temperatur {n} °C"), or just "{n}"."""
    for index in sorted(key_fact_ids(base, task.question)):
        fact = base.facts[index]
        if fact.shape == "number" and fact.field in FIELDS:
            word = FIELDS[fact.field].words[0].capitalize()
            return f"{word} {{n}} {UNIT_TEXT.get(fact.unit or '', '')}".strip()
    return "{n}"


def passing(task: Task, template: str) -> int:
    calls = execute(gold_calls(task), REPLICA)
    gold = execute_tool(REPLICA, task.gold.name, task.gold.arguments)
    count = 0
    for n in range(1, 101):
        grounding = ground(task, calls, template.format(n=n), gold)
        count += any(c.kind == "number" and c.verdict == "supported" for c in grounding.claims)
    return count


def rate(task: Task) -> tuple[float, float]:
    calls = execute(gold_calls(task), REPLICA)
    gold = execute_tool(REPLICA, task.gold.name, task.gold.arguments)
    from tooleval.suites.infranode.episodes.facts import Shown, fact_base
    from tooleval.suites.infranode.episodes.scoring import gold_flags

    flags = gold_flags(task, calls, gold)
    base = fact_base([Shown(c.body, f) for c, f in zip(calls, flags, strict=True) if c.valid], 4000)
    who = entity(task, base)
    bare = passing(task, f"{who}: {{n}}.") / 100
    named = passing(task, f"{who}: {field_phrase(task, base)}.") / 100
    return bare, named


REPLICA = make_transport(None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    suite = load_suite()
    rates: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for task in suite.tasks:
        bare, named = rate(task)
        rates[task.category].append((task.id, bare, named))
        print(f"{task.id}: bare {bare:.0%}, with field {named:.0%}")
    lines = [
        "## How often a random integer passes as a fact",
        "",
        f"Measured {now_utc()} with `uv run python bench/bench_grounding_chance.py` on the "
        f"replica, suite {suite.version}, {len(suite.tasks)} tasks. Per task, each integer "
        "1–100 is stated about the asked entity, bare (`Hannover: 42.`) and with the asked "
        "field's word and unit (`Magdeburg: Temperatur 42 °C.`); a pass is a `supported` "
        f"verdict for that number. Goal: below {GOAL:.0%} for every task.",
        "",
        "| category | tasks | mean bare | mean with field | worst task | worst rate |",
        "|---|---|---|---|---|---|",
    ]
    worst_all = 0.0
    for category in CATEGORIES:
        rows = rates.get(category, [])
        if not rows:
            continue
        worst = max(rows, key=lambda r: max(r[1], r[2]))
        worst_all = max(worst_all, worst[1], worst[2])
        lines.append(
            f"| {category} | {len(rows)} | {statistics.mean(r[1] for r in rows):.1%} | "
            f"{statistics.mean(r[2] for r in rows):.1%} | {worst[0]} | "
            f"{max(worst[1], worst[2]):.0%} |"
        )
    over = [
        f"{t} ({max(b, n):.0%})" for rows in rates.values() for t, b, n in rows if max(b, n) >= GOAL
    ]
    lines += ["", f"Highest rate of any task: {worst_all:.0%}. Tasks at or above the goal: "
              f"{', '.join(over) if over else 'none'}."]  # fmt: skip
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("chance", body, DOC)


if __name__ == "__main__":
    main()
