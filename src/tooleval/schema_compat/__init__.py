"""The provider schema gate: will each provider accept (and honour) the tool schemas we send?

Rules live in ``rules``, provider profiles in ``profiles``, the payloads audited in
``surfaces`` (and ``mcp_audit`` for live MCP servers); ``gate`` runs profiles over surfaces and
``report`` renders the findings. Sources for every rule: docs/schema-compat.md.
"""

from __future__ import annotations

from tooleval.schema_compat.gate import AuditReport, audit_suite, audit_surfaces
from tooleval.schema_compat.report import Finding

__all__ = ["AuditReport", "Finding", "audit_suite", "audit_surfaces"]
