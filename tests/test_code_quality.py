"""The project's static checks run as part of the one test command (ruff, ruff-format, mypy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    "args",
    [
        ("ruff", "check", "src", "tests", "bench", "scripts"),
        ("ruff", "format", "--check", "src", "tests", "bench", "scripts"),
    ],
    ids=["ruff-check", "ruff-format"],
)
def test_ruff(args: tuple[str, ...]) -> None:
    result = run_tool(*args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_src() -> None:
    result = run_tool("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
