"""The lm-eval task without lm-eval: YAML, hooks in utils.py, and ``tooleval lm-eval-import``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooleval.commands import lm_eval_import, lm_eval_path
from tooleval.integrations.lm_eval import TASK_NAME, TASK_YAML, task_dir
from tooleval.integrations.lm_eval import utils as hooks
from tooleval.metrics import METRIC_NAMES, aggregate, metric_names
from tooleval.records import ItemScore, Task
from tooleval.report.loading import read_run
from tooleval.runner.results import RESULTS_FORMAT, load_results
from tooleval.suites.infranode import CATEGORIES, SUITE_VERSION, load_tasks, load_tools
from tooleval.suites.infranode.prompting import build_messages
from tooleval.tasks import task_to_json

STAMP = "2026-11-30T10-00-00.000001"
AGGREGATIONS: dict[str, Callable[[Sequence[Any]], Any]] = {
    "mean": lambda values: sum(values) / len(values),
    "utils.category_mean": hooks.category_mean,
}


class FunctionTag(str):
    """A ``!function utils.x`` value as the test's YAML loader reads it."""


def load_task_yaml() -> dict[str, Any]:
    loader = type("TaskLoader", (yaml.SafeLoader,), {})
    loader.add_constructor("!function", lambda ld, node: FunctionTag(ld.construct_scalar(node)))
    text = (task_dir() / TASK_YAML).read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.load(text, Loader=loader)
    return data


def gold_text(task: Task) -> str:
    return json.dumps(task.gold.to_json(), ensure_ascii=False)


def run_command(module: Any, *argv: str) -> int:
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    args = parser.parse_args(list(argv))
    code: int = args.func(args)
    return code


# --- the YAML -------------------------------------------------------------------------------


def test_yaml_lists_every_metric_higher_is_better_with_the_right_aggregation() -> None:
    config = load_task_yaml()
    listed = [entry["metric"] for entry in config["metric_list"]]
    assert listed == list(metric_names(CATEGORIES)) == list(hooks.ALL_METRICS)
    for entry in config["metric_list"]:
        assert entry["higher_is_better"] is True
        expected = "mean" if entry["metric"] in METRIC_NAMES else "utils.category_mean"
        assert entry["aggregation"] == expected, entry["metric"]


def test_yaml_generation_settings_and_hooks_point_at_real_functions() -> None:
    config = load_task_yaml()
    assert config["task"] == TASK_NAME and config["output_type"] == "generate_until"
    assert config["generation_kwargs"]["max_gen_toks"] == 160
    assert config["generation_kwargs"]["do_sample"] is False
    assert config["generation_kwargs"]["until"] == []
    assert config["metadata"]["suite_version"] == SUITE_VERSION
    hooked = [config["custom_dataset"], config["process_results"]]
    aggregations = [e["aggregation"] for e in config["metric_list"]]
    hooked += [a for a in aggregations if isinstance(a, FunctionTag)]
    for tag in hooked:
        module, name = tag.split(".")
        assert module == "utils" and callable(getattr(hooks, name)), tag
    for field in (config["description"], config["doc_to_text"], config["doc_to_target"]):
        assert field in hooks.task_docs()[0]


def test_lm_eval_path_prints_the_task_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(lm_eval_path, "lm-eval-path") == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder == task_dir() and folder.is_absolute()
    assert (folder / TASK_YAML).is_file() and (folder / "utils.py").is_file()


# --- documents and the prompt ---------------------------------------------------------------


def test_documents_carry_the_runner_prompt_and_the_task_unchanged() -> None:
    docs = hooks.task_docs()
    tasks = load_tasks()
    assert [d["id"] for d in docs] == [t.id for t in tasks]
    for doc, task in zip(docs, tasks, strict=True):
        system, user = build_messages(task.question, load_tools(), mode="prompt")
        assert (doc["system"], doc["question"]) == (system.content, user.content)
        assert hooks.task_of(doc) == task
        assert json.loads(doc["target"]) == task.gold.to_json()


