"""Write a fake-backend reply script for the InfraNode suite: a model with typical mistakes.

Each task gets one keyed reply (``{"task_id": ..., "text": ...}``), so the run is deterministic
and covers what the report's item explorer shows: right calls, a guessed resource key, umlaut
slugs, prose instead of a call, a fenced call, several calls, and one answer that contains
markup (``<script>``, an ``<img onerror>``) which the report must show as text.

    uv run python scripts/fake_replies.py > replies.jsonl
    uv run tooleval run --backend fake --model fake-mixed --script replies.jsonl
"""

from __future__ import annotations

import json
import sys

from tooleval.records import Task, ToolCall
from tooleval.suites import load_suite

MARKUP = (
    "Ich rufe das Tool auf. <script>document.title='pwned';window.pwned=1</script>"
    '<img src=x onerror="window.pwned=2"> </script><b>fett</b> &amp;'
)


def as_text(call: ToolCall) -> str:
    return json.dumps({"name": call.name, "arguments": dict(call.arguments)}, ensure_ascii=False)


def reply(task: Task, index: int) -> str:
    """The scripted answer to the ``index``-th task of its category."""
    gold, slug = task.gold, task.gold.arguments.get("slug")
    if task.category == "resource_key" and index % 3 == 0:
        return as_text(ToolCall(gold.name, {**gold.arguments, "resource": "indicators"}))
    if task.category == "slug_resolution" and isinstance(slug, str) and index % 2 == 0:
        umlauts = slug.replace("ue", "ü").replace("oe", "ö").replace("ae", "ä")
        return as_text(ToolCall(gold.name, {**gold.arguments, "slug": umlauts.title()}))
    if task.category == "not_covered" and index % 2 == 0:
        return as_text(ToolCall("get_city_overview", {"slug": slug}))
    if task.category == "routing_broad" and index == 1:
        return MARKUP
    if task.category == "routing_broad" and index % 4 == 0:
        return "Dazu kann ich leider nichts sagen."
    if task.category == "compare_multi" and index % 2 == 1:
        return "```json\n" + as_text(gold) + "\n```"
    if task.category == "two_step" and index % 3 == 0:
        first = ToolCall("station_board_departures", {"eva": "8000000"})
        return as_text(first) + "\n" + as_text(gold)
    return as_text(gold)


def main() -> int:
    seen: dict[str, int] = {}
    for task in load_suite("infranode").tasks:
        index = seen.get(task.category, 0)
        seen[task.category] = index + 1
        line = {"task_id": task.id, "text": reply(task, index)}
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
