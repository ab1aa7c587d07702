"""Records of the grounding check: one claim of an answer, and the whole answer's verdict."""

from __future__ import annotations

from dataclasses import dataclass

from tooleval.suites.infranode.episodes.facts import Fact


@dataclass(frozen=True)
class Claim:
    """One claim of an answer (``text`` at ``start``..``end``). ``fact``: the fact that supports
    it (for ``neutral``: the key fact it repeats), or for a contradicted claim the fact it
    disagrees with; None when no fact of its field was shown. ``key``: it states a key fact."""

    start: int
    end: int
    text: str
    kind: str  # "name", "number", "term", "time", "date"
    verdict: str  # "supported", "contradicted", "unsupported"; "neutral": counts neither way
    fact: Fact | None = None
    key: bool = False


@dataclass(frozen=True)
class Grounding:
    claims: tuple[Claim, ...] = ()
    key_roots: tuple[int, ...] = ()
    stated_roots: frozenset[int] = frozenset()

    def count(self, verdict: str) -> int:
        return sum(1 for c in self.claims if c.verdict == verdict)

    @property
    def supported(self) -> int:
        return self.count("supported")

    @property
    def contradicted(self) -> int:
        return self.count("contradicted")

    @property
    def unsupported(self) -> int:
        return self.count("unsupported")

    @property
    def complete(self) -> bool:
        """A supported key fact for every entity the task asks about."""
        return all(root in self.stated_roots for root in self.key_roots)

    @property
    def grounded(self) -> bool:
        clean = self.contradicted == 0 and self.unsupported == 0
        return clean and self.supported > 0 and self.complete

    @property
    def decided(self) -> bool:
        """False when nothing is wrong but the asked facts were not recognised (judge)."""
        return self.grounded or self.contradicted > 0 or self.unsupported > 0
