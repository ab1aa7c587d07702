"""The command line: one table of commands imported lazily, shared flags with validating
types, one-line errors and the same exit codes everywhere (docs/cli.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.cli import main
from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_CODES

BAD_VALUES = [
    ("run", "--concurrency", "0"),
    ("run", "--rpm", "0"),
    ("run", "--rpm", "nan"),
    ("run", "--max-retries", "-1"),
    ("run", "--max-requests", "-1"),
    ("run", "--stop-after-errors", "0"),
    ("run", "--timeout", "0"),
    ("run", "--temperature", "nan"),
    ("run", "--limit", "-1"),
    ("run", "--limit", "0"),
    ("run", "--timeout", "-1"),
    ("run", "--max-tokens", "0"),
    ("run", "--base-url", "http://[::1/v1"),
    ("run", "--reasoning", "lots"),
    ("run", "--backend", "nope"),
    ("episodes", "--max-rounds", "0"),
    ("episodes", "--max-result-chars", "0"),
    ("episodes", "--api-base-url", "ftp://x"),
    ("model-tools", "--repeats", "0"),
    ("model-tools", "--endpoint", "not a url"),
    ("report", "--top", "0"),
    ("serve", "--port", "70000"),
    ("mcp", "--port", "-1"),
    ("generate", "--max-per-category", "0"),
    ("measure", "--price-input", "-1"),
    ("export", "--max-result-chars", "0"),
    ("schema-compat", "--timeout-s", "inf"),
]


@pytest.mark.parametrize(("command", "flag", "value"), BAD_VALUES)
def test_a_value_out_of_range_is_one_line_naming_the_flag_and_exit_2(
    capsys: pytest.CaptureFixture[str], command: str, flag: str, value: str
) -> None:
    argv = [command, flag, value] + (["--format", "sft"] if command == "export" else [])
    argv += ["--out", "x.jsonl"] if command == "generate" else []
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"tooleval {command}: argument {flag}: ")


def test_only_the_command_being_run_is_imported() -> None:
    code = (
        "import sys, tooleval.cli as c; c.build_parser(['run']); "
        "print(sorted(m for m in sys.modules if m.startswith('tooleval.commands.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "['tooleval.commands.common', 'tooleval.commands.run']"


def test_every_command_is_listed_and_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert all(name in text for name in COMMANDS)
    for name in COMMANDS:
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0
    capsys.readouterr()


def test_the_exit_codes_are_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    assert all(f"| {code} |" in doc for code in EXIT_CODES)
