"""How tool results go back to the model: slimmed, compact, cut to a fixed size.

A result is the API's JSON body with bookkeeping members removed (``SLIM_KEYS``, at any
depth), written as compact JSON (non-ASCII kept). Longer than ``max_chars`` characters, it is
cut at exactly ``max_chars`` and ``TRUNCATION_MARK`` (with both lengths) is appended, so the
same body always gives the same text.

Prompt mode: one user message per round, ``Ergebnis von <tool>: <json>`` per call (one line
each), then ``CONTINUE_HINT``; this works on every backend and on chat templates without a
tool role. Native mode: one ``tool`` message per call (the multi-turn driver builds those).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.records import Message

SLIM_KEYS = frozenset(
    {
        "attribution",
        "record_id",
        "content_hash",
        "correlation_id",
        "license_tier",
        "schema_version",
        "wikidata_qid",
        "retrieved_at",
    }
)
TRUNCATION_MARK = " …[gekürzt: {shown} von {total} Zeichen]"
CONTINUE_HINT = (
    "Wenn du noch etwas brauchst, rufe ein weiteres Werkzeug auf (nur das JSON-Objekt). "
    "Sonst beantworte die Frage jetzt auf Deutsch in normalem Text, ohne JSON, und nenne nur "
    "Angaben aus den Ergebnissen."
)


def slim(value: Any) -> Any:
    """``value`` without the members named in ``SLIM_KEYS``, at any depth."""
    if isinstance(value, Mapping):
        return {k: slim(v) for k, v in value.items() if k not in SLIM_KEYS}
    if isinstance(value, list):
        return [slim(item) for item in value]
    return value


def result_text(body: Mapping[str, Any], max_chars: int) -> str:
    """The text the model sees for one API body (slimmed, compact, deterministically cut)."""
    text = json.dumps(slim(body), ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + TRUNCATION_MARK.format(shown=max_chars, total=len(text))


def prompt_feedback(results: Sequence[tuple[str, str]]) -> Message:
    """One user message with every ``(tool name, result text)`` of a round, then the hint."""
    lines = [f"Ergebnis von {name}: {text}" for name, text in results]
    return Message("user", "\n".join([*lines, "", CONTINUE_HINT]))


def error_body(code: str, message: str) -> dict[str, Any]:
    """The body fed back for a call tooleval could not send (same shape as API errors)."""
    return {"error": {"code": code, "message": message, "hint": None}}
