"""What constrained decoding yields on the InfraNode suite through llama.cpp's own grammar engine.

The embedded model's constrained run (``tooleval run``) scores call_match 0. Is that the model,
or our engine and its llguidance constraint? This benchmark answers with an independent
implementation of the same constraint: llama-cpp-python's real server (built by
``scripts/setup-llama-server.sh``) decodes greedily under a grammar made from the same JSON
Schema (``tooleval.local.constrain.call_schema``: one call of one of the twelve tools, arguments
by each tool's schema), sent as ``response_format``. The prompt is the suite's prompt, rendered
by the GGUF's own chat template; the answers go through tooleval's parser and scorer.

For every GGUF given (default: the embedded SmolLM2-135M) it prints and writes
call_match / tool_match per category and, for the embedded model, how often llama.cpp and
tooleval's engine (``tooleval run``, constrained) chose the same tool and wrote the same call.

Usage: uv run python bench/bench_grammar_reference.py [--server-python PY] [--gguf FILE ...]
                                                      [--limit N] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from common import ROOT, header, load_text, write_section

from tooleval.local.constrain import call_schema
from tooleval.local.gguf_model import ModelFileError, default_model_path
from tooleval.parsing import parse_text
from tooleval.records import Task, ToolSpec
from tooleval.scoring import score_parse
from tooleval.suites.infranode import load_tasks, load_tools
from tooleval.suites.infranode.prompting import build_messages

COMMAND = "uv run python bench/bench_grammar_reference.py"
START_TIMEOUT_S = 180.0
MAX_TOKENS = 120  # the embedded backend's budget for a call


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def llama_server(python: Path, gguf: Path, log: Path) -> Iterator[str]:
    """llama-cpp-python's server for ``gguf`` on loopback, chat template from the GGUF."""
    port = free_port()
    threads = str(len(os.sched_getaffinity(0)))
    argv = [str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--n_ctx", "8192",
            "--n_threads", threads, "--n_threads_batch", threads,
            "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                if process.poll() is not None:
                    raise SystemExit(f"the server exited:\n{log.read_text(errors='replace')}")
                try:
                    if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start within {START_TIMEOUT_S} s")
                time.sleep(0.25)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def request_body(task: Task, tools: Sequence[ToolSpec], schema: dict[str, Any]) -> dict[str, Any]:
    """Greedy (no repeat penalty, no sampling), constrained to one call of one tool."""
    turns = build_messages(task.question, tools)
    messages = [{"role": m.role, "content": m.content} for m in turns]
    return {
        "messages": messages,
        "temperature": 0,
        "top_k": 1,
        "repeat_penalty": 1.0,
        "max_tokens": MAX_TOKENS,
        "response_format": {"type": "json_object", "schema": schema},
    }


def decode_all(url: str, tasks: Sequence[Task], tools: Sequence[ToolSpec]) -> list[str]:
    schema = {k: v for k, v in call_schema(tools).items() if k != "x-guidance"}
    answers = []
    with httpx.Client(timeout=1800) as client:
        for task in tasks:
            body = request_body(task, tools, schema)
            response = client.post(f"{url}/chat/completions", json=body)
            response.raise_for_status()
            answers.append(response.json()["choices"][0]["message"]["content"] or "")
    return answers


def per_category(
    tasks: Sequence[Task], answers: Sequence[str], tools: Sequence[ToolSpec]
) -> dict[str, Counter[str]]:
    """Counts of items, parsed, tool_match and call_match per category and over all items."""
    counts: dict[str, Counter[str]] = {"all": Counter()}
    for task, answer in zip(tasks, answers, strict=True):
        score = score_parse(task, parse_text(answer, tools))
        for key in ("all", task.category):
            row = counts.setdefault(key, Counter())
            row["items"] += 1
            row["parsed"] += score.parsed
            row["tool_match"] += score.tool_match
            row["call_match"] += score.call_match
    return counts


def engine_answers(limit: int) -> dict[str, str]:
    """tooleval's own constrained run of the embedded model: task id -> raw output."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "engine.json"
        argv = [sys.executable, "-m", "tooleval.cli", "run", "--output", str(out)]
        if limit:
            argv += ["--limit", str(limit)]
        subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
        document = json.loads(out.read_text(encoding="utf-8"))
    return {item["task_id"]: item["raw_output"] for item in document["items"]}


def tool_of(answer: str, tools: Sequence[ToolSpec]) -> str | None:
    call = parse_text(answer, tools).first
    return None if call is None else call.name


def agreement(
    tasks: Sequence[Task], answers: Sequence[str], engine: dict[str, str], tools: Sequence[ToolSpec]
) -> tuple[int, int, int]:
    """(same tool, same call text, items compared) between llama.cpp and tooleval's engine."""
    same_tool = same_text = 0
    for task, answer in zip(tasks, answers, strict=True):
        mine = engine.get(task.id, "")
        same_tool += int(tool_of(answer, tools) == tool_of(mine, tools))
        same_text += int(parse_text(answer, tools).first == parse_text(mine, tools).first)
    return same_tool, same_text, len(tasks)


def table(name: str, counts: dict[str, Counter[str]]) -> list[str]:
    lines = [f"**{name}**", "", "| category | items | parsed | tool_match | call_match |",
             "|---|---|---|---|---|"]  # fmt: skip
    for category, row in counts.items():
        lines.append(f"| {category} | {row['items']} | {row['parsed']} | {row['tool_match']} | "
                     f"{row['call_match']} |")  # fmt: skip
    return [*lines, ""]


def default_server_python() -> Path:
    venv = ROOT / ".venv-llama-server" / "bin" / "python"
    return Path(os.environ.get("TOOLEVAL_LLAMA_SERVER", str(venv)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-python", type=Path, default=default_server_python())
    parser.add_argument("--gguf", type=Path, action="append", default=[])
    parser.add_argument("--limit", type=int, default=0, help="first N items only (0: all)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    if not args.server_python.is_file():
        raise SystemExit(f"{args.server_python} is missing: run scripts/setup-llama-server.sh")
    try:
        embedded = default_model_path()
    except ModelFileError as error:
        raise SystemExit(str(error)) from None
    ggufs = args.gguf or [embedded]
    tools = load_tools()
    tasks = load_tasks()[: args.limit or None]
    command = " ".join([COMMAND, *(f"--gguf {g.name}" for g in args.gguf)])
    body = header("Constrained decoding through llama.cpp's grammar (reference)", command,
                  compared=False)  # fmt: skip
    body += [f"{len(tasks)} InfraNode items, greedy, the suite's prompt in the GGUF's chat "
             "template, output constrained by llama.cpp's grammar made from the same call "
             "schema as `--decoding constrained`; scored by tooleval.", ""]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for gguf in ggufs:
            t0 = time.perf_counter()
            with llama_server(args.server_python, gguf, Path(tmp) / "server.log") as url:
                answers = decode_all(url, tasks, tools)
            wall = time.perf_counter() - t0
            counts = per_category(tasks, answers, tools)
            body += table(f"{gguf.name}: {wall:.0f} s wall (load {load_text()})", counts)
            print("\n".join(table(gguf.name, counts)))
            if gguf == embedded:
                engine = engine_answers(args.limit)
                same_tool, same_text, n = agreement(tasks, answers, engine, tools)
                line = (
                    "Against tooleval's engine (`tooleval run`, constrained) on the same items: "
                    f"same tool {same_tool}/{n}, identical call {same_text}/{n}."
                )
                body += [line, ""]
                print(line)
    if not args.no_write:
        write_section("grammar-reference", "\n".join(body))


if __name__ == "__main__":
    main()
