"""Results files and page readers for the report tests.

Multi-turn results files are written by the real CLI with the shipped fake
backend (scripted replies keyed by task id): an InfraNode episodes run and a Cesium scenario
run. Each script covers what the report's explorer shows for a conversation.

Episodes (native calls, ``--max-rounds 3``): the gold call then an answer; a wrong resource
key first (repaired, then an answer with markup the page must show as text); a provider
error; a model that never stops calling (``max_rounds``); an answer without any call.
Scenarios: a correct geocode → marker flow; a dark basemap (a ``value_mismatch`` check); no
call at all (``missing``); a tool that was not offered (its call kind and error code).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tooleval.cli import main as cli
from tooleval.report.html import DATA_ID
from tooleval.suites import load_suite

MARKUP = (
    "Diesel kostet <script>document.title='pwned';window.pwned=1</script>"
    '<img src=x onerror="window.pwned=2"> <b>1,65 €</b>.'
)
EPISODES = {
    "routing_named-001": "gold",
    "resource_key-001": "repaired",
    "routing_broad-001": "error",
    "two_step-001": "loops",
    "not_covered-001": "prose",
}
SCENARIOS = (
    "multi-geocode-marker-en",
    "layer-basemap-en",
    "camera-orbit-en",
    "view-instant-en",
)
EPISODES_RUN = "agent.episodes"
SCENARIOS_RUN = "globe.scenarios"


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": args} for name, args in pairs]}


def episode_replies(task_id: str, plan: str, gold: Any) -> list[dict[str, Any]]:
    call = (gold.name, dict(gold.arguments))
    if plan == "gold":
        return [calls(call), {"text": "Laut API sind die Werte dort gerade unauffällig."}]
    if plan == "repaired":
        wrong = (gold.name, {**gold.arguments, "resource": "indicators"})
        return [calls(wrong), calls(call), {"text": MARKUP}]
    if plan == "error":
        return [{"error": "server_error"}]
    if plan == "loops":
        return [calls(call)]  # the last reply repeats: a call in every round
    return [{"text": "Dazu habe ich keine Daten."}]


def write_script(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n")
    return path


def episodes_results(folder: Path, name: str = EPISODES_RUN) -> Path:
    """An InfraNode episodes run of five tasks through ``tooleval episodes``."""
    gold = {task.id: task.gold for task in load_suite("infranode").tasks}
    lines = [
        {"task_id": task_id, **reply}
        for task_id, plan in EPISODES.items()
        for reply in episode_replies(task_id, plan, gold[task_id])
    ]
    script = write_script(folder.parent / f"{name}.jsonl", lines)
    output = folder / f"{name}.json"
    code = cli(
        ["episodes", "--backend", "fake", "--model", "scripted-agent", "--mode", "native",
         "--script", str(script), "--case", ",".join(EPISODES), "--max-rounds", "3",
         "--max-retries", "0", "--concurrency", "1", "--output", str(output)]
    )  # fmt: skip
    assert code == 3  # one provider error: incomplete
    return output


SCENARIO_REPLIES = [
    {"task_id": "multi-geocode-marker-en", **calls(("geocode", {"address": "Forbidden City"}))},
    {
        "task_id": "multi-geocode-marker-en",
        **calls(
            ("addMarker", {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"})
        ),
    },
    {"task_id": "multi-geocode-marker-en", "text": "A marker now shows the Forbidden City."},
    {"task_id": "layer-basemap-en", **calls(("setBasemap", {"basemap": "dark"}))},
    {"task_id": "layer-basemap-en", "text": "Switched."},
    {"task_id": "camera-orbit-en", "text": "I cannot orbit the camera."},
    {"task_id": "view-instant-en", **calls(("teleport", {"longitude": 116.3972}))},
    {"task_id": "view-instant-en", "text": "Done."},
]


def scenario_results(folder: Path, name: str = SCENARIOS_RUN) -> Path:
    """A Cesium scenario run of four scenarios through ``tooleval model-tools --live``."""
    script = write_script(folder.parent / f"{name}.jsonl", SCENARIO_REPLIES)
    output = folder / f"{name}.json"
    code = cli(
        ["model-tools", "--live", "--backend", "fake", "--model", "scripted-globe",
         "--script", str(script), "--case", ",".join(SCENARIOS), "--rpm", "6000",
         "--output", str(output)]
    )  # fmt: skip
    assert code == 0
    return output


def items(path: Path) -> list[dict[str, Any]]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = document["items"]
    return found


# --- reading a rendered page -----------------------------------------------------------


def page_data(html: str) -> dict[str, Any]:
    start = html.index(f'id="{DATA_ID}">') + len(f'id="{DATA_ID}">')
    data: dict[str, Any] = json.loads(html[start : html.index("</script>", start)])
    return data


class Cells(HTMLParser):
    """Cells of the summary tables and every link before the explorer."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, list[str]]] = []
        self.hrefs: list[str] = []
        self.cell: tuple[list[str], list[str]] | None = None
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            self.done = True
        if self.done:
            return
        if tag == "td":
            self.cell = ([], [])
        if tag == "a":
            self.hrefs.append(dict(attrs).get("href") or "")
            if self.cell is not None:
                self.cell[1].append(self.hrefs[-1])

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None and not self.done:
            self.cells.append(("".join(self.cell[0]).strip(), self.cell[1]))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[0].append(data)


def summary_cells(html: str) -> list[tuple[str, list[str]]]:
    parser = Cells()
    parser.feed(html)
    return parser.cells


def summary_links(html: str) -> set[str]:
    parser = Cells()
    parser.feed(html)
    return set(parser.hrefs)
