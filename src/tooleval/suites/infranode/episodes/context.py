"""The answer being checked, and which records a claim at some position is about.

``resolve`` applies the rules of ``entities`` within the answer's sentences and clauses;
``scope`` widens the resolved records to what a value about them may come from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tooleval.suites.infranode.episodes import german
from tooleval.suites.infranode.episodes.entities import Mention, Resolver, narrowed
from tooleval.suites.infranode.episodes.facts import Fact, FactBase
from tooleval.suites.infranode.episodes.grounding_types import Claim


@dataclass
class AnswerContext:
    text: str
    base: FactBase
    resolver: Resolver
    key_numbers: frozenset[int]  # ids of the (narrowed) key number/bool facts
    question_numbers: frozenset[float]
    hidden: list[tuple[int, int]] = field(default_factory=list)
    asked: frozenset[str] = frozenset()  # the fields the question names
    claims: list[Claim] = field(default_factory=list)

    def root_of(self, fact: Fact) -> int | None:
        rid: int | None = fact.record
        while rid is not None:
            if rid in self.base.key_roots:
                return rid
            rid = self.base.records[rid].parent
        return None


def scope(base: FactBase, rids: Iterable[int]) -> set[int]:
    """Records a value about ``rids`` may come from: their ancestors, their named parts, and
    of a list only its first item unless the item itself is named."""
    found: set[int] = set()
    for rid in rids:
        parent = base.records[rid].parent
        while parent is not None:
            found.add(parent)
            parent = base.records[parent].parent
        todo = [rid]
        while todo:
            current = todo.pop()
            found.add(current)
            for child in base.children(current):
                index = base.records[child].index
                if index is None or index == 0 or (current == rid and base.records[rid].index):
                    todo.append(child)
    return found


def clause_of(ctx: AnswerContext, position: int) -> tuple[tuple[int, int], tuple[int, int]]:
    for a, b in german.sentence_spans(ctx.text):
        if a <= position < b:
            clause = next(
                (c for c in german.clause_spans(ctx.text, a, b) if c[0] <= position < c[1]),
                (a, b),
            )
            return (a, b), clause
    return (0, len(ctx.text)), (0, len(ctx.text))


def resolve(ctx: AnswerContext, position: int) -> frozenset[int] | None:
    """The records a value at ``position`` is about; None: the entities the task asks about."""
    sentence, clause = clause_of(ctx, position)
    paired = _respectively(ctx, sentence, position)
    if paired is not None:
        return _records(ctx, paired)
    best = ctx.resolver.best_in(*clause, position) or ctx.resolver.preceding(sentence[0], position)
    if best is None:
        after = [m for m in ctx.resolver.mentions if position <= m.start < sentence[1]]
        best = after[0] if after else ctx.resolver.preceding(0, sentence[0])
    return None if best is None else _records(ctx, best)


def _records(ctx: AnswerContext, mention: Mention) -> frozenset[int]:
    sentence, _ = clause_of(ctx, mention.start)
    around = [m for m in ctx.resolver.mentions if sentence[0] <= m.start < sentence[1]]
    return narrowed(mention, around)


def _respectively(ctx: AnswerContext, sentence: tuple[int, int], position: int) -> Mention | None:
    """ "In A und B sind es 9,3 bzw. 10,2 %": the n-th value goes to the n-th mention."""
    text = ctx.text[sentence[0] : sentence[1]]
    if not any(german.find_phrase(text, w) for w in ("bzw", "beziehungsweise", "respektive")):
        return None
    inside = [m for m in ctx.resolver.mentions if sentence[0] <= m.start < sentence[1]]
    values = [q for q in german.quantities(ctx.text[: sentence[1]]) if q.start >= sentence[0]]
    values = [q for q in values if not any(a <= q.start < b for a, b in ctx.hidden)]
    if len(inside) < 2 or len(inside) != len(values):
        return None
    for mention, value in zip(inside, values, strict=True):
        if value.start == position:
            return mention
    return None


def pool(ctx: AnswerContext, rids: frozenset[int] | None) -> list[tuple[int, Fact]]:
    chosen = ctx.resolver.default if rids is None else rids
    records = scope(ctx.base, chosen) if chosen else set()
    return [(i, f) for i, f in enumerate(ctx.base.facts) if f.record in records]
