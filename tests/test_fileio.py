"""tooleval.fileio: the one I/O module (strict JSON/JSONL with file:line errors, atomic and
appending writes)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tooleval.fileio import (
    JsonFileError,
    JsonlError,
    append_jsonl,
    dumps,
    iter_jsonl,
    read_json,
    write_bytes_atomic,
    write_json_atomic,
)


def test_iter_jsonl_yields_line_numbers_and_skips_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes('\ufeff{"id": 1}\n\n  \n{"id": 2, "slug": "München"}\n'.encode())
    assert list(iter_jsonl(path)) == [(1, {"id": 1}), (4, {"id": 2, "slug": "München"})]


def test_last_line_without_newline_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": 1}\n{"id": 2}', encoding="utf-8")
    assert [n for n, _ in iter_jsonl(path)] == [1, 2]


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        (b'{"id": 1}\n{"id": \n', 2, "invalid JSON"),
        (b'{"id": 1}\n[1, 2]\n', 2, "expected a JSON object, got list"),
        (b'{"x": NaN}\n', 1, "NaN"),
        (b'{"id": 1}\n{"id": 1}\n{"s": "\xff"}\n', 3, "not valid UTF-8"),
        (b'"text"\n', 1, "got str"),
    ],
)
def test_bad_line_raises_with_file_and_line(
    tmp_path: Path, content: bytes, line: int, fragment: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(JsonlError) as caught:
        list(iter_jsonl(path))
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert fragment in str(caught.value)


def test_lines_before_a_bad_line_are_yielded_first(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1}\nnope\n', encoding="utf-8")
    seen = []
    with pytest.raises(JsonlError):
        for _, obj in iter_jsonl(path):
            seen.append(obj)
    assert seen == [{"id": 1}]


def test_jsonl_error_str_format() -> None:
    error = JsonlError(Path("dir/x.jsonl"), 12, "boom")
    assert str(error) == os.path.join("dir", "x.jsonl") + ":12: boom"
    assert isinstance(error, ValueError)


def test_write_json_atomic_round_trip_and_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "results.json"
    write_json_atomic(path, {"slug": "Köln", "n": [1, 2]})
    write_json_atomic(path, {"slug": "München"})
    assert "München" in path.read_text(encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8")) == {"slug": "München"}
    assert sorted(p.name for p in path.parent.iterdir()) == ["results.json"]


@pytest.mark.parametrize("bad", [{"x": float("nan")}, {"x": object()}])
def test_write_json_atomic_failure_keeps_old_file(tmp_path: Path, bad: object) -> None:
    path = tmp_path / "results.json"
    write_json_atomic(path, {"ok": True})
    with pytest.raises((ValueError, TypeError)):
        write_json_atomic(path, bad)
    assert json.loads(path.read_text(encoding="utf-8")) == {"ok": True}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_append_jsonl_appends_one_line_per_object(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    append_jsonl(path, {"id": 1, "slug": "Düsseldorf"})
    append_jsonl(path, {"id": 2, "text": "zwei\nZeilen"})
    raw = path.read_text(encoding="utf-8")
    assert raw.count("\n") == 2 and "Düsseldorf" in raw
    assert [obj for _, obj in iter_jsonl(path)] == [
        {"id": 1, "slug": "Düsseldorf"},
        {"id": 2, "text": "zwei\nZeilen"},
    ]


def test_append_jsonl_escapes_lone_surrogates(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    append_jsonl(path, {"text": "\ud800"})
    assert [obj for _, obj in iter_jsonl(path)] == [{"text": "\ud800"}]


def test_dumps_refuses_nan_and_keeps_text_readable() -> None:
    assert dumps({"slug": "Köln"}) == '{"slug": "Köln"}'
    with pytest.raises(ValueError):
        dumps({"x": float("inf")})
    assert json.loads(dumps({"t": "\udfff"})) == {"t": "\udfff"}


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        (b'{\n  "a": 1,\n  "b": \n}', 4, "invalid JSON"),
        (b'{"a": NaN}', 1, "NaN"),
        (b'{"a": "\xff"}', 1, "not valid UTF-8"),
    ],
)
def test_read_json_names_file_and_line(
    tmp_path: Path, content: bytes, line: int, fragment: str
) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    with pytest.raises(JsonFileError) as caught:
        read_json(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert fragment in str(caught.value)


def test_atomic_writes_use_unique_temp_names_and_clean_up(tmp_path: Path) -> None:
    path = tmp_path / "chart.png"
    stale = tmp_path / ".chart.png.abcd1234.tmp"  # left by a write killed before its rename
    stale.write_bytes(b"half")
    write_bytes_atomic(path, b"\x89PNG")
    write_bytes_atomic(path, b"\x89PNG2")
    assert path.read_bytes() == b"\x89PNG2"
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]