def test_documents_from_another_tasks_file(tmp_path: Path) -> None:
    path = tmp_path / "few.jsonl"
    chosen = load_tasks()[::30]
    path.write_text("".join(json.dumps(task_to_json(t)) + "\n" for t in chosen))
    assert [d["id"] for d in hooks.task_docs(str(path))] == [t.id for t in chosen]


def test_a_broken_document_names_its_id() -> None:
    with pytest.raises(ValueError, match=r"'x-1'.*'task'"):
        hooks.task_of({"id": "x-1", "task": "{not json"})


# --- process_results and the aggregations ---------------------------------------------------


def test_gold_outputs_score_one_everywhere() -> None:
    for doc, task in zip(hooks.task_docs(), load_tasks(), strict=True):
        values = hooks.process_results(doc, [gold_text(task)])
        assert set(values) == set(hooks.ALL_METRICS)
        assert all(values[name] == 1 for name in METRIC_NAMES), task.id
        for category in CATEGORIES:
            expected = 1 if category == task.category else None
            assert values[f"call_match_{category}"] == expected


@pytest.mark.parametrize(
    ("make_output", "expected"),
    [
        (lambda t: json.dumps({"name": "no_such_tool", "arguments": dict(t.gold.arguments)}),
         {"parsed": 1, "tool_match": 0, "args_match": 1, "call_match": 0, "format_ok": 1}),
        (lambda t: json.dumps({"name": t.gold.name, "arguments": {"slug": "atlantis", "x": 1}}),
         {"parsed": 1, "tool_match": 1, "args_match": 0, "call_match": 0, "format_ok": 1}),
        (lambda t: "<tool_call>" + json.dumps(t.gold.to_json()) + "</tool_call>",
         {"parsed": 1, "tool_match": 1, "args_match": 1, "call_match": 1, "format_ok": 0}),
        (lambda t: f"[{t.gold.name}(slug={t.gold.arguments['slug']!r})]",
         {"parsed": 1, "tool_match": 1, "args_match": 1, "call_match": 1, "format_ok": 0}),
        (lambda t: "Das Wetter in Berlin ist schön.",
         {"parsed": 0, "tool_match": 0, "args_match": 0, "call_match": 0, "format_ok": 0}),
        (lambda t: "", {"parsed": 0, "tool_match": 0, "args_match": 0, "call_match": 0,
                        "format_ok": 0}),
    ],
    ids=["wrong_tool", "wrong_args", "hermes_tag", "pythonic", "prose", "empty"],
)  # fmt: skip
def test_wrong_outputs(make_output: Callable[[Task], str], expected: dict[str, int]) -> None:
    task = load_tasks()[0]
    doc = hooks.task_doc(task, load_tools())
    values = hooks.process_results(doc, [make_output(task)])
    assert {name: values[name] for name in METRIC_NAMES} == expected
    assert values[f"call_match_{task.category}"] == expected["call_match"]


def test_category_mean_ignores_other_categories() -> None:
    assert hooks.category_mean([None, 1, 0, None, 1, 1]) == 0.75
    assert hooks.category_mean([None, None]) is None
    assert hooks.category_mean([]) is None
    assert hooks.category_mean([0, 0]) == 0.0


def lm_eval_style_aggregate(per_doc: list[dict[str, int | None]]) -> dict[str, Any]:
    """What lm-eval does: one list per metric over all documents, then the YAML's aggregation."""
    config = load_task_yaml()
    return {
        entry["metric"]: AGGREGATIONS[str(entry["aggregation"])](
            [values[entry["metric"]] for values in per_doc]
        )
        for entry in config["metric_list"]
    }


def test_aggregated_hooks_equal_toolevals_category_means() -> None:
    tasks = load_tasks()
    outputs = [gold_text(t) if n % 3 else "kein JSON" for n, t in enumerate(tasks)]
    per_doc = [
        hooks.process_results(doc, [text])
        for doc, text in zip(hooks.task_docs(), outputs, strict=True)
    ]
    scores = [
        (t.category, hooks.score_output(t, text)) for t, text in zip(tasks, outputs, strict=True)
    ]
    expected = aggregate(scores, CATEGORIES)
    assert lm_eval_style_aggregate(per_doc) == pytest.approx(expected)
    # Not diluted: a category's mean differs from its hits divided by all documents.
    some = CATEGORIES[0]
    assert expected[f"call_match_{some}"] != pytest.approx(
        sum(v[f"call_match_{some}"] or 0 for v in per_doc) / len(per_doc)
    )


