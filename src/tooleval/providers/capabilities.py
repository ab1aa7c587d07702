"""From a model family's row of the capability table (``families.FAMILIES``) and the flags to
the request fields that family reads.

Every provider module asks ``family_for(dialect, preset, model)`` for its row, so the default
flags give a body each family's API accepts; ``choose_reasoning`` maps
``--reasoning off|low|medium|high|<budget>`` to the family's control and values, ``sampling``
picks the temperature and top_p to send and refuses (ValueError, before any request) a value
the family's API rejects. Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tooleval.providers.families import LEVEL_ORDER, Family, Sampling, family_for
from tooleval.providers.reasoning import EFFORT_BUDGETS, Reasoning, parse_reasoning
from tooleval.records import GenerationRequest

__all__ = [
    "Family",
    "ReasoningChoice",
    "choose_reasoning",
    "family_for",
    "headroom",
    "reasoning_note",
    "sampling",
]

# --- reasoning ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReasoningChoice:
    """What ``--reasoning`` becomes for one family: nothing (``default``), off, a level word or
    a token budget. ``note`` says where the family could not do what was asked."""

    mode: Literal["default", "off", "level", "budget"]
    level: str | None = None
    budget: int | None = None
    note: str | None = None

    @property
    def thinking(self) -> bool:
        return self.mode in ("level", "budget")


def nearest_level(word: str, levels: tuple[str, ...]) -> str:
    """``word`` if the family accepts it, else its nearest accepted level; a tie goes to the
    higher one (as DeepSeek maps medium to high)."""
    if not levels or word in levels:
        return word
    rank = LEVEL_ORDER.index(word)
    return min(
        levels, key=lambda level: (abs(LEVEL_ORDER.index(level) - rank), -LEVEL_ORDER.index(level))
    )


def clamp(budget: int, family: Family) -> int:
    low, high = family.budgets or (budget, budget)
    return min(max(budget, low), high)


def choose_reasoning(family: Family, value: str | None) -> ReasoningChoice:
    """The family's form of a ``--reasoning`` value (None: tooleval's default for it)."""
    setting = parse_reasoning(value if value is not None else family.default_reasoning)
    if setting.mode == "default":
        return ReasoningChoice("default")
    if family.control == "none":
        if setting.mode == "off":
            return ReasoningChoice("default", note=f"{family.name} does not think")
        raise ValueError(f"--reasoning {value}: {family.name} models have no reasoning control")
    if setting.mode == "off":
        return _off(family)
    if family.budgets is not None:
        budget = setting.as_budget() or 0
        return ReasoningChoice("budget", budget=clamp(budget, family))
    if family.control == "openrouter" and setting.mode == "budget":
        return ReasoningChoice("budget", budget=setting.budget)
    return ReasoningChoice("level", level=nearest_level(_effort(setting), family.levels))


def _effort(setting: Reasoning) -> str:
    effort = setting.as_effort()
    assert effort is not None  # an effort or a budget
    return effort


def _off(family: Family) -> ReasoningChoice:
    if family.off is not None:
        return ReasoningChoice("off", level=family.off)
    note = f"{family.name} cannot switch thinking off; its lowest setting is sent"
    if family.budgets is not None:
        return ReasoningChoice("budget", budget=family.budgets[0], note=note)
    if family.levels:
        return ReasoningChoice("level", level=family.levels[0], note=note)
    return ReasoningChoice("default", note=f"{family.name}: no portable switch; nothing is sent")


def reasoning_note(family: Family, request: GenerationRequest) -> dict[str, str]:
    """``{"note": ...}`` when the family could not do what ``--reasoning`` asked (it cannot
    switch thinking off, or has no switch), for the results' ``request_settings``."""
    note = choose_reasoning(family, request.reasoning).note
    return {"note": note} if note else {}


def headroom(choice: ReasoningChoice) -> int:
    """Tokens added to the answer budget where thinking counts against it: the budget, or the
    effort's nominal budget for a level (minimal and none: none)."""
    if choice.mode == "budget":
        return choice.budget or 0
    if choice.mode == "level" and choice.level in EFFORT_BUDGETS:
        return EFFORT_BUDGETS[choice.level]
    return 0


# --- sampling -------------------------------------------------------------------------------


def sampling(
    family: Family, temperature: float | None, top_p: float | None, choice: ReasoningChoice
) -> dict[str, float]:
    """The sampling fields to send (``temperature``, ``top_p``) for the given values (None: not
    given); ValueError naming the family and its source for a value its API rejects."""
    rule = family.temperature
    if family.temperature_needs_off and choice.mode == "off":
        rule = "any"
    sent: dict[str, float] = {}
    value = _sampled("temperature", temperature, rule, family, default=0.0)
    if value is not None:
        sent["temperature"] = value
    value = _sampled("top_p", top_p, family.top_p, family, default=None)
    if value is not None:
        sent["top_p"] = value
    return sent


def _sampled(
    name: str, given: float | None, rule: Sampling, family: Family, default: float | None
) -> float | None:
    if given is None:
        return default if rule == "any" else None
    if rule in ("any", "keep_default") or (rule == "default_only" and given == 1.0):
        return given
    flag = "--" + name.replace("_", "-")
    accepts = "only its default (1)" if rule == "default_only" else f"no {name}"
    raise ValueError(f"{flag} {given}: {family.name} models accept {accepts} ({family.source})")
