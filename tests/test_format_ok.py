"""format_ok: format compliance scored apart from tool competence, from the scorer to the
results file, the run table and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake, make_mini_suite
from tooleval.commands.run import results_table
from tooleval.metrics import METRIC_NAMES, aggregate
from tooleval.parsing import parse_response, parse_text
from tooleval.records import ItemScore, NativeToolCall, Task, ToolCall, ToolSpec
from tooleval.report.analysis import summarize_run
from tooleval.report.build import build_report
from tooleval.report.loading import load_runs
from tooleval.report.tables import header, markdown, table_rows
from tooleval.runner import RunConfig, run_suite
from tooleval.runner.records import item_from_json
from tooleval.scoring import format_ok, score_parse

STATIONS = ToolSpec(
    "stations",
    "Bahnhöfe",
    {
        "type": "object",
        "properties": {"slug": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["slug"],
    },
)
TASKS = tuple(
    Task(
        f"t-{n}", "a", f"Bahnhöfe in {slug}?", ToolCall("stations", {"slug": slug, "limit": 2}), "1"
    )
    for n, slug in enumerate(("bonn", "kiel", "ulm", "jena"))
)
SUITE = make_mini_suite(TASKS, (STATIONS,), ("a",))
TASK = TASKS[0]
GOLD_JSON = json.dumps(TASK.gold.to_json())


@pytest.mark.parametrize(
    ("text", "native", "mode", "expected"),
    [
        (GOLD_JSON, (), "prompt", 1),
        (f"```json\n{GOLD_JSON}\n```", (), "prompt", 1),
        (f"Hier ist der Aufruf: {GOLD_JSON}", (), "prompt", 0),
        (f"<tool_call>{GOLD_JSON}</tool_call>", (), "prompt", 0),
        ('[stations(slug="bonn", limit=2)]', (), "prompt", 0),
        (None, (NativeToolCall("stations", '{"slug": "bonn", "limit": 2}'),), "prompt", 0),
        (None, (NativeToolCall("stations", '{"slug": "bonn", "limit": 2}'),), "native", 1),
        (GOLD_JSON, (), "native", 0),
    ],
    ids=[
        "json",
        "fenced",
        "prose",
        "hermes",
        "pythonic",
        "native-in-prompt",
        "native",
        "text-in-native",
    ],
)
def test_format_ok_is_scored_apart_from_the_call(
    text: str | None, native: tuple[NativeToolCall, ...], mode: Any, expected: int
) -> None:
    score = score_parse(TASK, parse_response(text, native, (STATIONS,)), mode)
    assert score.call_match == 1
    assert score.format_ok == expected


def test_no_call_is_never_format_ok_and_no_mode_means_not_scored() -> None:
    prose = parse_text("Dazu habe ich keine Daten.")
    assert format_ok(prose, "prompt") == 0 and format_ok(prose, "native") == 0
    assert score_parse(TASK, parse_text(GOLD_JSON)).format_ok is None


def test_aggregate_leaves_unscored_values_out() -> None:
    scored = [("a", ItemScore(1, 1, 1, 1, 1)), ("a", ItemScore(1, 1, 1, 1, 0))]
    assert aggregate(scored, ("a",))["format_ok"] == 0.5
    unscored = [("a", ItemScore(1, 1, 1, 1))]
    assert aggregate(unscored, ("a",))["format_ok"] is None
    assert METRIC_NAMES.index("format_ok") == METRIC_NAMES.index("parsed") + 1


ANSWERS = {
    "bonn": GOLD_JSON,
    "kiel": (
        "<tool_call>\n<function=stations>\n<parameter=slug>\nkiel\n</parameter>\n"
        "<parameter=limit>\n2\n</parameter>\n</function>\n</tool_call>"
    ),
    "ulm": '{"name": "functions.stations", "arguments": {"slug": "ulm", "limit": 2}}',
    "jena": "Dafür eignet sich stations(slug) mit jena.",
}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A run whose model answers each city's question in the dialect listed for it."""
    folder = tmp_path_factory.mktemp("fmt")
    config = RunConfig(model="dialects", output=folder / "dialects.json", concurrency=1)
    fake = make_fake(*({"match": city, "text": text} for city, text in ANSWERS.items()))
    return run_suite(config, fake, suite=SUITE)


def test_results_file_reports_format_ok_beside_parsed(document: dict[str, Any]) -> None:
    metrics = document["metrics"]
    assert list(metrics)[:5] == ["call_match", "tool_match", "args_match", "parsed", "format_ok"]
    assert metrics["call_match"] == 0.75  # the XML call is typed by the suite's schema
    assert metrics["parsed"] == 0.75
    assert metrics["format_ok"] == 0.25
    items = {item["task_id"]: item for item in document["items"]}
    kiel = items["t-1"]
    assert kiel["parsed"]["extractor"] == "xml_function" and kiel["parsed"]["exact"] is False
    assert kiel["parsed"]["calls"][0]["arguments"] == {"slug": "kiel", "limit": 2}
    assert items["t-0"]["score"]["format_ok"] == 1 and items["t-0"]["parsed"]["exact"] is True
    assert items["t-2"]["score"] == {
        "parsed": 1,
        "tool_match": 1,
        "args_match": 1,
        "call_match": 1,
        "format_ok": 0,
    }


def test_item_records_read_back_with_format_ok_and_without(document: dict[str, Any]) -> None:
    raw = document["items"][0]
    record = item_from_json(raw)
    assert record.score is not None and record.score.format_ok == 1
    assert record.parsed is not None and record.parsed.exact
    old = {**raw, "score": {k: v for k, v in raw["score"].items() if k != "format_ok"}}
    old["parsed"] = {k: v for k, v in raw["parsed"].items() if k != "exact"}
    legacy = item_from_json(old)
    assert legacy.score is not None and legacy.score.format_ok is None
    assert legacy.parsed is not None and not legacy.parsed.exact


def test_run_table_shows_format_ok_after_parsed(document: dict[str, Any]) -> None:
    table = results_table(document)
    names = list(table.columns[0].cells)
    assert names.index("format_ok") == names.index("parsed") + 1
    assert list(table.columns[1].cells)[names.index("format_ok")] == "25.0"


def _write_legacy(document: dict[str, Any], path: Path) -> None:
    legacy = json.loads(json.dumps(document))
    for item in legacy["items"]:
        item["score"].pop("format_ok")
    legacy["config"]["model"] = "legacy"
    path.write_text(json.dumps(legacy), encoding="utf-8")


def test_report_has_a_format_ok_column_and_dashes_for_old_files(
    document: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "new.json").write_text(json.dumps(document), encoding="utf-8")
    _write_legacy(document, tmp_path / "old.json")
    loaded = load_runs([tmp_path], lambda name: SUITE if name == "mini" else None)
    report = build_report(loaded, sort_key="format_ok")
    head = header(report)
    assert head.index("format_ok") == head.index("parsed") + 1
    cells = {row[1]: row[head.index("format_ok")] for row in table_rows(report)}
    assert cells == {"dialects": "25.0", "legacy": "–"}
    assert [s.run.model for s in report.summaries] == ["dialects", "legacy"]
    assert "| format_ok |" in markdown(report)
    legacy = next(r for r in loaded.runs if r.model == "legacy")
    assert summarize_run(legacy, ("a",)).rates["format_ok"].value is None
