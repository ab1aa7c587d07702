"""The parser's fixture cases: realistic model outputs per dialect, with the expected result.

One JSONL file per dialect ships in ``tooleval/parsing/fixtures/`` (read with
``importlib.resources``), so ``tooleval selftest`` checks them on any installation and the
tests read the same files. Each line is::

    {"id": ..., "model": "family that writes it", "text": "...",      # or "native": [...]
     "expect": {"name", "arguments"} | null, "expect_all": [...],      # optional
     "reason": null | "<reason>", "extractor": "<name>" | null, "exact": true | false}

Cases are parsed with the InfraNode tools offered (they type XML-parameter values and
resolve namespaced names). ``expect`` null with a ``reason`` is a negative case: the output
must not become a call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from tooleval.fileio import iter_jsonl_text, package_text
from tooleval.parsing import parse_response
from tooleval.records import NativeToolCall, ParseResult, ToolSpec

PACKAGE = "tooleval.parsing"
FOLDER = "fixtures"


@dataclass(frozen=True)
class ParseCase:
    """One fixture line; ``where`` is ``file:line`` for messages."""

    where: str
    family: str
    id: str
    model: str
    text: str | None
    native: tuple[NativeToolCall, ...]
    expect: dict[str, Any] | None
    expect_all: tuple[dict[str, Any], ...] | None
    reason: str | None
    extractor: str | None
    exact: bool


def _native(raw: Any, where: str) -> tuple[NativeToolCall, ...]:
    if not isinstance(raw, list):
        raise ValueError(f"{where}: 'native' must be a list")
    return tuple(NativeToolCall(str(c["name"]), str(c["arguments"])) for c in raw)


def case_from_json(row: dict[str, Any], family: str, where: str) -> ParseCase:
    """One case; raises ``ValueError`` naming ``where`` and the field when it is malformed."""
    try:
        expect_all = row.get("expect_all")
        return ParseCase(
            where=where,
            family=family,
            id=str(row["id"]),
            model=str(row.get("model", "")),
            text=row.get("text"),
            native=_native(row["native"], where) if "native" in row else (),
            expect=row["expect"],
            expect_all=None if expect_all is None else tuple(expect_all),
            reason=row["reason"],
            extractor=row["extractor"],
            exact=bool(row["exact"]),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{where}: bad fixture ({type(exc).__name__}: {exc})") from None


def fixture_families() -> tuple[str, ...]:
    """The fixture files (one per dialect or topic), without ``.jsonl``, sorted."""
    folder = resources.files(PACKAGE) / FOLDER
    names = (entry.name for entry in folder.iterdir() if entry.name.endswith(".jsonl"))
    return tuple(sorted(name.removesuffix(".jsonl") for name in names))


def load_cases(families: Sequence[str] | None = None) -> tuple[ParseCase, ...]:
    """Every case of the given fixture files (default: all), in file order."""
    cases: list[ParseCase] = []
    for family in families or fixture_families():
        name = f"{FOLDER}/{family}.jsonl"
        rows = iter_jsonl_text(package_text(PACKAGE, FOLDER, f"{family}.jsonl"), name)
        for number, row in rows:  # a malformed line raises JsonlError naming file and line
            cases.append(case_from_json(row, family, f"{name}:{number}"))
    return tuple(cases)


def parse_case(case: ParseCase, tools: Sequence[ToolSpec]) -> ParseResult:
    """The parser's result for a case, with ``tools`` offered."""
    return parse_response(case.text, case.native, tuple(tools))


def case_mismatch(case: ParseCase, result: ParseResult) -> str | None:
    """What differs between the expected and the actual result, or None when they agree."""
    first = result.first.to_json() if result.first else None
    got: dict[str, Any] = {
        "expect": first,
        "reason": result.reason,
        "extractor": result.extractor,
        "exact": result.exact,
    }
    wanted: dict[str, Any] = {
        "expect": case.expect,
        "reason": case.reason,
        "extractor": case.extractor,
        "exact": case.exact,
    }
    if case.expect_all is not None:
        got["expect_all"] = [call.to_json() for call in result.calls]
        wanted["expect_all"] = list(case.expect_all)
    wrong = {key: got[key] for key in wanted if got[key] != wanted[key]}
    if not wrong:
        return None
    expected = {key: wanted[key] for key in wrong}
    return f"{case.where} ({case.id}): got {json.dumps(wrong)}, expected {json.dumps(expected)}"
