"""The final-answer check: every claim about the right entity and field, within tolerance.

Deterministic, no judge model (see ``judge`` for the optional one). The answer is read as a
German reader reads it (``german``); its claims are checked against the facts the model was
shown (``facts``), each about the entity it names (``entities``):

- a *name* claim: a shown string (a line, a destination, a party, a data type) found as whole
  words ("Hitze" does not contain the status "HIT");
- a *number* claim belongs to a field when a word of that field stands in its clause
  (nearest first) or its unit fits only that field's facts; it is ``supported`` when a fact of
  that field and entity agrees within tolerance, else ``contradicted`` — wherever else the
  number occurs. A number with neither unit nor field word is ``supported`` only by a key fact
  of its entity, else ``unsupported``;
- a *term* claim ("regnet", "pünktlich", "keine Warnung", negations handled, and a leading
  "Ja"/"Nein" to a yes/no question) is checked against its field's value;
- dates and clock times must match a shown date or time (UTC or Europe/Berlin local time).

Tolerance: a number agrees when it is the fact rounded half up (DIN 1333) to the digits shown
and within 2 % of it; hedged ("rund", "etwa", "ca.") or scaled ("Mio.")
numbers may round to their last non-zero digit ("rund 41.000") and lie within 10 %; "über"/
"mehr als" and "knapp"/"unter" bound the fact from one side. Numbers and names already in the
question are neutral. Grounded: no contradicted or unsupported claim, and a supported key fact
for every entity the task asks about (each compared city).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from tooleval.suites.infranode.episodes import german
from tooleval.suites.infranode.episodes.clock import check_date, check_time, time_mentions
from tooleval.suites.infranode.episodes.context import AnswerContext, clause_of, pool, resolve
from tooleval.suites.infranode.episodes.entities import Resolver, city_spans, mentions
from tooleval.suites.infranode.episodes.facts import Fact, FactBase
from tooleval.suites.infranode.episodes.german import Quantity, Reading, coarse_step
from tooleval.suites.infranode.episodes.grounding_types import Claim, Grounding
from tooleval.suites.infranode.episodes.vocabulary import (
    QUALITATIVE_KINDS,
    TERMS,
    Term,
    fields_named,
    stem_matches,
)

EXACT_RELATIVE, HEDGED_RELATIVE = 0.02, 0.10
YES, NO = frozenset({"ja", "jawohl", "genau", "richtig"}), frozenset({"nein", "nö", "nee"})


def asked_fields(question: str) -> set[str]:
    """The fields the question names ("Luftfeuchtigkeit" -> humidity, "Regnet" -> condition).

    Words inside a city's name are not field words ("Freiburg" names no free beds), nor is
    the colloquial "grad" for "gerade" (the unit is the noun "Grad")."""
    names: set[str] = set()
    text = german.normalise(question)
    cities = city_spans(text)
    for start, end, word in german.words(text):
        if any(a <= start and end <= b for a, b in cities) or text[start:end] == "grad":
            continue
        names |= fields_named(word)
        names |= {t.field for t in TERMS if any(stem_matches(word, s) for s in t.words)}
    return names


def key_fact_ids(base: FactBase, question: str) -> frozenset[int]:
    """Key number/bool facts, narrowed to the asked fields when the question names some."""
    candidates = [i for i, f in enumerate(base.facts) if f.key and f.shape in ("number", "bool")]
    asked = asked_fields(question)
    narrowed_ids = [i for i in candidates if base.facts[i].field in asked]
    return frozenset(narrowed_ids or candidates)


def agrees(quantity: Quantity, value: float) -> bool:
    return any(_agrees(r, quantity, value) for r in quantity.readings)


def _agrees(reading: Reading, quantity: Quantity, value: float) -> bool:
    stated, eps = reading.value, 1e-9 * max(1.0, abs(value))
    if abs(stated - value) <= eps:
        return True
    if not quantity.approximate:  # the fact rounded to the digits shown, within 2 %
        decimals = max(0, round(-math.log10(reading.step)))
        quantum = Decimal(1).scaleb(-decimals)
        rounded = float(Decimal(repr(value)).quantize(quantum, ROUND_HALF_UP))
        close = abs(stated - value) <= EXACT_RELATIVE * abs(value) + eps
        return close and abs(stated - rounded) <= eps
    step = coarse_step(reading)
    cap = HEDGED_RELATIVE * abs(value) + eps
    if quantity.hedge == "over":
        return stated <= value <= stated + step + eps and value - stated <= cap
    if quantity.hedge == "under":
        return stated - step - eps <= value <= stated and stated - value <= cap
    difference = abs(stated - value)
    return difference <= step / 2 + eps and difference <= cap


def _agrees_fact(quantity: Quantity, fact: Fact) -> bool:
    """A derived fact (share, difference) needs decimals or a hedge: a bare "10 %" is not a
    9.68 % relative difference, "9,7 %" or "rund 10 %" is."""
    fine = quantity.approximate or min(r.step for r in quantity.readings) < 1
    return (fine or not fact.derived) and agrees(quantity, float(fact.value))


def _exactly(quantity: Quantity, value: float) -> bool:
    """Equal as written (hedged: within its rounding)."""
    if quantity.approximate:
        return agrees(quantity, value)
    return any(abs(r.value - value) <= 1e-9 * max(1.0, abs(value)) for r in quantity.readings)


def _field_words(ctx: AnswerContext, quantity: Quantity, names: set[str]) -> set[str]:
    _, clause = clause_of(ctx, quantity.start)
    tokens = german.words(ctx.text[clause[0] : clause[1]])
    ordered = sorted(
        tokens,
        key=lambda t: (
            min(abs(clause[0] + t[0] - quantity.end), abs(clause[0] + t[1] - quantity.start)),
            clause[0] + t[0] < quantity.start,
        ),
    )
    for start, _end, word in ordered:
        if quantity.start <= clause[0] + start < quantity.end:
            continue
        found = fields_named(word) & names
        if found:
            return found
    return set()


def check_number(ctx: AnswerContext, quantity: Quantity) -> Claim:
    text = ctx.text[quantity.start : quantity.end]
    rids = resolve(ctx, quantity.start)
    facts = [
        (i, f)
        for i, f in pool(ctx, rids)
        if f.shape == "number"
        and (quantity.unit is None or f.unit == quantity.unit)
        and (not f.derived or f.unit == quantity.unit)  # a share or difference needs its unit
    ]
    present = {f.field for _, f in facts}
    fields = _field_words(ctx, quantity, present)
    if not fields and quantity.unit is not None:
        fields = present
    from_question = not fields
    fields = fields or set(ctx.asked & present)  # a bare number answers the question's field
    if fields:
        chosen = [(i, f) for i, f in facts if f.field in fields]
        if from_question:  # ... and only with its key facts (not the 25 listed of 30)
            chosen = [(i, f) for i, f in chosen if i in ctx.key_numbers] or chosen
        chosen.sort(key=lambda item: item[0] not in ctx.key_numbers)  # key facts first
        match = next(((i, f) for i, f in chosen if _agrees_fact(quantity, f)), None)
        verdict = "supported" if match else "contradicted" if chosen else "unsupported"
        against = match or (chosen[0] if chosen else None)
    else:  # tied to no field: never evidence, but invented unless it is a key fact exactly
        keyed = [(i, f) for i, f in facts if i in ctx.key_numbers and not f.derived]
        match = next(((i, f) for i, f in keyed if _exactly(quantity, float(f.value))), None)
        verdict = "neutral" if match else "unsupported"
        against = match
    fact = against[1] if against else None
    key = match is not None and match[0] in ctx.key_numbers
    return Claim(quantity.start, quantity.end, text, "number", verdict, fact, key)


def _term_applies(term: Term, fact: Fact, ctx: AnswerContext) -> bool:
    kinds = QUALITATIVE_KINDS.get(term.field)
    kind = ctx.base.records[fact.record].kind
    return fact.field == term.field and (kinds is None or kind in kinds)


def check_term(
    ctx: AnswerContext, term: Term, span: tuple[int, int], negated: bool
) -> Claim | None:
    rids = resolve(ctx, span[0])
    facts = [(i, f) for i, f in pool(ctx, rids) if _term_applies(term, f, ctx)]
    if not facts:
        return None
    match = next(((i, f) for i, f in facts if term.holds(f.value) != negated), None)
    verdict = "supported" if match else "contradicted"
    key = match is not None and (match[1].shape == "text" or match[0] in ctx.key_numbers)
    text = ctx.text[span[0] : span[1]]
    return Claim(span[0], span[1], text, "term", verdict, (match or facts[0])[1], key)


def name_claims(ctx: AnswerContext, question: str) -> list[Claim]:
    """Shown strings found as whole words (not already in the question)."""
    claims: list[Claim] = []
    folded_question = question.casefold()
    for fact in ctx.base.facts:
        value = str(fact.value).strip()
        long_enough = len(value) >= 3 or (len(value) == 2 and any(c.isdigit() for c in value))
        if fact.shape != "text" or not long_enough or value.casefold() in folded_question:
            continue
        for a, b in german.find_phrase(ctx.text, value):
            if any(c.start <= a and b <= c.end for c in claims):
                continue
            claims = [c for c in claims if not (a <= c.start and c.end <= b)]
            claims.append(Claim(a, b, ctx.text[a:b], "name", "supported", fact, fact.key))
    return claims


def term_claims(ctx: AnswerContext, question: str) -> list[Claim]:
    claims: list[Claim] = []
    for start, end, word in german.words(ctx.text):
        if any(a <= start < b for a, b in ctx.hidden):
            continue
        for term in TERMS:
            if any(stem_matches(german.fold(word), s) for s in term.words):
                _, clause = clause_of(ctx, start)
                negated = german.negated(ctx.text, start, end, clause)
                claim = check_term(ctx, term, (start, end), negated)
                claims += [claim] if claim else []
    return claims + _yes_no(ctx, question)


def _yes_no(ctx: AnswerContext, question: str) -> list[Claim]:
    """A leading "Ja"/"Nein" answers the question's own qualitative term."""
    tokens = german.words(ctx.text)
    if not tokens or tokens[0][2] not in YES | NO:
        return []
    asked = [
        (term, german.negated(question, a, b, (0, len(question))))
        for a, b, word in german.words(question)
        for term in TERMS
        if any(stem_matches(german.fold(word), s) for s in term.words)
    ]
    if not asked:
        return []
    term, question_negated = asked[0]
    negated = (tokens[0][2] in NO) != question_negated
    claim = check_term(ctx, term, (tokens[0][0], tokens[0][1]), negated)
    return [claim] if claim else []


