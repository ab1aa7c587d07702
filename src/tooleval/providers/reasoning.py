"""The ``--reasoning`` setting, parsed once for every provider: provider default, off, an
effort word or a token budget. Each provider module maps it to its own request fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EFFORTS = ("low", "medium", "high")
# Token budgets used where a provider wants a number but the user gave an effort word.
EFFORT_BUDGETS = {"low": 1024, "medium": 4096, "high": 16384}


@dataclass(frozen=True)
class Reasoning:
    """A parsed ``--reasoning`` value: provider default, off, an effort word, or a budget."""

    mode: Literal["default", "off", "effort", "budget"]
    effort: str | None = None
    budget: int | None = None

    def as_budget(self) -> int | None:
        """A token budget for providers that take numbers (None for default/off)."""
        if self.mode == "budget":
            return self.budget
        if self.mode == "effort" and self.effort is not None:
            return EFFORT_BUDGETS[self.effort]
        return None

    def as_effort(self) -> str | None:
        """An effort word for providers that take words (a budget maps to the nearest)."""
        if self.mode == "effort":
            return self.effort
        if self.mode == "budget" and self.budget is not None:
            if self.budget <= EFFORT_BUDGETS["low"]:
                return "low"
            return "medium" if self.budget <= EFFORT_BUDGETS["medium"] else "high"
        return None


def parse_reasoning(value: str | None) -> Reasoning:
    """Parse ``None``, ``"off"``, ``"low"``/``"medium"``/``"high"`` or a token budget."""
    if value is None:
        return Reasoning("default")
    word = value.strip().lower()
    if word in ("off", "none", "0"):
        return Reasoning("off")
    if word in EFFORTS:
        return Reasoning("effort", effort=word)
    if word.isdigit():
        return Reasoning("budget", budget=int(word))
    raise ValueError(f"reasoning: {value!r} is not one of off, low, medium, high or a token budget")
