"""tooleval against a real serving stack: llama-cpp-python's OpenAI-compatible server on
loopback with the embedded SmolLM2 GGUF (tests/servers/llama_cpp_server.py starts it).

Every other provider test talks to loopback servers we wrote ourselves; these check our reading
of the wire format against a server we did not write. The server's virtual environment is built
by ``scripts/setup-llama-server.sh`` (it compiles llama.cpp); ``TOOLEVAL_LLAMA_SERVER`` names
its python. Without it the tests look for the checkout's ``.venv-llama-server`` and are skipped
when there is none; with the variable set (``.ci/run`` sets it when the server is built) a
missing server is an error. Deselect with ``-m "not real_server"``.

Two servers run for the whole module: ``chatml`` (prompt mode: tools listed in the system
prompt, the answer is text) and ``chatml-function-calling`` (native mode: tools rendered by the
server, calls come back as ``tool_calls``, their arguments constrained by a grammar built from
the tool's schema). SmolLM2-135M is a weak model: the tests assert what the pipeline must do
(answers parsed, calls executed, scored), never that the model is right.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from servers.llama_cpp_server import SERVER_ENV, LlamaServer, server_python, start
from tooleval.cli import main
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.runner import load_run_suite, run_suite, select_tasks
from tooleval.runner.item import build_request
from tooleval.runner.records import RunConfig
from tooleval.runner.toolcheck import ToolsNotDelivered

pytestmark = pytest.mark.real_server

REPO = Path(__file__).resolve().parents[1]
MODEL = "smollm2"
ITEMS = 4
TIMEOUT_S = 1200


@pytest.fixture(scope="module")
def python() -> Path:
    found = server_python(REPO)
    if found is None:
        pytest.skip(f"no llama-cpp-python server: run scripts/setup-llama-server.sh ({SERVER_ENV})")
    return found


@pytest.fixture(scope="module")
def prompt_server(python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with start(python, "chatml", tmp_path_factory.mktemp("llama"), MODEL) as server:
        yield server


@pytest.fixture(scope="module")
def native_server(python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with start(python, "chatml-function-calling", tmp_path_factory.mktemp("llama"), MODEL) as s:
        yield s


def tooleval(server: LlamaServer, *args: str) -> int:
    """``tooleval ARGS`` against ``server``; the exit code (the server log on failure)."""
    common = ["--backend", "openai", "--preset", "llamacpp", "--base-url", server.base_url]
    # a first prompt of ~3.5k tokens took 8 minutes on a 2-core machine under heavy load
    patience = ["--timeout", str(TIMEOUT_S), "--max-retries", "0"]
    return main([*args, *common, *patience, "--model", MODEL, "--concurrency", "1"])


def read(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


# --- prompt mode -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def prompt_run(prompt_server: LlamaServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prompt") / "prompt.json"
    code = tooleval(prompt_server, "run", "--mode", "prompt", "--limit", str(ITEMS),
                    "--output", str(out))  # fmt: skip
    assert code == 0, prompt_server.log_tail()
    return out


def test_prompt_mode_end_to_end(prompt_run: Path) -> None:
    document = read(prompt_run)
    assert document["complete"] is True and document["counts"]["answered"] == ITEMS
    assert document["counts"]["errors"] == 0 and document["errors_by_class"] == {}
    assert document["tools_check"] is None  # prompt mode sends no tools
    for item in document["items"]:
        assert item["raw_output"].strip() and item["score"] is not None
        assert item["usage"]["input_tokens"] > 1000  # the tool list is in the prompt
    assert 0.0 <= document["metrics"]["call_match"] <= 1.0


# --- native mode -----------------------------------------------------------------------------


def test_native_mode_calls_are_parsed_and_scored(
    native_server: LlamaServer, tmp_path: Path
) -> None:
    out = tmp_path / "native.json"
    code = tooleval(native_server, "run", "--mode", "native", "--limit", str(ITEMS),
                    "--output", str(out))  # fmt: skip
    assert code == 0, native_server.log_tail()
    document = read(out)
    assert document["complete"] is True and document["counts"]["errors"] == 0
    check = document["tools_check"]
    assert check["verdict"] == "arrived", check
    called = [item for item in document["items"] if item["native_calls"]]
    assert called, [item["raw_output"] for item in document["items"]]
    for item in called:  # the server's grammar keeps arguments to the schema: all readable
        native = [(c["name"], json.loads(c["arguments"])) for c in item["native_calls"]]
        assert [(c["name"], c["arguments"]) for c in item["parsed"]["calls"]] == native
        assert item["parsed"]["extractor"] == "native" and item["score"]["parsed"] == 1
        assert item["score"]["tool_match"] in (0, 1)
    assert document["items"][0]["native_calls"] or check["method"] != "tool_calls_in_answer"


def test_without_tool_choice_the_server_drops_the_tools_and_the_check_stops_the_run(
    native_server: LlamaServer, tmp_path: Path
) -> None:
    """The quirk the check exists for, on the real server: chatml-function-calling renders
    the tools only when the request names a tool_choice."""
    provider = OpenAICompatProvider(MODEL, base_url=native_server.base_url, preset="llamacpp")
    assert provider.preset is not None
    provider.preset = replace(provider.preset, tool_choice=None)
    config = RunConfig(
        suite="infranode", backend="openai", model=MODEL, mode="native", limit=2,
        concurrency=1, max_retries=0, preset="llamacpp", output=tmp_path / "dropped.json",
    )  # fmt: skip
    with pytest.raises(ToolsNotDelivered, match="left the tools out of the prompt"):
        run_suite(config, provider)
    check = read(tmp_path / "dropped.json")["tools_check"]
    assert check["verdict"] == "missing", check
    assert check["difference"] < check["threshold"] <= check["needed_tokens"]


# --- conversations ---------------------------------------------------------------------------


def test_model_tools_live_completes_scenarios_with_tool_calls(
    native_server: LlamaServer, tmp_path: Path
) -> None:
    out = tmp_path / "scenarios.json"
    code = tooleval(native_server, "model-tools", "--live", "--mode", "native", "--limit", "2",
                    "--max-rounds", "3", "--output", str(out))  # fmt: skip
    assert code == 0, native_server.log_tail()
    document = read(out)
    assert document["complete"] is True and document["tools_check"]["verdict"] == "arrived"
    items = document["items"]
    assert len(items) == 2 and all(item["ending"] in ("answered", "max_rounds") for item in items)
    calls = [call for item in items for call in item["calls"]]
    assert calls, [item["transcript"] for item in items]
    assert all(item["score"] is not None for item in items)
    assert document["headline"]["judged"] == 2


def test_episodes_execute_calls_against_the_replica(
    native_server: LlamaServer, tmp_path: Path
) -> None:
    out = tmp_path / "episodes.json"
    code = tooleval(native_server, "episodes", "--mode", "native", "--limit", "2",
                    "--max-rounds", "3", "--output", str(out))  # fmt: skip
    assert code == 0, native_server.log_tail()
    document = read(out)
    assert document["complete"] is True and document["tools_check"]["verdict"] == "arrived"
    calls = [call for item in document["items"] for call in item["calls"]]
    assert calls, [item["transcript"] for item in document["items"]]
    executed = [call for call in calls if call.get("status") is not None]
    assert executed, calls  # the replica answered (an HTTP status, even a 404)
    assert all(call["result"] is not None for call in executed)


# --- lm-eval and the direct runner on the same server -------------------------------------------


def lm_eval_executable() -> Path:
    named = os.environ.get("TOOLEVAL_LM_EVAL")
    path = Path(named) if named else REPO / ".venv-lmeval" / "bin" / "lm_eval"
    if not path.is_file():
        if named:
            raise FileNotFoundError(f"TOOLEVAL_LM_EVAL={named} does not exist")
        pytest.skip("lm_eval not installed: run scripts/setup-lm-eval.sh (or set TOOLEVAL_LM_EVAL)")
    return path


def lm_eval_samples(server: LlamaServer, work: Path) -> list[tuple[list[Any], str]]:
    """lm-eval's ``local-chat-completions`` on the first ITEMS tasks: (messages, output) in
    task order."""
    from tooleval.integrations.lm_eval import TASK_NAME, task_dir

    model_args = (
        f"model={MODEL},base_url={server.base_url}/chat/completions,num_concurrent=1,"
        f"max_retries=1,timeout={TIMEOUT_S},tokenized_requests=False,eos_string=<|im_end|>"
    )
    command = [
        str(lm_eval_executable()), "--model", "local-chat-completions",
        "--model_args", model_args, "--apply_chat_template",
        "--include_path", str(task_dir()), "--tasks", TASK_NAME, "--limit", str(ITEMS),
        "--log_samples", "--output_path", str(work / "out"),
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "OPENAI_API_KEY": "unused"}  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=2 * TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-4000:]
    samples = sorted((work / "out").rglob(f"samples_{TASK_NAME}_*.jsonl"))
    assert len(samples) == 1, samples
    rows = [json.loads(line) for line in samples[0].read_text().splitlines() if line.strip()]
    rows.sort(key=lambda row: row["doc_id"])
    return [(json.loads(row["arguments"]["gen_args_0"]["arg_0"][0]), row["resps"][0][0])
            for row in rows]  # fmt: skip


def direct_messages() -> list[list[dict[str, Any]]]:
    """The messages the direct runner sent for the first ITEMS tasks in prompt mode."""
    config = RunConfig(suite="infranode", mode="prompt", limit=ITEMS)
    suite = load_run_suite(config)
    requests = [build_request(task, suite, config) for task in select_tasks(suite, config)]
    return [[{"role": m.role, "content": m.content} for m in r.messages] for r in requests]


def test_lm_eval_and_the_direct_runner_give_identical_outputs(
    prompt_server: LlamaServer, prompt_run: Path, tmp_path: Path
) -> None:
    samples = lm_eval_samples(prompt_server, tmp_path)
    # same prompts first: an lm-eval venv with another checkout's tooleval fails here, clearly
    assert [messages for messages, _ in samples] == direct_messages()
    direct = [item["raw_output"] for item in read(prompt_run)["items"]]
    assert [output for _, output in samples] == direct
