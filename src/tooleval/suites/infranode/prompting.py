"""The InfraNode suite's prompt: the runner (prompt and native mode), the episodes and the
lm-eval task all build their messages here, so the bytes are the same everywhere.

The system message comes first and is byte-identical for every item of a suite, so providers
and the embedded model can cache it; everything item-specific is in the user message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tooleval.records import Message, Mode, ToolSpec

PROMPT_INSTRUCTIONS = (
    "Du bist ein Assistent, der Fragen zu deutschen Städten mit Werkzeugen der InfraNode-API "
    "beantwortet. Wähle für die Frage des Nutzers genau ein Werkzeug und rufe es auf. "
    "Antworte ausschließlich mit einem JSON-Objekt der Form "
    '{"name": "<werkzeug>", "arguments": {...}} und schreibe nichts davor oder danach.'
)
NATIVE_INSTRUCTIONS = (
    "Du bist ein Assistent, der Fragen zu deutschen Städten mit Werkzeugen der InfraNode-API "
    "beantwortet. Wähle für die Frage des Nutzers genau ein Werkzeug und rufe es auf."
)


def render_tools(tools: Sequence[ToolSpec]) -> str:
    """One compact JSON line per tool (name, description, parameters), in suite order."""
    lines = [
        json.dumps(
            {"name": t.name, "description": t.description, "parameters": t.parameters},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for t in tools
    ]
    return "\n".join(lines)


def system_prompt(tools: Sequence[ToolSpec], mode: Mode = "prompt") -> str:
    """The system message: instructions, plus the tool list in prompt mode."""
    if mode == "native":
        return NATIVE_INSTRUCTIONS
    return f"{PROMPT_INSTRUCTIONS}\n\nVerfügbare Werkzeuge:\n{render_tools(tools)}"


def build_messages(
    question: str, tools: Sequence[ToolSpec], mode: Mode = "prompt"
) -> tuple[Message, ...]:
    """System + user messages for one item. In native mode tools travel separately."""
    return (
        Message("system", system_prompt(tools, mode)),
        Message("user", question),
    )
