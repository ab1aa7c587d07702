"""The Cesium suite: 61 browser map tools, two routers and 15 multi-turn scenarios.

Layer 1 (routing, no network) asks whether the right tools reach the model; layer 2 (the
scenarios, run by the shared multi-turn driver) asks whether the model uses them well. The
suite plug-in: ``prompting`` (system message per locale and routed toolsets), ``dialogue``
(routing, the simulated-globe ``environment``, ``scoring``, ``metrics``: the original harness's
nine metrics and tooleval's). See README.md in this package.
"""

from __future__ import annotations

from tooleval.records import Message, Mode
from tooleval.suites.base import Suite
from tooleval.suites.cesium.catalogue import Catalogue, CesiumTool, load_catalogue, load_tools
from tooleval.suites.cesium.dialogue import CesiumDialogue
from tooleval.suites.cesium.preflight import ROUTERS
from tooleval.suites.cesium.prompting import scenario_messages
from tooleval.suites.cesium.scenarios import Scenario, load_scenarios

__all__ = ["Catalogue", "CesiumTool", "load_catalogue", "load_suite", "load_tools"]

SUITE_NAME = "cesium"
CATEGORIES = ("en", "zh-CN")


def load_suite(router: str = "original") -> Suite[Scenario]:
    """The suite with scenarios routed by ``router`` (``original`` or ``improved``)."""
    if router not in ROUTERS:
        raise ValueError(f"unknown router {router!r}; choose one of: {', '.join(ROUTERS)}")
    route = ROUTERS[router]
    catalogue = load_catalogue()
    scenarios = load_scenarios()
    selections = {s.id: route(s.prompt) for s in scenarios}

    def messages(task: Scenario, mode: Mode) -> tuple[Message, ...]:
        return scenario_messages(task.locale, selections[task.id].toolsets, task.prompt)

    return Suite(
        SUITE_NAME,
        catalogue.version,
        load_tools(),
        scenarios,
        CATEGORIES,
        messages,
        dialogue=CesiumDialogue(catalogue, selections),
    )
