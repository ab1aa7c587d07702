"""The 15 executable scenarios: prompt, required tools and the steps a correct run takes.

A step names a tool and matchers for its arguments (see ``matchers``). ``after`` lists the
steps whose results it needs: its call must come in a later model round than theirs (steps
with a ``fromResult`` matcher get it implicitly). ``equivalents`` are other tools with the same
outcome, each with extra matchers and the reason (``flyTo`` with duration 0 is ``setView``).
A scenario's ``answer`` says which result values the final answer must state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from tooleval.records import ExecutedCall as ExecutedCall
from tooleval.suites.cesium.catalogue import read_data
from tooleval.suites.cesium.matchers import matcher_problem


@dataclass(frozen=True)
class Equivalent:
    """Another tool that does what a step asks when its extra matchers hold too."""

    tool: str
    args: Mapping[str, Mapping[str, Any]]
    reason: str


@dataclass(frozen=True)
class AnswerValue:
    """A value the final answer must state: a number at ``path`` of step ``step``'s result."""

    step: int
    path: str
    tol: float


@dataclass(frozen=True)
class Step:
    tool: str
    args: Mapping[str, Mapping[str, Any]]
    after: tuple[int, ...] = ()
    equivalents: tuple[Equivalent, ...] = ()

    @property
    def tools(self) -> tuple[str, ...]:
        return (self.tool, *(e.tool for e in self.equivalents))


@dataclass(frozen=True)
class Scenario:
    id: str
    locale: str
    prompt: str
    expected_toolsets: tuple[str, ...]
    required_tools: tuple[str, ...]
    allowed_tools: tuple[str, ...]
    ordered: bool
    dependent: bool
    steps: tuple[Step, ...]
    answer: tuple[AnswerValue, ...] = ()

    @property
    def category(self) -> str:
        """The suite's categories are the locales (``en``, ``zh-CN``)."""
        return self.locale

    @property
    def question(self) -> str:
        return self.prompt


@dataclass(frozen=True)
class StepOutcome:
    tool: str
    status: str  # matched | order_violation | value_mismatch | missing
    call_index: int | None
    detail: str = ""


def _checked(args: dict[str, Any], where: str) -> dict[str, Any]:
    for key, matcher in args.items():
        problem = matcher_problem(matcher)
        if problem:
            raise ValueError(f"scenarios.json: {where}.args.{key}: {problem}")
    return args


def _step(raw: dict[str, Any], where: str) -> Step:
    args = _checked(raw.get("args", {}), where)
    needs = {int(m["fromResult"]["step"]) for m in args.values() if "fromResult" in m}
    return Step(
        tool=raw["tool"],
        args=args,
        after=tuple(sorted(needs | set(raw.get("after", ())))),
        equivalents=tuple(
            Equivalent(
                e["tool"], _checked(e.get("args", {}), f"{where}.equivalents[{i}]"), e["reason"]
            )
            for i, e in enumerate(raw.get("equivalents", ()))
        ),
    )


def _answer(raw: dict[str, Any] | None) -> tuple[AnswerValue, ...]:
    if not raw:
        return ()
    return tuple(
        AnswerValue(int(v["step"]), v["path"], float(v.get("tol", 0.005))) for v in raw["values"]
    )


def _scenario(raw: dict[str, Any], index: int) -> Scenario:
    try:
        return Scenario(
            id=raw["id"],
            locale=raw["locale"],
            prompt=raw["prompt"],
            expected_toolsets=tuple(raw["expectedToolsets"]),
            required_tools=tuple(raw["requiredTools"]),
            allowed_tools=tuple(raw.get("allowedTools") or raw["requiredTools"]),
            ordered=bool(raw["ordered"]),
            dependent=bool(raw["dependent"]),
            steps=tuple(
                _step(s, f"scenarios[{index}].steps[{n}]") for n, s in enumerate(raw["steps"])
            ),
            answer=_answer(raw.get("answer")),
        )
    except KeyError as exc:
        raise ValueError(f"scenarios.json: scenarios[{index}] lacks {exc.args[0]!r}") from exc


def parse_scenarios(doc: dict[str, Any]) -> tuple[Scenario, ...]:
    return tuple(_scenario(raw, i) for i, raw in enumerate(doc["scenarios"]))


@cache
def load_scenarios() -> tuple[Scenario, ...]:
    return parse_scenarios(read_data("scenarios.json"))
