"""The records of the InfraNode audit: a finding, and what the checks read (the tools as the
model sees them, the instructions, and a transport to execute calls on)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tooleval.records import ToolSpec
from tooleval.suites.infranode.client import Transport


@dataclass(frozen=True)
class Defect:
    """One finding: the task (None for the suite as a whole), the check, and what is wrong."""

    task_id: str | None
    check: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "check": self.check, "message": self.message}


@dataclass(frozen=True)
class AuditContext:
    tools: tuple[ToolSpec, ...]
    instructions: tuple[str, ...]
    transport: Transport
    suite_version: str
