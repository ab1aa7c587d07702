"""Routing preflight of the scenarios (no network): which tools each scenario's prompt routes
to, and which required tools the router leaves out (a routing miss is never charged to the
model: such a scenario is not run, see ``dialogue``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tooleval.suites.cesium.routing import Selection, route_original
from tooleval.suites.cesium.routing_improved import route_improved
from tooleval.suites.cesium.scenarios import Scenario, load_scenarios

ROUTERS: dict[str, Callable[[str], Selection]] = {
    "original": route_original,
    "improved": route_improved,
}


@dataclass(frozen=True)
class Routed:
    scenario: Scenario
    selection: Selection

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(t for t in self.scenario.required_tools if t not in self.selection.tools)


def router(name: str) -> Callable[[str], Selection]:
    try:
        return ROUTERS[name]
    except KeyError:
        raise ValueError(f"unknown router {name!r}; choose one of: {', '.join(ROUTERS)}") from None


def select_scenarios(case_ids: Sequence[str] | None) -> list[Scenario]:
    """The scenarios named (file order), or all; an unknown id is an error."""
    scenarios = list(load_scenarios())
    if not case_ids:
        return scenarios
    known = {s.id for s in scenarios}
    unknown = [c for c in case_ids if c not in known]
    if unknown:
        raise ValueError(f"unknown scenario id(s): {', '.join(unknown)}")
    return [s for s in scenarios if s.id in case_ids]


def preflight(scenarios: Sequence[Scenario], router_name: str = "original") -> list[Routed]:
    route = router(router_name)
    return [Routed(s, route(s.prompt)) for s in scenarios]
