"""``tooleval selftest``: every check passes on the shipped suite and fixtures, and a wrong
parser expectation is reported with its fixture file and line."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from tooleval.commands import selftest as selftest_command
from tooleval.parsing.cases import fixture_families, load_cases
from tooleval.selftest import check_parser, run_selftest
from tooleval.suites.infranode import load_suite, load_tools


def test_every_check_passes_and_every_fixture_file_is_checked() -> None:
    checks = run_selftest(load_suite())
    assert [c.name for c in checks if not c.ok] == []
    parser_checks = {c.name for c in checks if c.name.startswith("parser:")}
    assert parser_checks == {f"parser:{family}" for family in fixture_families()}
    assert "parser:pythonic" in parser_checks and "parser:xml_function" in parser_checks


def test_a_wrong_expectation_fails_its_file_and_names_the_line() -> None:
    cases = list(load_cases(["glm", "kimi"]))
    cases[1] = replace(cases[1], extractor="tag")
    checks = {c.name: c for c in check_parser(cases, load_tools())}
    assert checks["parser:kimi"].ok
    failed = checks["parser:glm"]
    assert not failed.ok
    assert "fixtures/glm.jsonl:2" in failed.detail and '"extractor": "glm"' in failed.detail


def test_command_exits_zero(capsys: Any) -> None:
    args = argparse.Namespace(suite="infranode", verbose=True)
    assert selftest_command.run(args) == 0
    out = capsys.readouterr().out
    assert "ok parser:function_gemma" in out and "0 failed" in out
