"""Every flag of ``run``, ``episodes``, ``model-tools``, ``report``, ``serve`` and ``mcp``
under random values: a value is taken or refused with exit 2 and one line naming the flag,
never a traceback; and a run started with any accepted value ends with a documented exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooleval.cli import build_parser, main
from tooleval.commands.common import EXIT_CODES

COMMANDS = ("run", "episodes", "model-tools", "report", "serve", "mcp")
REQUIRED = {"report": ["results.json"]}


def valued_flags(command: str) -> list[str]:
    """The command's options that take one value."""
    parser = build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    actions = sub.choices[command]._actions
    return sorted(
        a.option_strings[-1]
        for a in actions
        if a.option_strings and a.nargs is None and not isinstance(a, argparse._HelpAction)
        and not a.const and a.option_strings[-1] not in ("--help",)
    )  # fmt: skip


FLAGS = [(command, flag) for command in COMMANDS for flag in valued_flags(command)]
ODD = ["0", "-0", "-1", "0.5", "nan", "inf", "-inf", "1e309", "1e-320", "9" * 40, "0x10",
       "1_000", " 3", "", "½", "٣", "3\x00", "http://[::1/v1", "ftp://x", "\u202e1"]  # fmt: skip
VALUES = (
    st.sampled_from(ODD)
    | st.integers(min_value=-(10**24), max_value=10**24).map(str)
    | st.floats().map(repr)
    | st.text(max_size=12)
)


def one_line_naming(err: str, command: str, flag: str) -> None:
    """``tooleval COMMAND: argument -x/--flag: why`` and nothing else."""
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    head = f"tooleval {command}: argument "
    assert err.startswith(head) and flag in err[len(head) :].split(": ")[0].split("/"), err


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(FLAGS), VALUES)
def test_any_flag_value_is_taken_or_refused_in_one_line(
    flag_of: tuple[str, str], value: str
) -> None:
    command, flag = flag_of
    parser = build_parser([command])
    argv = [command, *REQUIRED.get(command, []), f"{flag}={value}"]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args = parser.parse_args(argv)
    except SystemExit as stop:
        assert stop.code == 2
        one_line_naming(err.getvalue(), command, flag)
        return
    assert args.command == command and err.getvalue().count("\n") <= 1  # a deprecation note


@pytest.mark.parametrize(
    ("backend", "flags"),
    [("local", ["--api-key-env", "MY_KEY"]), ("fake", ["--api-key-env", "MY_KEY"]),
     ("local", ["--base-url", "http://127.0.0.1:9/v1"])],
)  # fmt: skip
def test_a_flag_the_backend_cannot_use_is_one_line_not_a_traceback(
    backend: str, flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    code = main(["run", "--backend", backend, "--limit", "1", "--output", str(out), *flags])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"{flags[0]} applies to the hosted backends, not '{backend}'" in err
    assert not out.exists()


FIXTURES = HealthCheck.function_scoped_fixture  # tmp_path and capsys are reused: both fine
RUN_FLAGS = ["--concurrency", "--rpm", "--max-retries", "--max-requests", "--stop-after-errors",
             "--max-tokens", "--temperature", "--top-p", "--seed", "--limit", "--repeats",
             "--timeout", "--reasoning"]  # fmt: skip
EPISODE_FLAGS = ["--max-rounds", "--max-result-chars", "--limit", "--concurrency", "--timeout"]
SMALL = (
    st.sampled_from(ODD)
    | st.integers(min_value=-3, max_value=40).map(str)
    | st.floats(min_value=-2, max_value=40).map(repr)
)


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("flags") / "s.jsonl"
    call = {"tool_calls": [{"name": "list_cities", "arguments": {}}]}
    path.write_text(json.dumps(call) + "\n" + json.dumps({"text": "Fertig."}) + "\n")
    return path


def drive(argv: list[str], command: str, flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code  # type: ignore[assignment]
        assert code == 2
        one_line_naming(capsys.readouterr().err, command, flag)
        return
    out, err = capsys.readouterr()
    assert code in EXIT_CODES and "Traceback" not in out + err


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(flag=st.sampled_from(RUN_FLAGS), value=SMALL)
def test_a_run_with_any_flag_value_ends_with_a_documented_exit_code(
    flag: str, value: str, script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    argv = ["run", "--backend", "fake", "--script", str(script), "--model", "m", "--limit", "1",
            "--fresh", "--output", str(out), f"{flag}={value}"]  # fmt: skip
    drive(argv, "run", flag, capsys)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(flag=st.sampled_from(EPISODE_FLAGS), value=SMALL)
def test_episodes_with_any_flag_value_end_with_a_documented_exit_code(
    flag: str, value: str, script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "e.json"
    argv = ["episodes", "--backend", "fake", "--script", str(script), "--limit", "1",
            "--output", str(out), f"{flag}={value}"]  # fmt: skip
    drive(argv, "episodes", flag, capsys)