# --- tooleval lm-eval-import ----------------------------------------------------------------


def fake_sample(index: int, doc: dict[str, str], text: str) -> dict[str, Any]:
    """One line of lm-eval's samples_<task>_<time>.jsonl (0.4.13's field names)."""
    row: dict[str, Any] = {
        "doc_id": index,
        "doc": doc,
        "target": doc["target"],
        "arguments": {"gen_args_0": {"arg_0": "<prompt>", "arg_1": {"max_gen_toks": 160}}},
        "resps": [[text]],
        "filtered_resps": [text],
        "filter": "none",
        "metrics": list(hooks.ALL_METRICS),
        "doc_hash": "0",
        "prompt_hash": "0",
        "target_hash": "0",
    }
    row.update(hooks.process_results(doc, [text]))
    return row


def fake_output_dir(root: Path, outputs: dict[str, str]) -> Path:
    """An lm-eval --output_path folder with one model subfolder for the given task outputs."""
    docs = {d["id"]: d for d in hooks.task_docs()}
    samples = [fake_sample(n, docs[tid], text) for n, (tid, text) in enumerate(outputs.items())]
    per_doc = [{k: s[k] for k in hooks.ALL_METRICS} for s in samples]
    aggregated = lm_eval_style_aggregate(per_doc)
    results = {
        "results": {TASK_NAME: {f"{k},none": v for k, v in aggregated.items()}},
        "configs": {TASK_NAME: {"generation_kwargs": {"until": [], "max_gen_toks": 160}}},
        "config": {
            "model": "hf",
            "model_args": {"pretrained": "/models/Tiny-Model", "dtype": "float32"},
            "gen_kwargs": {},
            "random_seed": 0,
        },
        "model_name": "/models/Tiny-Model",
        "lm_eval_version": "0.4.13",
        "date": 1796032800.0,
    }
    folder = root / "__models__Tiny-Model"
    folder.mkdir(parents=True)
    (folder / f"results_{STAMP}.json").write_text(json.dumps(results))
    lines = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples)
    (folder / f"samples_{TASK_NAME}_{STAMP}.jsonl").write_text(lines, encoding="utf-8")
    return folder


def import_into(folder: Path, out: Path) -> int:
    return run_command(lm_eval_import, "lm-eval-import", str(folder), "--output", str(out))


def mixed_outputs() -> dict[str, str]:
    chosen = load_tasks()[::7]
    return {t.id: gold_text(t) if n % 2 else "Ich weiß es nicht." for n, t in enumerate(chosen)}


def test_import_writes_a_results_file_with_lm_evals_numbers(tmp_path: Path) -> None:
    outputs = mixed_outputs()
    fake_output_dir(tmp_path / "lm", outputs)
    out = tmp_path / "results" / "imported.json"
    assert import_into(tmp_path / "lm", out) == 0
    document = load_results(out)
    assert document["format"] == RESULTS_FORMAT and document["complete"] is True
    assert document["counts"] == {"planned": len(outputs), "answered": len(outputs), "errors": 0}
    assert document["config"]["backend"] == "lm-eval:hf"
    assert document["config"]["model"] == "Tiny-Model"
    assert document["setup"] == "lm-eval hf, prompt"
    assert document["config"]["limit"] is None  # a spread selection, not the first N
    lm_numbers = document["source"]["lm_eval_metrics"]
    assert set(lm_numbers) == set(hooks.ALL_METRICS)
    assert document["metrics"] == pytest.approx(lm_numbers)
    assert {i["task_id"]: i["raw_output"] for i in document["items"]} == outputs
    run = read_run(out)
    assert run.answered == len(outputs) and run.setup == "lm-eval hf, prompt"