def _neutral(ctx: AnswerContext, quantity: Quantity) -> bool:
    values = {r.value for r in quantity.readings}
    token = ctx.text[quantity.start : quantity.end].split()[0]
    return bool(values & ctx.question_numbers) or token.strip("-") in ctx.base.neutral_numbers


def check_answer(
    answer: str, base: FactBase, question: str, default: frozenset[int] | None = None
) -> Grounding:
    """Every claim of ``answer`` checked against ``base`` (see the module docstring)."""
    text, asked = german.normalise(answer), german.normalise(question)
    question_numbers = frozenset(
        r.value for q in german.quantities(asked) for r in q.readings
    ) | frozenset(float(d.year) for d in german.calendar_dates(asked) if d.year)
    named = sorted([*mentions(text, base), *time_mentions(text, base)], key=lambda m: m.start)
    resolver = Resolver(tuple(named), base_default(base, default))
    ctx = AnswerContext(text, base, resolver, key_fact_ids(base, asked), question_numbers)
    ctx.asked = frozenset(asked_fields(asked))
    names = name_claims(ctx, asked)
    ctx.hidden = [(c.start, c.end) for c in names]
    dates = [d for d in german.calendar_dates(text) if not _inside(ctx, d.start)]
    times = [t for t in german.clock_times(text) if not _inside(ctx, t.start)]
    ctx.hidden += [(d.start, d.end) for d in dates] + [(t.start, t.end) for t in times]
    ctx.hidden += [(m.start, m.end) for m in named if m.city]  # no "regen" in "Regensburg"
    claims = [*names, *(check_date(ctx, d) for d in dates), *(check_time(ctx, t) for t in times)]
    claims += term_claims(ctx, asked)
    for quantity in german.quantities(text, ctx.hidden):
        if not _neutral(ctx, quantity):
            claims.append(check_number(ctx, quantity))
    stated = frozenset(
        root
        for c in claims
        if c.verdict == "supported" and c.key and c.fact is not None
        for root in [ctx.root_of(c.fact)]
        if root is not None
    )
    return Grounding(tuple(sorted(claims, key=lambda c: c.start)), base.key_roots, stated)


def _inside(ctx: AnswerContext, position: int) -> bool:
    return any(a <= position < b for a, b in ctx.hidden)


def base_default(base: FactBase, default: frozenset[int] | None) -> frozenset[int]:
    return default if default is not None else frozenset(base.key_roots)


def key_cities(base: FactBase, roots: Sequence[int]) -> list[str]:
    return [c for c in (base.records[r].city for r in roots) if c]
