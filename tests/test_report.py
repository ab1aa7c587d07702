"""Reports built from real run_suite results of scripted models on a tiny suite.

Fixtures: a complete "gold" run, a "sloppy" run (wrong slugs, overview-first on not_covered),
the gold model in native mode, an incomplete run (quota errors) and a repeated run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("MPLCONFIGDIR", str(Path(tempfile.gettempdir()) / "tooleval-mpl"))

from conftest import make_fake, make_mini_suite
from tooleval.commands import report as report_command
from tooleval.records import (
    GenerationResponse,
    Task,
    ToolCall,
    ToolSpec,
)
from tooleval.report import (
    ReportInputError,
    build_report,
    load_runs,
    markdown,
    mcnemar_exact,
    report_json,
    wilson_interval,
    write_report,
)
from tooleval.report.analysis import classify_not_covered, compare_runs
from tooleval.report.charts import DPI, HEATMAP, bars_size, heatmap_size
from tooleval.report.loading import RunData
from tooleval.report.stats import paired_bootstrap_delta, rate
from tooleval.runner import RunConfig, run_suite
from tooleval.runner.records import ItemRecord
from tooleval.suites import Suite

OBJ = {"type": "object", "properties": {"slug": {"type": "string"}}}
TOOLS = (
    ToolSpec("weather", "Wetter", OBJ),
    ToolSpec("get_city_overview", "Überblick", OBJ),
    ToolSpec("get_city_data", "Daten", OBJ),
)
WEATHER_CITIES = ("berlin", "koeln", "bonn", "kiel", "ulm", "jena")
DATA_CITIES = ("essen", "halle", "mainz", "trier")


def make_suite() -> Suite[Task]:
    weather = [
        Task(f"w-{c}", "routing", f"Wetter in {c}?", ToolCall("weather", {"slug": c}), "1")
        for c in WEATHER_CITIES
    ]
    data = [
        Task(
            f"d-{c}",
            "not_covered",
            f"Ladesäulen in {c}?",
            ToolCall("get_city_data", {"slug": c, "resource": "charging"}),
            "1",
        )
        for c in DATA_CITIES
    ]
    return make_mini_suite((*weather, *data), TOOLS, ("routing", "not_covered"))


SUITE = make_suite()
GOLD = {t.question: t.gold for t in SUITE.tasks}
Answer = Callable[[str], ToolCall | None]


def model(answer: Answer, native: bool = False, fail: frozenset[str] = frozenset()) -> Any:
    """The fake answering each question with ``answer(question)`` (JSON text or natively);
    questions about a city in ``fail`` get a spent quota."""
    replies: list[dict[str, Any]] = []
    for question in GOLD:
        reply: dict[str, Any] = {"match": question}
        call = answer(question)
        if any(city in question for city in fail):
            reply["error"] = "quota_exhausted"
        elif call is None:
            reply["text"] = "Dazu habe ich keine Daten."
        elif native:
            reply["tool_calls"] = [
                {"name": call.name, "arguments": dict(call.arguments), "id": "c1"}
            ]
        else:
            reply["text"] = json.dumps({"name": call.name, "arguments": call.arguments})
        replies.append(reply)
    return make_fake(*replies)


def gold(question: str) -> ToolCall:
    return GOLD[question]


def sloppy(question: str) -> ToolCall | None:
    """Wrong slug for koeln/bonn; not_covered: overview x2, a wrong-city overview, no call."""
    call = GOLD[question]
    slug = call.arguments["slug"]
    if slug in ("koeln", "bonn"):
        return ToolCall(call.name, {**call.arguments, "slug": slug.replace("oe", "ö") + "x"})
    if slug in ("essen", "halle"):
        return ToolCall("get_city_overview", {"slug": slug})
    if slug == "mainz":
        return ToolCall("get_city_overview", {"slug": "berlin"})
    if slug == "trier":
        return None
    return call


def run(tmp: Path, name: str, provider: Any, **cfg: object) -> None:
    values: dict[str, object] = {"model": name, "output": tmp / f"{name}.json", "concurrency": 2}
    values.update(cfg)
    run_suite(RunConfig(**values), provider, suite=SUITE)  # type: ignore[arg-type]


def lookup(name: str) -> Suite[Task] | None:
    return SUITE if name == "mini" else None


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("results")
    run(tmp, "gold", model(gold))
    run(tmp, "sloppy", model(sloppy))
    run(tmp, "gold-native", model(gold, native=True), mode="native", model="gold")
    quota = model(gold, fail=frozenset({"kiel", "ulm", "mainz"}))
    run(tmp, "quota", quota, max_retries=0)
    run(tmp, "twice", model(sloppy), repeats=2)
    (tmp / "notes.json").write_text('{"hello": 1}')
    return tmp


def runs_by_id(results_dir: Path) -> dict[str, RunData]:
    return {r.run_id: r for r in load_runs([results_dir], lookup).runs}


# --- statistics against hand-computed values ---------------------------------------------


def test_wilson_interval_matches_hand_computation() -> None:
    # p = 0.8, z² = 3.8416: centre = 0.99208 / 1.38416, half = 1.416021 * sqrt(0.025604)
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.490157, abs=1e-6)
    assert high == pytest.approx(0.943319, abs=1e-6)


def test_wilson_interval_edges_stay_inside_unit_range() -> None:
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.277540), abs=1e-6)
    assert wilson_interval(10, 10) == pytest.approx((0.722460, 1.0), abs=1e-6)
    with pytest.raises(ValueError, match="n > 0"):
        wilson_interval(0, 0)
    assert rate(0, 0).value is None


def test_mcnemar_exact_matches_binomial_tails() -> None:
    assert mcnemar_exact(1, 6) == pytest.approx(2 * 8 / 128)  # (C(7,0)+C(7,1)) / 2^7, doubled
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_paired_bootstrap_is_seeded_and_exact_at_the_extremes() -> None:
    same = [1, 0, 1, 1, 0]
    assert paired_bootstrap_delta(same, same) == (0.0, 0.0)
    assert paired_bootstrap_delta([0] * 8, [1] * 8) == (1.0, 1.0)
    a, b = [1, 0, 0, 1, 0, 1, 0, 0, 1, 0], [1, 1, 0, 1, 1, 1, 0, 1, 1, 0]
    low, high = paired_bootstrap_delta(a, b)
    assert (low, high) == paired_bootstrap_delta(a, b)  # same seed, same interval
    assert 0.0 <= low < 0.3 < high <= 0.6  # mean difference 0.3, all differences >= 0
    with pytest.raises(ValueError, match="equal"):
        paired_bootstrap_delta([1], [1, 0])


# --- loading ------------------------------------------------------------------------------


def test_loading_skips_journals_reports_and_other_json(results_dir: Path) -> None:
    loaded = load_runs([results_dir], lookup)
    assert sorted(r.run_id for r in loaded.runs) == [
        "gold",
        "gold-native",
        "quota",
        "sloppy",
        "twice",
    ]
    assert [p.name for p, _ in loaded.skipped] == ["notes.json"]


def test_malformed_results_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"format": "tooleval-results/1", "items": [')
    with pytest.raises(ReportInputError, match=r"broken\.json"):
        load_runs([tmp_path], lookup)
    (tmp_path / "broken.json").write_text('{"format": "tooleval-results/1", "config": {}}')
    with pytest.raises(ReportInputError, match=r"broken\.json.*suite"):
        load_runs([tmp_path], lookup)
    assert load_runs([tmp_path], lookup, strict=False).skipped[0][1].startswith("malformed")


# --- numbers ------------------------------------------------------------------------------


def test_rates_equal_the_runner_metrics(results_dir: Path) -> None:
    report = build_report(load_runs([results_dir], lookup))
    for summary in report.summaries:
        stored = summary.run.metrics
        for key in stored:
            assert summary.rates[key].value == pytest.approx(stored[key]), key
            answered = summary.rates_answered[key].value
            assert answered == pytest.approx(summary.run.metrics_answered[key])


def test_sloppy_numbers_and_intervals(results_dir: Path) -> None:
    report = build_report(load_runs([results_dir], lookup))
    sloppy_run = next(s for s in report.summaries if s.run.run_id == "sloppy")
    r = sloppy_run.rates["call_match"]
    assert (r.k, r.n) == (4, 10)  # berlin, kiel, ulm, jena
    assert (r.low, r.high) == pytest.approx(wilson_interval(4, 10))
    assert sloppy_run.rates["call_match_not_covered"].k == 0
    without = sloppy_run.rates["call_match_without_not_covered"]
    assert (without.k, without.n) == (4, 6)  # the not_covered items read separately
    assert {s.run.run_id for s in report.summaries[:2]} == {"gold", "gold-native"}


def test_incomplete_run_keeps_answered_only_rate(results_dir: Path) -> None:
    quota = runs_by_id(results_dir)["quota"]
    assert not quota.complete and quota.errors_by_class == {"quota_exhausted": 3}
    summary = build_report(load_runs([results_dir], lookup)).summaries
    q = next(s for s in summary if s.run.run_id == "quota")
    assert (q.rates["call_match"].k, q.rates["call_match"].n) == (7, 10)
    assert (q.rates_answered["call_match"].k, q.rates_answered["call_match"].n) == (7, 7)
    assert q.rates["call_match_not_covered"].n == 4  # planned, not answered


def test_category_counts_come_from_the_suite_when_items_are_missing(tmp_path: Path) -> None:
    run(tmp_path, "capped", model(gold), max_requests=3, concurrency=1)
    with_suite = load_runs([tmp_path], lookup).runs[0]
    assert with_suite.planned_by_category == {"routing": 6, "not_covered": 4}
    assert with_suite.planned_by_category_exact
    without = load_runs([tmp_path], lambda _: None).runs[0]
    assert not without.planned_by_category_exact


def test_repeated_run_counts_every_repeat(results_dir: Path) -> None:
    twice = runs_by_id(results_dir)["twice"]
    assert twice.planned == 20 and twice.pass_hat_k == pytest.approx(0.4)
    summary = build_report(load_runs([results_dir], lookup)).summaries
    t = next(s for s in summary if s.run.run_id == "twice")
    assert (t.rates["call_match"].k, t.rates["call_match"].n) == (8, 20)


def test_prompt_vs_native_delta_is_found_per_model(results_dir: Path) -> None:
    report = build_report(load_runs([results_dir], lookup))
    assert [(c.a, c.b) for c in report.mode_deltas] == [("gold", "gold-native")]
    delta = report.mode_deltas[0]
    assert delta.n == 10 and delta.delta == 0 and delta.diffs == ()


def test_paired_comparison_lists_the_differing_items(results_dir: Path) -> None:
    runs = runs_by_id(results_dir)
    c = compare_runs(runs["gold"], runs["sloppy"], ("routing", "not_covered"))
    assert (c.n, c.a_only, c.b_only) == (10, 6, 0)
    assert c.p_value == pytest.approx(2 / 64)
    assert c.delta == pytest.approx(-0.6)
    assert c.delta_low is not None and c.delta_high is not None
    assert -1.0 <= c.delta_low < -0.6 < c.delta_high < 0
    assert {d.task_id for d in c.diffs} == {"w-koeln", "w-bonn", *(f"d-{x}" for x in DATA_CITIES)}
    assert c.category_delta == {"routing": pytest.approx(-2 / 6), "not_covered": -1.0}


def test_paired_comparison_skips_items_unanswered_in_either(results_dir: Path) -> None:
    runs = runs_by_id(results_dir)
    c = compare_runs(runs["quota"], runs["sloppy"], ("routing", "not_covered"))
    assert c.n == 7 and "w-kiel" not in {d.task_id for d in c.diffs}


def test_not_covered_behaviour_is_classified(results_dir: Path) -> None:
    report = build_report(load_runs([results_dir], lookup))
    by_run = {b.run_id: b for b in report.not_covered}
    assert by_run["gold"].counts["direct_gold"] == 4
    sloppy_counts = dict(by_run["sloppy"].counts)
    assert sloppy_counts == {
        "direct_gold": 0,
        "direct_other_args": 0,
        "overview_first": 2,
        "other_call": 1,  # overview of the wrong city
        "no_call": 1,
    }
    assert by_run["quota"].unanswered == 1 and by_run["sloppy"].slug_checked


def test_a_limited_run_without_not_covered_items_has_no_behaviour_row(tmp_path: Path) -> None:
    run(tmp_path, "first-six", model(gold), limit=6)  # routing tasks only
    report = build_report(load_runs([tmp_path], lookup))
    assert report.not_covered == ()
    assert report.summaries[0].rates["call_match_not_covered"].value is None


def test_classify_without_gold_accepts_any_overview() -> None:
    record = next(
        r for r in _one_record("get_city_overview", {"slug": "x"}) if r.category == "not_covered"
    )
    assert classify_not_covered(record, None) == "overview_first"
    gold_call = ToolCall("get_city_data", {"slug": "essen", "resource": "charging"})
    assert classify_not_covered(record, gold_call) == "other_call"


def _one_record(name: str, args: dict[str, str]) -> list[ItemRecord]:
    from tooleval.runner.item import record_from_response

    task = SUITE.tasks[-1]
    text = json.dumps({"name": name, "arguments": args})
    return [record_from_response(task, 0, GenerationResponse(text), 0.0)]


def test_compare_names_an_unknown_run(results_dir: Path) -> None:
    with pytest.raises(ValueError, match="no run called 'nope'"):
        build_report(load_runs([results_dir], lookup), compare=[("gold", "nope")])


def test_top_and_sort(results_dir: Path) -> None:
    report = build_report(load_runs([results_dir], lookup), sort_key="parsed", top=2)
    assert len(report.shown) == 2 and len(report.summaries) == 5
    assert len(report_json(report)["runs"]) == 5
    with pytest.raises(ValueError, match="unknown metric"):
        build_report(load_runs([results_dir], lookup), sort_key="speed")


# --- outputs -------------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_markdown_marks_incomplete_runs_and_reads_not_covered_apart(results_dir: Path) -> None:
    text = markdown(build_report(load_runs([results_dir], lookup), compare=[("gold", "sloppy")]))
    quota_line = next(
        line for line in text.splitlines() if line.startswith("| ") and "quota" in line
    )
    assert "7/10 ⚠ incomplete" in quota_line and "100.0 [" in quota_line  # answered-only
    assert "quota_exhausted 3" in quota_line
    assert "## not_covered, read separately" in text
    assert "p = 0.0312" in text and "| w-koeln | 0 | routing | 1 | 0 |" in text


def test_written_report_has_every_run_and_real_charts(results_dir: Path, tmp_path: Path) -> None:
    report = build_report(load_runs([results_dir], lookup))
    written = {p.name: p for p in write_report(report, tmp_path)}
    assert {"report.md", "report.json", "report.html", HEATMAP} <= set(written)
    html = written["report.html"].read_text()
    main_table = html.split("</table>")[0]
    assert main_table.count("<tr") == 1 + 5  # header + one row per run
    for run_id in ("gold", "sloppy", "gold-native", "quota", "twice"):
        assert f'<td class="l">{run_id}</td>' in html  # the not_covered table names each run
    assert html.count("data:image/png;base64,") == 3
    assert "http://" not in html and "https://" not in html  # nothing loaded from the network
    heat = written[HEATMAP].read_bytes()
    width, height = heatmap_size(5, 3)
    assert png_size(heat) == (round(width * DPI), round(height * DPI))
    assert png_size(written["report-call-match.png"].read_bytes())[1] == round(
        bars_size(5)[1] * DPI
    )
    assert len(heat) < 200_000
    assert json.loads(written["report.json"].read_text())["format"] == "tooleval-report/1"


def test_chart_pixels_are_not_blank(results_dir: Path, tmp_path: Path) -> None:
    from matplotlib.image import imread

    write_report(build_report(load_runs([results_dir], lookup)), tmp_path)
    pixels = imread(tmp_path / HEATMAP)
    assert pixels.std() > 0.05  # not one colour
    red_green = (pixels[..., 0] - pixels[..., 1]).ravel()
    assert red_green.max() > 0.3 and red_green.min() < -0.3  # both ends of the colour scale


# --- command ------------------------------------------------------------------------------


def call_command(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    report_command.register(parser.add_subparsers())
    args = parser.parse_args(["report", *argv])
    code: int = args.func(args)
    return code


def test_command_writes_into_the_folder_and_rereads_cleanly(
    results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "copy"
    out.mkdir()
    for path in results_dir.glob("*.json*"):
        (out / path.name).write_bytes(path.read_bytes())
    assert call_command(str(out), "--compare", "gold", "sloppy") == 0
    assert (out / "report.html").is_file() and (out / "report-heatmap.png").is_file()
    printed = capsys.readouterr().out
    assert "gold" in printed and "7/10 ⚠" in printed
    assert call_command(str(out), "--no-files", "--top", "1") == 0  # own report.json skipped


def test_command_fails_clearly_on_a_broken_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.json").write_text("{")
    assert call_command(str(tmp_path), "--no-files") == 2
    assert "bad.json" in capsys.readouterr().err
    assert call_command(str(tmp_path / "missing")) == 2


def test_runs_of_different_suite_versions_are_not_compared(
    results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("gold.json", "sloppy.json"):
        (tmp_path / name).write_bytes((results_dir / name).read_bytes())
    document = json.loads((tmp_path / "sloppy.json").read_text(encoding="utf-8"))
    document["suite"]["version"] = "2"
    (tmp_path / "sloppy-v2.json").write_text(json.dumps(document), encoding="utf-8")
    (tmp_path / "sloppy.json").unlink()
    with pytest.raises(ValueError, match=r"mini 1: gold\.json; mini 2: sloppy-v2\.json"):
        build_report(load_runs([tmp_path], lookup))
    assert call_command(str(tmp_path), "--no-files", "--compare", "gold", "sloppy-v2") == 2
    assert "not comparable" in capsys.readouterr().err
    assert call_command(str(tmp_path), "--no-files", "--suite-version", "2") == 0
    captured = capsys.readouterr()
    assert "sloppy" in captured.out and "not the selected 2" in captured.err


# --- multi-turn runs beside single-call runs ----------------------------------------------


OLD_CESIUM_REPORT = {
    "createdAt": "2026-08-01T10:00:00+00:00",
    "suite": "cesium",
    "suiteVersion": "1.0.0",
    "settings": {"model": "old-model", "backend": "openai", "repeats": 1, "maxRounds": 4},
    "requestCount": 3,
    "summary": {"scenarioPassRate": 0.5, "providerErrorRate": 0.5, "averageRounds": 1.0},
    "results": [
        {"id": "layer-basemap-en", "locale": "en", "repetition": 1, "outcome": "completed",
         "passed": True, "rounds": 2, "calls": [], "transcript": []},
        {"id": "camera-orbit-en", "locale": "en", "repetition": 1, "outcome": "provider_error",
         "passed": False, "error": "server_error: boom", "rounds": 0},
    ],
}  # fmt: skip


def cesium_version() -> str:
    from tooleval.suites.cesium.catalogue import load_catalogue

    return load_catalogue().version


def cesium_results(folder: Path) -> Path:
    from tooleval.runner import run_conversations
    from tooleval.suites import load_suite

    out = folder / "scenarios.json"
    config = RunConfig(
        suite="cesium", backend="fake", model="scenario-model", mode="native", concurrency=1,
        task_ids=("layer-basemap-en", "camera-orbit-en"), output=out,
    )  # fmt: skip
    fake = make_fake(
        {"tool_calls": [{"name": "setBasemap", "arguments": {"basemap": "satellite"}}]},
        {"text": "Done."},
        {"text": "I cannot orbit."},
    )
    run_conversations(config, fake, suite=load_suite("cesium"))
    return out


def test_cesium_scenarios_old_reports_and_infranode_runs_in_one_report(
    results_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    for name in ("gold.json", "sloppy.json"):
        (folder / name).write_bytes((results_dir / name).read_bytes())
    cesium_results(folder)
    same_version = dict(OLD_CESIUM_REPORT, suiteVersion=cesium_version())  # runs pool per version
    (folder / "old-cesium.json").write_text(json.dumps(same_version), encoding="utf-8")
    loaded = load_runs([folder], lookup)
    assert sorted(r.run_id for r in loaded.runs) == ["gold", "sloppy"]
    assert sorted(c.run_id for c in loaded.conversations) == ["old-cesium", "scenarios"]
    report = build_report(loaded)
    new = next(c for c in report.conversations if c.run.run_id == "scenarios")
    assert (new.success.k, new.success.n) == (1, 2)
    assert new.run.original_metrics is not None
    assert new.run.original_metrics["scenarioPassRate"] == 0.5
    old = next(c for c in report.conversations if c.run.run_id == "old-cesium")
    assert old.run.original_metrics is not None
    assert old.run.original_metrics["providerErrorRate"] == 0.5 and old.success.n == 1
    assert (new.headline, new.beside and new.beside["value"]) == ("scenarioCorrectRate", 0.5)
    assert (old.headline, old.beside and old.beside["value"]) == ("original_rule_pass_rate", 0.5)
    text = markdown(report)
    assert "## Multi-turn runs" in text and "### Original harness metrics" in text
    row = next(line for line in text.splitlines() if "scenario-model" in line and "0." in line)
    cells = [c.strip() for c in row.split("|")]
    assert cells[6:9] == ["scenarioCorrectRate", cells[7], "scenarioPassRate 50.0"]
    assert cells[7].startswith("50.0 [")  # 1 of the 2 runs correct
    assert "scenarioPassRate" in text and "scenario-model" in text
    document = report_json(report)
    assert {r["run_id"] for r in document["multi_turn_runs"]} == {"old-cesium", "scenarios"}
    written = write_report(report, tmp_path / "out")
    assert {p.name for p in written} >= {"report.md", "report.json", "report.html"}


def test_a_report_of_multi_turn_runs_only(tmp_path: Path) -> None:
    cesium_results(tmp_path)
    report = build_report(load_runs([tmp_path], lookup))
    assert report.summaries == () and len(report.conversations) == 1
    names = {p.name for p in write_report(report, tmp_path / "out")}
    assert "report.md" in names and not any(n.endswith(".png") for n in names)


def test_multi_turn_runs_of_different_suite_versions_are_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cesium_results(tmp_path)
    older = dict(OLD_CESIUM_REPORT, suiteVersion="0.9.0")
    (tmp_path / "old-cesium.json").write_text(json.dumps(older), encoding="utf-8")
    current = re.escape(f"cesium {cesium_version()}: scenarios.json")
    with pytest.raises(ValueError, match=r"cesium 0\.9\.0: old-cesium\.json; " + current):
        build_report(load_runs([tmp_path], lookup))
    assert call_command(str(tmp_path), "--no-files") == 2
    assert "not comparable" in capsys.readouterr().err
    assert call_command(str(tmp_path), "--no-files", "--suite-version", "0.9.0") == 0
    captured = capsys.readouterr()
    assert "old-model" in captured.out and "scenarios.json" in captured.err
