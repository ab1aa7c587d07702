"""Running profiles over surfaces: the findings of one audit."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.records import ToolSpec
from tooleval.schema_compat.profiles import (
    DEFAULT_PROFILES,
    PROFILES,
    WHAT_IF_PROFILES,
    Profile,
)
from tooleval.schema_compat.report import Finding
from tooleval.schema_compat.surfaces import Surface, ToolEntry, suite_surfaces
from tooleval.schema_compat.walk import iter_nodes

EXTERNAL_PROFILES: tuple[str, ...] = (
    "original",
    "openai",
    "gemini",
    "anthropic",
    "vscode-mcp",
    "webmcp",
)


@dataclass(frozen=True)
class AuditReport:
    surfaces: tuple[tuple[str, int], ...]  # (surface name, tool count)
    profiles: tuple[tuple[str, str], ...]  # (profile name, version)
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "surfaces": [{"surface": s, "tools": n} for s, n in self.surfaces],
            "profiles": [{"profile": p, "version": v} for p, v in self.profiles],
            "findings": [f.to_json() for f in self.findings],
            "notes": list(self.notes),
        }


def _finding(surface: Surface, tool: str, profile: Profile, **kw: Any) -> Finding:
    providers = kw.pop("providers", None) or profile.providers
    return Finding(surface=surface.name, tool=tool, providers=providers, profile=profile.name, **kw)


def _schema_findings(surface: Surface, entry: ToolEntry, profile: Profile) -> list[Finding]:
    out: list[Finding] = []
    for rule in profile.rules:
        for path, message in rule.check(entry.schema):
            out.append(
                _finding(
                    surface,
                    entry.name,
                    profile,
                    providers=rule.providers,
                    rule=rule.id,
                    path=path,
                    message=message,
                    severity=rule.severity,
                )
            )
        if rule.id == "json-serializable" and out:
            break  # nothing else is meaningful for a schema that cannot be sent
    return out  # fmt: skip


def _name_findings(surface: Surface, entry: ToolEntry, profile: Profile) -> list[Finding]:
    if profile.name_pattern is None or profile.name_pattern.match(entry.name):
        return []
    message = f"tool name must match {profile.name_pattern.pattern}"
    return [_finding(surface, entry.name, profile, rule="tool-name", path="name",
                     message=message, severity="rejected")]  # fmt: skip


def _param_counts(entries: Sequence[ToolEntry]) -> tuple[int, int]:
    """(optional top-level parameters, parameters whose schema is a union) over all tools."""
    optional = unions = 0
    for entry in entries:
        schema = entry.schema if isinstance(entry.schema, dict) else {}
        props = schema.get("properties") or {}
        optional += sum(1 for k in props if k not in (schema.get("required") or []))
        for _, node in iter_nodes(schema):
            if "anyOf" in node or "oneOf" in node or isinstance(node.get("type"), list):
                unions += 1
    return optional, unions


def _set_findings(surface: Surface, profile: Profile) -> list[Finding]:
    out: list[Finding] = []
    count = len(surface.entries)
    if profile.max_tools is not None and count > profile.max_tools:
        out.append(
            _finding(
                surface,
                "*",
                profile,
                rule="tool-count",
                path="tools",
                message=f"{count} tools; at most {profile.max_tools} per request",
                severity=profile.tool_limit_severity,
            )
        )
    optional, unions = _param_counts(surface.entries)
    for limit, value, what in (
        (profile.max_optional_params, optional, "optional parameters"),
        (profile.max_union_params, unions, "union-typed parameters"),
    ):
        if limit is not None and value > limit:
            out.append(
                _finding(
                    surface,
                    "*",
                    profile,
                    rule="strict-complexity",
                    path="tools",
                    message=f"{value} {what} across tools; the limit is {limit}",
                    severity="rejected",
                )
            )
    return out  # fmt: skip


def audit_surface(surface: Surface, profile_names: Iterable[str]) -> list[Finding]:
    findings: list[Finding] = []
    for name in profile_names:
        profile = PROFILES[name]
        findings.extend(_set_findings(surface, profile))
        for entry in surface.entries:
            findings.extend(_name_findings(surface, entry, profile))
            findings.extend(_schema_findings(surface, entry, profile))
    return findings


def profiles_for(surface: Surface, what_if: bool) -> tuple[str, ...]:
    if surface.kind == "external":
        names = EXTERNAL_PROFILES
        extra = tuple(p for ps in WHAT_IF_PROFILES.values() for p in ps)
        return names + extra if what_if else names
    names = DEFAULT_PROFILES[surface.kind]
    return names + WHAT_IF_PROFILES.get(surface.kind, ()) if what_if else names


def audit_surfaces(surfaces: Sequence[Surface], what_if: bool = False) -> AuditReport:
    findings: list[Finding] = []
    used: list[str] = []
    for surface in surfaces:
        names = profiles_for(surface, what_if)
        used.extend(n for n in names if n not in used)
        findings.extend(audit_surface(surface, names))
    return AuditReport(
        surfaces=tuple((s.name, len(s.entries)) for s in surfaces),
        profiles=tuple((n, PROFILES[n].version) for n in used),
        findings=tuple(findings),
    )


def audit_suite(suite: str, specs: Sequence[ToolSpec], what_if: bool = False) -> AuditReport:
    return audit_surfaces(suite_surfaces(suite, specs), what_if)
