"""Multi-turn runs in report.html without a browser: explorer rows of real episodes and
Cesium scenario results files (the CLI with the shipped fake backend), the multi-turn tables'
links, old files, and bad input.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("MPLCONFIGDIR", str(Path(tempfile.gettempdir()) / "tooleval-mpl"))

from report_results import (
    EPISODES_RUN,
    MARKUP,
    SCENARIOS_RUN,
    episodes_results,
    items,
    page_data,
    scenario_results,
    summary_cells,
    write_script,
)
from tooleval.cli import main as cli
from tooleval.report import ReportInputError, build_report, load_runs, write_report
from tooleval.report.conversation_rows import conversation_rows
from tooleval.report.html import render_html
from tooleval.report.loading import ConversationRun
from tooleval.report.page_data import Texts
from tooleval.suites import load_suite

INFRANODE = {task.id: task for task in load_suite("infranode").tasks}
VERSIONS = {name: load_suite(name).version for name in ("infranode", "cesium")}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = tmp_path_factory.mktemp("conversations") / "results"
    found.mkdir()
    episodes_results(found)
    scenario_results(found)
    return found


def conversation(folder: Path, run_id: str) -> ConversationRun:
    (found,) = [c for c in load_runs([folder]).conversations if c.run_id == run_id]
    return found


def rows_of(run: ConversationRun) -> tuple[dict[str, dict[str, Any]], list[str]]:
    texts = Texts()
    rows = {row["id"]: row for row in conversation_rows(run, texts.intern)}
    return rows, texts.to_json()


def text_of(part: dict[str, Any], texts: list[str]) -> str | None:
    """A message's or final answer's text: inline, or stored once for the page."""
    return texts[part["text"]] if "text" in part else part["content"]


def test_episode_rows_are_the_conversations_of_the_file(folder: Path) -> None:
    path = folder / f"{EPISODES_RUN}.json"
    rows, texts = rows_of(conversation(folder, EPISODES_RUN))
    recorded = {item["task_id"]: item for item in items(path)}
    assert set(rows) == set(recorded)
    for task_id, item in recorded.items():
        row = rows[task_id]
        assert (row["end"], row["cls"]) == (item["ending"], item["outcome"])
        assert [m["role"] for m in row["transcript"]] == [m["role"] for m in item["transcript"]]
        assert text_of(row["final"], texts) == item["final_answer"]
        shown = [text_of(m, texts) for m in row["transcript"]]
        assert shown == [m["content"] for m in item["transcript"]]
        assert [c["name"] for c in row["executed"]] == [c["name"] for c in item["calls"]]
        if item["score"] is None:
            assert row["err"] == item["error_class"] and "success" not in row["out"]
        else:
            assert row["err"] is None and row["out"]["success"] == item["score"]["success"]
            assert row["out"]["call_match"] == item["first_call"]["call_match"]
    assert rows["routing_broad-001"]["err"] == "server_error"
    assert rows["two_step-001"]["end"] == "max_rounds" and rows["two_step-001"]["rounds"] == 3
    system = rows["routing_named-001"]["transcript"][0]
    assert texts[system["text"]] == recorded["routing_named-001"]["transcript"][0]["content"]
    tool = rows["routing_named-001"]["transcript"][3]
    gold_tool = INFRANODE["routing_named-001"].gold.name
    assert (tool["role"], tool["name"], tool["tool_call_id"]) == ("tool", gold_tool, "call_1_0")


def test_an_episode_shows_its_first_call_against_the_gold_call(folder: Path) -> None:
    rows, texts = rows_of(conversation(folder, EPISODES_RUN))
    repaired = rows["resource_key-001"]
    assert repaired["calls"][0]["arguments"]["resource"] == "indicators"  # round 1 only
    assert len(repaired["calls"]) == 1 and len(repaired["executed"]) == 2
    assert repaired["diff"] == {"name": False, "args": ["resource"]}
    assert text_of(repaired["final"], texts) == MARKUP
    assert "diff" not in rows["not_covered-001"]  # no call in the first turn


def test_scenario_rows_keep_the_verdict_codes(folder: Path) -> None:
    path = folder / f"{SCENARIOS_RUN}.json"
    rows, _ = rows_of(conversation(folder, SCENARIOS_RUN))
    recorded = {item["task_id"]: item for item in items(path)}
    for task_id, item in recorded.items():
        row, score = rows[task_id], item["score"]
        assert row["cls"] == item["outcome"]  # the verdict's class: correct or a problem code
        assert [c["status"] for c in row["checks"]] == [c["status"] for c in score["step_checks"]]
        assert [s["status"] for s in row["steps"]] == [s["status"] for s in score["steps"]]
        assert row.get("problems", []) == score["problems"]
        assert [c.get("kind") for c in row["executed"]] == score["call_kinds"]
        assert row["score"]["missing_required_tools"] == score["missing_required_tools"]
        assert (row["out"]["success"], row["out"]["passed"]) == (score["success"], score["passed"])
    basemap = rows["layer-basemap-en"]
    assert basemap["cls"] == "value_mismatch" and basemap["checks"][0]["status"] == "value_mismatch"
    assert basemap["out"] == {"success": 0, "passed": 1}  # wrong, yet the original's rule passes
    (teleport,) = rows["view-instant-en"]["executed"]
    assert (teleport["kind"], teleport["error"], teleport["valid"]) == (
        "hallucinated",
        "not_offered",
        False,
    )
    assert "diff" not in basemap  # no gold call to compare the first call with


def test_a_verdict_nested_under_verdict_is_read_too(folder: Path) -> None:
    run = conversation(folder, SCENARIOS_RUN)
    raw = dict(run.item_json[0])
    steps = [{"tool": "setView", "status": "missing", "round": None, "detail": ""}]
    verdict = {"correct": False, "steps": steps, "problems": ["missing: setView"]}
    score = {k: v for k, v in raw["score"].items() if k not in ("step_checks", "problems")}
    raw["score"] = {**score, "steps": None, "verdict": verdict, "problems": ["undone: 2"]}
    from dataclasses import replace

    rows, _ = rows_of(replace(run, item_json=(raw,)))
    row = rows[raw["task_id"]]
    assert row["problems"] == ["undone: 2", "missing: setView"]
    assert row["checks"] == steps and "verdict" not in row["score"] and "steps" not in row


def test_an_episode_row_shows_the_final_answer_check_and_the_judge(folder: Path) -> None:
    from dataclasses import replace

    run = conversation(folder, EPISODES_RUN)
    rows, _ = rows_of(run)
    recorded = {item["task_id"]: item for item in items(folder / f"{EPISODES_RUN}.json")}
    claims = recorded["resource_key-001"]["score"]["claims"]
    assert claims and rows["resource_key-001"]["claims"] == claims
    assert "claims" not in rows["resource_key-001"]["score"]  # shown in its own table
    assert "judge" not in rows["resource_key-001"]  # no judge was asked
    raw = dict(next(r for r in run.item_json if r["task_id"] == "resource_key-001"))
    prompt = [{"role": "system", "content": "Du prüfst …"}]
    raw["judge"] = {"verdict": "incorrect", "reason": "Der Preis gilt für E10.", "prompt": prompt}
    judged, _ = rows_of(replace(run, item_json=(raw,)))
    assert judged["resource_key-001"]["judge"] == {
        "verdict": "incorrect",
        "reason": "Der Preis gilt für E10.",
    }


def test_a_planned_conversation_without_a_record_is_not_run(folder: Path, tmp_path: Path) -> None:
    document = json.loads((folder / f"{EPISODES_RUN}.json").read_text(encoding="utf-8"))
    dropped = document["items"].pop()
    (tmp_path / "cut.json").write_text(json.dumps(document), encoding="utf-8")
    rows, _ = rows_of(conversation(tmp_path, "cut"))
    assert rows[dropped["task_id"]]["err"] == "not_run" and len(rows) == 5


def test_long_texts_are_stored_once_for_the_page(folder: Path) -> None:
    data = page_data(render_html(build_report(load_runs([folder])), {}))
    prompts = [m for r in data["rows"] for m in r.get("transcript", []) if m["role"] == "system"]
    assert len(prompts) == 9 and all("content" not in m for m in prompts)
    assert len({m["text"] for m in prompts}) < len(prompts)  # one InfraNode prompt for all
    assert len(set(data["texts"])) == len(data["texts"])
    (loops,) = [r for r in data["rows"] if r["id"] == "two_step-001"]
    results = [m for m in loops["transcript"] if m["role"] == "tool"]
    assert len(results) == 3 and len({m["text"] for m in results}) == 1  # the same answer
    question = data["tasks"][f"infranode@{VERSIONS['infranode']}"]["resource_key-001"]
    assert question["q"] == INFRANODE["resource_key-001"].question and "gold" in question
    cesium = data["tasks"][f"cesium@{VERSIONS['cesium']}"]
    assert cesium["camera-orbit-en"]["q"].startswith("Start a clockwise")
    kinds = {run["id"]: run["kind"] for run in data["runs"]}
    assert kinds == {EPISODES_RUN: "multi_turn", SCENARIOS_RUN: "multi_turn"}


def test_model_markup_in_a_conversation_stays_data(folder: Path) -> None:
    html = render_html(build_report(load_runs([folder])), {})
    assert html.count("<script") == 2 and "<img src=x" not in html
    data = page_data(html)
    answers = [text_of(r["final"], data["texts"]) for r in data["rows"]]
    assert MARKUP in answers


def multi_turn_cells(html: str) -> list[tuple[str, list[str]]]:
    start = html.index("<h2>Multi-turn runs</h2>")
    return summary_cells(html[start:])


def test_every_number_in_the_multi_turn_tables_links_to_its_conversations(folder: Path) -> None:
    html = render_html(build_report(load_runs([folder])), {})
    cells = multi_turn_cells(html)
    numbers = [(text, hrefs) for text, hrefs in cells if re.search(r"[0-9]", text)]
    unlinked = sorted(text for text, hrefs in numbers if not hrefs)
    suites = [f"{name} {version}" for name, version in VERSIONS.items()]
    assert unlinked == sorted(["1", "2", *suites])  # the "#" and suite columns
    hrefs = {h for _, found in cells for h in found}
    run = f"run={EPISODES_RUN}"
    assert {
        f"#{run}&end=provider_error",
        f"#{run}&end=max_rounds",
        f"#{run}&cls=no_call",
        f"#{run}&metric=success&err=none",
        f"#{run}&err=none",
        f"#{run}&err=server_error",
        f"#{run}&err=class",
        f"#run={SCENARIOS_RUN}",
    } <= hrefs
    original = html[html.index("<h3>Original harness metrics</h3>") :]
    assert "scenario<wbr>Pass<wbr>Rate" in original  # long names may break: fits 1280 px


def test_a_multi_turn_item_that_is_not_an_object_is_named(folder: Path, tmp_path: Path) -> None:
    document = json.loads((folder / f"{SCENARIOS_RUN}.json").read_text(encoding="utf-8"))
    document["items"][2] = ["not", "an", "item"]
    (tmp_path / "broken.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ReportInputError, match=r"broken\.json: items\[2\] is not an object"):
        load_runs([tmp_path])


def test_old_episode_and_cesium_files_show_their_conversations(
    folder: Path, tmp_path: Path
) -> None:
    document = json.loads((folder / f"{EPISODES_RUN}.json").read_text(encoding="utf-8"))
    old = {k: v for k, v in document.items() if k not in ("kind", "endings")}
    old["format"] = "tooleval-episodes/1"
    old["items"] = [
        {k: v for k, v in i.items() if k not in ("ending", "repeat")} for i in old["items"]
    ]
    (tmp_path / "old-episodes.json").write_text(json.dumps(old), encoding="utf-8")
    (tmp_path / "old-cesium.json").write_text(json.dumps(OLD_CESIUM), encoding="utf-8")
    loaded = load_runs([tmp_path])
    by_id = {run.run_id: run for run in loaded.conversations}
    episodes, _ = rows_of(by_id["old-episodes"])
    assert episodes["routing_named-001"]["transcript"][1]["content"] == (
        INFRANODE["routing_named-001"].question
    )
    cesium, _ = rows_of(by_id["old-cesium"])
    basemap = cesium["layer-basemap-en"]
    assert basemap["executed"][0]["kind"] == "required"
    assert basemap["executed"][0]["error"] == "basemap: not one of the allowed values"
    assert basemap["transcript"][2]["calls"] == [
        {"name": "setBasemap", "arguments": {"basemap": "x"}}
    ]
    assert basemap["final"] == {"content": "Done."} and basemap["cls"] == "failed"
    assert cesium["camera-orbit-en"]["err"] == "provider_error"


OLD_CESIUM = {
    "createdAt": "2026-08-01T10:00:00+00:00",
    "suite": "cesium",
    "suiteVersion": "1.0.0",
    "settings": {"model": "old-model", "backend": "openai", "repeats": 1, "maxRounds": 4},
    "summary": {"scenarioPassRate": 0.0},
    "results": [
        {"id": "layer-basemap-en", "locale": "en", "repetition": 1, "outcome": "completed",
         "passed": False, "rounds": 2, "finalText": "Done.",
         "calls": [{"round": 1, "id": "c1", "name": "setBasemap", "arguments": {"basemap": "x"},
                    "valid": False, "issues": ["basemap: not one of the allowed values"],
                    "kind": "required", "destructive": False, "result": {}}],
         "transcript": [
             {"role": "system", "content": "You control a globe."},
             {"role": "user", "content": "Switch the visible basemap to the satellite style."},
             {"role": "assistant", "content": None,
              "tool_calls": [{"id": "c1", "name": "setBasemap", "arguments": {"basemap": "x"}}]},
             {"role": "tool", "content": "{}", "tool_call_id": "c1", "name": "setBasemap"},
             {"role": "assistant", "content": "Done."}]},
        {"id": "camera-orbit-en", "locale": "en", "repetition": 1, "outcome": "provider_error",
         "passed": False, "error": "server_error: boom", "rounds": 0},
    ],
}  # fmt: skip


def test_page_size_for_ten_episode_runs_of_the_whole_suite(tmp_path: Path) -> None:
    """10 runs x 91 episodes (the gold call, its API result, a 640-character answer that
    differs per run) stay under 2 MB: a tool result that several runs got is stored once."""
    suite = load_suite("infranode")
    lines = [
        {"task_id": t.id, **reply}
        for t in suite.tasks
        for reply in (
            {"tool_calls": [{"name": t.gold.name, "arguments": dict(t.gold.arguments)}]},
            {"text": "Laut API: " + t.question},
        )
    ]
    source = tmp_path / "source.json"
    script = write_script(tmp_path / "script.jsonl", lines)
    argv = ["episodes", "--backend", "fake", "--model", "m", "--mode", "native"]
    assert cli([*argv, "--script", str(script), "--output", str(source)]) == 0
    document = json.loads(source.read_text(encoding="utf-8"))
    folder = tmp_path / "ten"
    folder.mkdir()
    for n in range(10):
        for item in document["items"]:
            answer = (f"Run {n}: {item['final_answer']} " * 20)[:640]
            item["final_answer"] = item["transcript"][-1]["content"] = answer
        document["config"]["model"] = f"model-{n}"
        (folder / f"model-{n}.episodes.json").write_text(json.dumps(document), encoding="utf-8")
    written = {p.name: p for p in write_report(build_report(load_runs([folder])), folder)}
    html = written["report.html"].read_text(encoding="utf-8")
    assert len(page_data(html)["rows"]) == 910
    size = written["report.html"].stat().st_size
    print(f"report.html for 10 episode runs x 91 items: {size:,} bytes")
    assert size < 2_000_000
