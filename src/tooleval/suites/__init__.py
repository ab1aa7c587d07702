"""Benchmark suites shipped with tooleval, looked up by name in one table.

``SUITES`` maps a suite name to the module that builds it (``load_suite(**options)``); a module
is imported only when its suite is loaded. The interface every suite implements is in
``tooleval.suites.base`` (see docs/adding-a-suite.md).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from tooleval.suites.base import (
    Dialogue,
    Environment,
    EnvironmentUnavailable,
    Suite,
    SuiteTask,
    ToolResult,
    tool_specs_from_json,
    tools_hash,
)

__all__ = [
    "SUITES",
    "SUITE_NAMES",
    "Dialogue",
    "Environment",
    "EnvironmentUnavailable",
    "Suite",
    "SuiteTask",
    "ToolResult",
    "load_suite",
    "tool_specs_from_json",
    "tools_hash",
]

SUITES: dict[str, str] = {
    "infranode": "tooleval.suites.infranode",
    "cesium": "tooleval.suites.cesium",
}
SUITE_NAMES = tuple(SUITES)


def load_suite(name: str, **options: Any) -> Suite[Any]:
    """The suite called ``name``; unknown names raise ValueError listing the valid ones.

    ``options`` go to the suite's own ``load_suite`` (InfraNode: ``api_base_url``; Cesium:
    ``router``); None values mean the suite's default.
    """
    module_name = SUITES.get(name)
    if module_name is None:
        raise ValueError(f"unknown suite {name!r}; choose one of: {', '.join(SUITE_NAMES)}")
    module = importlib.import_module(module_name)
    given = {key: value for key, value in options.items() if value is not None}
    accepted = inspect.signature(module.load_suite).parameters
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise ValueError(f"suite {name!r} has no option(s) {', '.join(unknown)}")
    suite: Suite[Any] = module.load_suite(**given)
    return suite
