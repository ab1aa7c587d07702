"""The Cesium environment: a call is checked as the upstream harness checks it (offered tool,
arguments valid against the tool's contract) and, when valid, executed on a simulated scene.

Error codes on the executed calls (``ExecutedCall.error``) say which check failed:
``unreadable_call`` (arguments not JSON or not an object; set by the driver), ``missing_name``,
``not_offered`` (not among the routed tools, or no such tool), ``invalid_arguments`` (schema),
and ``failed``: a schema-valid call the simulated viewer rejected (``success: false``, e.g. an
unknown entity id). The upstream harness counts a call as valid when it passed the checks;
``schema_valid`` says exactly that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.records import ExecutedCall, JSONObject
from tooleval.suites.base import ToolResult
from tooleval.suites.cesium.catalogue import Catalogue
from tooleval.suites.cesium.simulator import SimulatedScene
from tooleval.suites.cesium.validation import validate_arguments

FAILED = "failed"
REFUSED = frozenset(
    {"unreadable_call", "too_many_calls", "missing_name", "not_offered", "invalid_arguments"}
)
ISSUES = {
    "missing_name": "missing function name",
    "not_offered": "tool was not in the selected tool set",
    "arguments_not_object": "arguments must decode to an object",
    "too_many_calls": "too many calls in one turn",
}


def issue_body(issues: Sequence[str]) -> dict[str, Any]:
    """What the model reads for a call that was not executed: every issue, joined."""
    return {"success": False, "error": "; ".join(issues)}


def unreadable_issue(reason: str) -> str:
    """The upstream wording for arguments the parser could not read (``reason``)."""
    return ISSUES.get(reason, f"arguments are not valid JSON ({reason})")


def schema_valid(call: ExecutedCall) -> bool:
    """Whether the call passed the upstream checks (offered tool, valid arguments)."""
    return call.error not in REFUSED


class SceneEnvironment:
    """One scenario's simulated globe, offering the routed tools only."""

    def __init__(self, offered: Sequence[str], catalogue: Catalogue) -> None:
        self.offered = frozenset(offered)
        self.catalogue = catalogue
        self.scene = SimulatedScene()

    def execute(self, name: str, arguments: JSONObject) -> ToolResult:
        if not name:
            return ToolResult(issue_body([ISSUES["missing_name"]]), False, error="missing_name")
        tool = self.catalogue.by_name().get(name)
        if tool is None or name not in self.offered:
            return ToolResult(issue_body([ISSUES["not_offered"]]), False, error="not_offered")
        issues = validate_arguments(dict(tool.spec.parameters), dict(arguments))
        if issues:
            return ToolResult(issue_body(issues), False, error="invalid_arguments")
        result = self.scene.execute(name, arguments)
        ok = result.get("success") is not False
        return ToolResult(result, ok, error=None if ok else FAILED)
