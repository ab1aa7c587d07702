"""Dates and clock times in an answer against the shown ones.

A shown time without a zone (a departure's ``planned_time``) is Berlin local time; one with
``Z`` or an offset is converted with ``zoneinfo`` to Europe/Berlin. A stated time matches the
time as written or its local time; with "UTC"/"Z" only the UTC time, with "MESZ"/"Ortszeit"
only the local time. A time in a clause that names a departure must be that departure's.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from tooleval.suites.infranode.episodes import german
from tooleval.suites.infranode.episodes.context import AnswerContext, resolve
from tooleval.suites.infranode.episodes.entities import Mention, Resolver
from tooleval.suites.infranode.episodes.facts import Fact, FactBase
from tooleval.suites.infranode.episodes.grounding_types import Claim

BERLIN = ZoneInfo("Europe/Berlin")


def _time_values(fact: Fact) -> dict[str, tuple[int, int]]:
    """A shown time as written, in UTC and in Berlin local time (naive times are local)."""
    moment = datetime.fromisoformat(str(fact.value).replace("Z", "+00:00"))
    written = (moment.hour, moment.minute)
    if moment.tzinfo is None:
        utc = moment.replace(tzinfo=BERLIN).astimezone(ZoneInfo("UTC"))
        return {"written": written, "local": written, "utc": (utc.hour, utc.minute)}
    local = moment.astimezone(BERLIN)
    return {"written": written, "utc": written, "local": (local.hour, local.minute)}


def check_time(ctx: AnswerContext, clock: german.ClockTime) -> Claim:
    """A time must be a shown time; of the named item (a departure) when one is named."""
    stated = (clock.hour, clock.minute)
    allowed = (
        ("utc",) if clock.zone == "utc" else ("local",) if clock.zone else ("written", "local")
    )
    others = tuple(m for m in ctx.resolver.mentions if (m.start, m.end) != (clock.start, clock.end))
    rids = resolve(replace(ctx, resolver=Resolver(others, ctx.resolver.default)), clock.start)
    named = {r for r in rids or () if ctx.base.records[r].index is not None}
    own = [f for f in ctx.base.facts if f.shape == "time" and f.record in named]
    facts = own or [f for f in ctx.base.facts if f.shape == "time"]
    match = next((f for f in facts if any(_time_values(f)[z] == stated for z in allowed)), None)
    text = ctx.text[clock.start : clock.end]
    verdict = "supported" if match else "contradicted" if own else "unsupported"
    against = match or (own[0] if own else None)
    return Claim(clock.start, clock.end, text, "time", verdict, against, bool(match and match.key))


def _date_values(fact: Fact) -> tuple[int, int, int]:
    text = str(fact.value)
    if "T" in text:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is not None:
            moment = moment.astimezone(BERLIN)
        return moment.year, moment.month, moment.day
    year, month, day = (int(part) for part in text.split("-"))
    return year, month, day


def check_date(ctx: AnswerContext, date: german.CalendarDate) -> Claim:
    facts = [f for f in ctx.base.facts if f.shape in ("date", "time")]

    def same(fact: Fact) -> bool:
        year, month, day = _date_values(fact)
        return (month, day) == (date.month, date.day) and date.year in (None, year)

    match = next((f for f in facts if same(f)), None)
    text = ctx.text[date.start : date.end]
    verdict = "supported" if match else "unsupported"
    return Claim(date.start, date.end, text, "date", verdict, match, bool(match and match.key))


def time_mentions(text: str, base: FactBase) -> list[Mention]:
    """A clock time names the list items (departures) that have it as their own time."""
    found = []
    for clock in german.clock_times(text):
        stated = (clock.hour, clock.minute)
        zones = (
            ("utc",) if clock.zone == "utc" else ("local",) if clock.zone else ("written", "local")
        )
        records = frozenset(
            f.record
            for f in base.facts
            if f.shape == "time"
            and base.records[f.record].index is not None
            and any(_time_values(f)[z] == stated for z in zones)
        )
        if records:
            found.append(Mention(clock.start, clock.end, records, None))
    return found
