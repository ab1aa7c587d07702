"""One versioned results format for single-call and multi-turn runs (docs/results-format.md),
and the older formats still load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import make_fake, make_mini_suite
from tooleval.fileio import JsonFileError, read_json
from tooleval.runner import run_conversations, run_suite
from tooleval.runner.records import RunConfig
from tooleval.runner.results import RESULTS_FORMAT, load_results, write_results
from tooleval.suites import load_suite

COMMON = {
    "format", "kind", "complete", "stop_reason", "config", "setup", "suite", "started_at",
    "finished_at", "counts", "errors_by_class", "metrics", "items",
}  # fmt: skip


def single_call(tmp_path: Path, **config: Any) -> dict[str, Any]:
    reply = {"text": json.dumps({"name": "weather", "arguments": {"slug": "berlin"}})}
    settings: dict[str, Any] = {"model": "m", "output": tmp_path / "s.json", **config}
    return run_suite(RunConfig(**settings), make_fake(reply), suite=make_mini_suite())


def episodes(tmp_path: Path) -> dict[str, Any]:
    config = RunConfig(backend="fake", concurrency=1, task_ids=("routing_broad-001",),
                       output=tmp_path / "e.json")  # fmt: skip
    fake = make_fake({"text": "Keine Ahnung."})
    return run_conversations(config, fake, suite=load_suite("infranode"))


def test_single_call_and_multi_turn_documents_share_the_documented_fields(
    tmp_path: Path,
) -> None:
    single = single_call(tmp_path, repeats=2)
    multi = episodes(tmp_path)
    assert set(single) >= COMMON and set(multi) >= COMMON
    assert (single["format"], single["kind"]) == (RESULTS_FORMAT, "single_call")
    assert (multi["format"], multi["kind"]) == (RESULTS_FORMAT, "multi_turn")
    assert {"metrics_answered", "exec_match", "pass_hat_k"} <= set(single)
    assert {"endings", "outcomes", "first_call"} <= set(multi)
    item = multi["items"][0]
    assert {"ending", "outcome", "score", "calls", "transcript", "rounds", "requests"} <= set(item)
    assert multi["setup"] == "prompt, 4 rounds"
    # snake_case keys everywhere in the format itself (metric names are data)
    keys = {k for doc in (single, multi) for k in doc} | set(single["config"])
    assert all(k == k.lower() for k in keys)


def test_an_old_single_call_file_loads_and_resumes(tmp_path: Path) -> None:
    document = single_call(tmp_path, limit=3)
    old = {k: v for k, v in document.items() if k != "kind"} | {"format": "tooleval-results/1"}
    (tmp_path / "s.journal.jsonl").unlink()
    (tmp_path / "s.json").write_text(json.dumps(old), encoding="utf-8")
    loaded = load_results(tmp_path / "s.json")
    assert (loaded["format"], loaded["kind"]) == (RESULTS_FORMAT, "single_call")
    resumed = single_call(tmp_path, resume=True)  # no journal: continues from the old file
    assert resumed["counts"]["answered"] == 6 and resumed["format"] == RESULTS_FORMAT


def test_an_old_episodes_file_loads_as_a_multi_turn_document(tmp_path: Path) -> None:
    document = episodes(tmp_path)
    old = {k: v for k, v in document.items() if k not in ("kind", "endings")}
    old["format"] = "tooleval-episodes/1"
    old["items"] = [
        {k: v for k, v in i.items() if k not in ("ending", "repeat")} for i in old["items"]
    ]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    loaded = load_results(path)
    assert loaded["kind"] == "multi_turn" and loaded["items"][0]["ending"] == "answered"
    assert loaded["upgraded_from"] == "tooleval-episodes/1"


def test_nan_is_refused_when_written_and_when_read(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    with pytest.raises(ValueError):
        write_results(path, {"format": RESULTS_FORMAT, "metrics": {"x": float("nan")}})
    assert not path.exists()
    path.write_text('{"format": "tooleval-results/2", "metrics": {"x": NaN}}', encoding="utf-8")
    with pytest.raises(JsonFileError, match="NaN"):
        read_json(path)