def test_import_of_a_limit_run_from_its_results_file(tmp_path: Path) -> None:
    first = load_tasks()[:3]
    folder = fake_output_dir(tmp_path / "lm", {t.id: gold_text(t) for t in first})
    out = tmp_path / "limit.json"
    assert import_into(folder / f"results_{STAMP}.json", out) == 0
    document = load_results(out)
    assert document["config"]["limit"] == 3 and document["suite"]["n_tasks"] == 3
    assert document["metrics"]["call_match"] == 1.0
    assert [i["task_id"] for i in document["items"]] == [t.id for t in first]


def test_import_default_output_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_output_dir(tmp_path / "lm", mixed_outputs())
    monkeypatch.chdir(tmp_path)
    assert run_command(lm_eval_import, "lm-eval-import", "lm") == 0
    assert load_results(tmp_path / "results" / "lm-eval-Tiny-Model.json")["complete"] is True


def test_import_records_a_budget_spent_in_reasoning_as_an_error(tmp_path: Path) -> None:
    task = load_tasks()[0]
    fake_output_dir(tmp_path / "lm", {task.id: "<think>Ich überlege noch, welches Werkzeug"})
    out = tmp_path / "r.json"
    assert import_into(tmp_path / "lm", out) == 0
    document = load_results(out)
    item = document["items"][0]
    assert item["error_class"] == "reasoning_truncated" and item["score"] is None
    assert document["metrics"]["call_match"] == 0.0  # a miss, as lm-eval counted it
    assert document["metrics_answered"]["call_match"] is None


def test_import_warns_when_lm_eval_logged_other_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = load_tasks()[0]
    folder = fake_output_dir(tmp_path / "lm", {task.id: gold_text(task)})
    samples = folder / f"samples_{TASK_NAME}_{STAMP}.jsonl"
    row = json.loads(samples.read_text())
    row["call_match"] = 0
    samples.write_text(json.dumps(row) + "\n")
    out = tmp_path / "w.json"
    assert import_into(tmp_path / "lm", out) == 0
    assert f"1 item(s) ({task.id})" in capsys.readouterr().err
    assert load_results(out)["metrics"]["call_match"] == 1.0


def test_import_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = load_tasks()[0]
    folder = fake_output_dir(tmp_path / "lm", {task.id: gold_text(task)})
    samples = folder / f"samples_{TASK_NAME}_{STAMP}.jsonl"
    samples.write_text(samples.read_text() + "{broken\n")
    assert run_command(lm_eval_import, "lm-eval-import", str(tmp_path / "lm")) == 2
    assert f"{samples.name}:2: invalid JSON" in capsys.readouterr().err
    samples.unlink()
    assert run_command(lm_eval_import, "lm-eval-import", str(tmp_path / "lm")) == 2
    assert "--log_samples" in capsys.readouterr().err
    assert run_command(lm_eval_import, "lm-eval-import", str(tmp_path / "empty")) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_import_refuses_another_suite_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = load_tasks()[0]
    folder = fake_output_dir(tmp_path / "lm", {task.id: gold_text(task)})
    samples = folder / f"samples_{TASK_NAME}_{STAMP}.jsonl"
    row = json.loads(samples.read_text())
    row["doc"]["task"] = json.dumps({**json.loads(row["doc"]["task"]), "suite_version": "0.9.0"})
    samples.write_text(json.dumps(row) + "\n")
    assert run_command(lm_eval_import, "lm-eval-import", str(tmp_path / "lm")) == 2
    assert "suite version 0.9.0" in capsys.readouterr().err


def test_item_scores_match_the_scorer() -> None:
    task = load_tasks()[0]
    assert hooks.score_output(task, gold_text(task)) == ItemScore(1, 1, 1, 1, format_ok=1)


def test_the_lm_eval_hooks_import_with_the_standard_library_alone() -> None:
    """lm-eval imports ``utils.py`` in its own environment, where tooleval is installed without
    its dependencies: no third-party module may be imported on the way."""
    code = (
        "import sys; import tooleval.integrations.lm_eval.utils as u; u.task_docs(); "
        "third = {'httpx', 'numpy', 'jsonschema', 'openai', 'anthropic', 'google', 'rich', "
        "'mcp', 'matplotlib', 'gguf', 'tokenizers'}; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in third))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"
