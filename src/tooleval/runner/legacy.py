"""Older results documents, read into the fields of the current format (``runner.results``
adds ``format`` and ``kind``). Nothing here writes: old files stay as they are.

- ``tooleval-episodes/1`` (``tooleval episodes`` before 0.2): items gain ``ending``/``repeat``.
- The Cesium ``model-tools --output`` report of tooleval 0.1 (camelCase, no format tag): the
  run becomes a multi-turn document; its summary is kept as recorded (``recorded_summary``),
  the nine original metrics are taken from it where present. It recorded no correctness
  verdicts, so its headline is the original's rule over the runs the model finished
  (``original_rule_pass_rate``), never ``scenarioCorrectRate``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CESIUM_ENDINGS = {
    "completed": "answered",
    "max_rounds": "max_rounds",
    "provider_error": "provider_error",
    "budget_exhausted": "budget_exhausted",
    "routing_miss": "blocked",
}


def episodes_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tooleval-episodes/1`` document in the current field names."""
    items = []
    for item in document.get("items") or []:
        ending = "provider_error" if item.get("error_class") else "answered"
        items.append({**item, "ending": ending, "repeat": item.get("repeat", 0)})
    return {**document, "items": items, "upgraded_from": "tooleval-episodes/1"}


def _cesium_item(raw: Mapping[str, Any]) -> dict[str, Any]:
    error = raw.get("error")
    ending = CESIUM_ENDINGS.get(str(raw.get("outcome")), "answered")
    scored = ending in ("answered", "max_rounds")
    usage = raw.get("usage") or {}
    score = {
        "passed": bool(raw.get("passed")),
        "success": int(bool(raw.get("passed"))),
        "workflow_passed": bool(raw.get("workflowPassed")),
        "valid_required_tools": raw.get("validRequiredTools") or [],
    }
    return {
        "task_id": raw.get("id"),
        "category": raw.get("locale"),
        "repeat": int(raw.get("repetition") or 1) - 1,
        "ending": ending,
        "outcome": ("passed" if raw.get("passed") else "failed") if scored else ending,
        "score": score if scored else None,
        "final_answer": raw.get("finalText"),
        "rounds": raw.get("rounds", 0),
        "requests": raw.get("requests", 0),
        "calls": raw.get("calls") or [],
        "transcript": raw.get("transcript") or [],
        "error_class": None if error is None or ending == "blocked" else ending,
        "error_message": error,
        "usage": [
            {"input_tokens": usage.get("inputTokens"), "output_tokens": usage.get("outputTokens")}
        ],
    }


def _pass_rate(items: list[dict[str, Any]]) -> float | None:
    scored = [i["score"] for i in items if i["score"]]
    return sum(s["success"] for s in scored) / len(scored) if scored else None


def _cesium_headline(items: list[dict[str, Any]], summary: Mapping[str, Any]) -> dict[str, Any]:
    """What an old file can lead with: its runs were never judged by the correctness rule."""
    return {
        "metric": "original_rule_pass_rate",
        "value": _pass_rate(items),
        "note": "tooleval 0.1 recorded no correctness verdicts (no scenarioCorrectRate)",
        "beside": {
            "metric": "scenarioPassRate",
            "value": summary.get("scenarioPassRate"),
            "label": "the original's rule, as recorded",
        },
    }


def cesium_report_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The tooleval 0.1 Cesium report as a multi-turn document."""
    # Imported here: only an old Cesium report needs the suite (and its schema validator).
    from tooleval.suites.cesium.metrics import ORIGINAL_NAMES

    settings = document.get("settings") or {}
    summary = document.get("summary") or {}
    items = [_cesium_item(raw) for raw in document.get("results") or []]
    answered = sum(1 for i in items if i["ending"] in ("answered", "max_rounds"))
    return {
        "complete": answered == len(items),
        "stop_reason": None,
        "config": {
            "suite": "cesium",
            "backend": settings.get("backend"),
            "model": settings.get("model") or "unknown",
            "base_url": settings.get("baseUrl"),
            "mode": "native",
            "repeats": settings.get("repeats", 1),
            "max_rounds": settings.get("maxRounds"),
            "max_tokens": settings.get("maxTokens"),
        },
        "setup": f"native, {settings.get('maxRounds', 4)} rounds",
        "suite": {
            "name": "cesium",
            "version": document.get("suiteVersion"),
            "categories": ["en", "zh-CN"],
            "n_tasks": len({i["task_id"] for i in items}),
        },
        "started_at": document.get("createdAt"),
        "finished_at": document.get("createdAt"),
        "counts": {
            "planned": len(items),
            "answered": answered,
            "errors": sum(1 for i in items if i["error_class"]),
        },
        "errors_by_class": {},
        "headline": _cesium_headline(items, summary),
        "metrics": {"original_rule_pass_rate": _pass_rate(items)},
        "original_metrics": {name: summary.get(name) for name in ORIGINAL_NAMES},
        "recorded_summary": dict(summary),
        "items": items,
        "upgraded_from": "cesium model-tools report (tooleval 0.1)",
    }
