"""Findings of the schema gate and their two renderings (table and JSON)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

# Ordered from most to least severe.
SEVERITIES = ("rejected", "dropped", "unenforced")


@dataclass(frozen=True)
class Finding:
    """One rule broken by one tool on one surface.

    ``severity``: ``rejected`` (the provider refuses the request or the tool), ``dropped``
    (accepted, but the keyword or tool is silently ignored), ``unenforced`` (accepted and shown
    to the model, but arguments are not checked against it).
    """

    surface: str
    tool: str
    providers: tuple[str, ...]
    rule: str
    path: str
    message: str
    severity: str
    profile: str

    def to_json(self) -> dict[str, object]:
        return {
            "surface": self.surface,
            "tool": self.tool,
            "providers": list(self.providers),
            "rule": self.rule,
            "path": self.path,
            "message": self.message,
            "severity": self.severity,
            "profile": self.profile,
        }


def at_least(findings: Sequence[Finding], severity: str) -> list[Finding]:
    """Findings as severe as ``severity`` or more."""
    limit = SEVERITIES.index(severity)
    return [f for f in findings if SEVERITIES.index(f.severity) <= limit]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_table(findings: Sequence[Finding]) -> str:
    header = "surface | tool | providers | rule | JSON path | message"
    rows = [
        " | ".join(
            _cell(x)
            for x in (
                f.surface,
                f.tool,
                ", ".join(f.providers),
                f.rule,
                f.path,
                f"[{f.severity}] {f.message}",
            )
        )
        for f in findings
    ]
    return "\n".join([header, *rows])


def count_line(findings: Sequence[Finding]) -> str:
    counts = Counter(f.severity for f in findings)
    return ", ".join(f"{counts[s]} {s}" for s in SEVERITIES)
