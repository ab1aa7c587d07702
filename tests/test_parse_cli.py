"""``tooleval parse``: stdin mode, JSONL file mode and bad-input errors."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tooleval.commands import parse


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tooleval")
    parse.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["parse", *argv])
    code: int = args.func(args)
    return code


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _write(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_stdin_is_one_output(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    text = 'Gerne:\n```json\n{"name": "weather", "arguments": {"slug": "München"}}\n```\n'
    _stdin(monkeypatch, text.encode("utf-8"))
    assert _run([]) == 0
    out = capsys.readouterr().out
    assert "München" in out  # readable, not \u-escaped
    assert _lines(out) == [
        {
            "id": None,
            "calls": [{"name": "weather", "arguments": {"slug": "München"}}],
            "reason": None,
            "extractor": "code_fence",
            "exact": False,
            "format_ok": 0,
        }
    ]


def test_stdin_failure_is_a_reason_not_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    _stdin(monkeypatch, b"Ich kann das nicht. \xff")
    assert _run([]) == 0
    (line,) = _lines(capsys.readouterr().out)
    assert line["calls"] == [] and line["reason"] == "no_json"


def test_file_mode_text_and_native(tmp_path: Path, capsys: Any) -> None:
    path = _write(
        tmp_path / "outputs.jsonl",
        json.dumps({"id": "a", "text": '<tool_call>{"name": "sources"}</tool_call>'}),
        "",
        json.dumps(
            {
                "id": 7,
                "text": "ignored",
                "tool_calls": [{"name": "weather", "arguments": '{"slug": "bonn"}'}],
            }
        ),
        json.dumps({"id": "c", "tool_calls": [{"name": "pois", "arguments": {"slug": "kiel"}}]}),
        json.dumps({"id": "d", "text": None}),
    )
    assert _run([str(path)]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [line["id"] for line in lines] == ["a", 7, "c", "d"]
    assert lines[0]["calls"] == [{"name": "sources", "arguments": {}}]
    assert lines[0]["extractor"] == "tag"
    assert lines[1]["calls"] == [{"name": "weather", "arguments": {"slug": "bonn"}}]
    assert lines[1]["extractor"] == "native"
    assert lines[1]["format_ok"] == 1  # auto mode: a line with tool_calls is judged as native
    assert lines[2]["calls"] == [{"name": "pois", "arguments": {"slug": "kiel"}}]
    assert lines[3] == {
        "id": "d",
        "calls": [],
        "reason": "empty",
        "extractor": None,
        "exact": False,
        "format_ok": 0,
    }


QWEN = (
    "<tool_call>\n<function=stations>\n<parameter=slug>\nbonn\n</parameter>\n"
    "<parameter=limit>\n5\n</parameter>\n</function>\n</tool_call>"
)


def test_dialects_show_their_extractor_and_are_not_format_ok(tmp_path: Path, capsys: Any) -> None:
    exact = '{"name": "weather", "arguments": {"slug": "bonn"}}'
    path = _write(
        tmp_path / "dialects.jsonl",
        json.dumps({"id": "json", "text": exact}),
        json.dumps({"id": "qwen", "text": QWEN}),
        json.dumps({"id": "llama", "text": '[weather(slug="bonn")]'}),
        json.dumps({"id": "glm", "text": "<tool_call>weather<arg_key>slug</arg_key>"
                    "<arg_value>bonn</arg_value></tool_call>"}),
    )  # fmt: skip
    assert _run([str(path)]) == 0
    lines = {line["id"]: line for line in _lines(capsys.readouterr().out)}
    assert {k: (v["extractor"], v["format_ok"]) for k, v in lines.items()} == {
        "json": ("json_object", 1),
        "qwen": ("xml_function", 0),
        "llama": ("pythonic", 0),
        "glm": ("glm", 0),
    }
    assert lines["qwen"]["calls"] == [
        {"name": "stations", "arguments": {"slug": "bonn", "limit": 5}}
    ]


def test_suite_none_leaves_xml_values_as_text(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    _stdin(monkeypatch, QWEN.encode("utf-8"))
    assert _run(["--suite", "none"]) == 0
    (line,) = _lines(capsys.readouterr().out)
    assert line["calls"] == [{"name": "stations", "arguments": {"slug": "bonn", "limit": "5"}}]


@pytest.mark.parametrize(("mode", "expected"), [("prompt", 1), ("native", 0), ("auto", 1)])
def test_mode_decides_format_ok_of_text(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, mode: str, expected: int
) -> None:
    _stdin(monkeypatch, b'{"name": "weather", "arguments": {"slug": "bonn"}}')
    assert _run(["--mode", mode]) == 0
    (line,) = _lines(capsys.readouterr().out)
    assert line["exact"] is True and line["format_ok"] == expected


def test_bad_line_names_file_and_line_and_keeps_earlier_output(tmp_path: Path, capsys: Any) -> None:
    good = json.dumps({"id": 1, "text": '{"name": "list_cities"}'})
    path = _write(tmp_path / "bad.jsonl", good, good, '{"id": 3, "text": ', good)
    assert _run([str(path)]) == 2
    captured = capsys.readouterr()
    assert len(_lines(captured.out)) == 2
    assert f"{path}:3:" in captured.err
    assert "invalid JSON" in captured.err


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (json.dumps({"id": 1, "text": 5}), "'text'"),
        (json.dumps({"id": 1, "tool_calls": {"name": "x"}}), "'tool_calls'"),
        (json.dumps({"id": 1, "tool_calls": [{"arguments": "{}"}]}), "'name'"),
        (json.dumps(["not", "an", "object"]), "JSON object"),
    ],
)
def test_bad_field_names_line_and_field(tmp_path: Path, capsys: Any, line: str, field: str) -> None:
    path = _write(tmp_path / "fields.jsonl", json.dumps({"id": 0, "text": "x"}), line)
    assert _run([str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:" in err and field in err


def test_missing_file_is_exit_2(tmp_path: Path, capsys: Any) -> None:
    assert _run([str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_lone_surrogate_in_output_is_escaped(tmp_path: Path, capsys: Any) -> None:
    text = '{"name": "weather", "arguments": {"slug": "\\ud800"}}'
    path = _write(tmp_path / "s.jsonl", json.dumps({"id": 1, "text": text}))
    assert _run([str(path)]) == 0
    out = capsys.readouterr().out
    assert "\\ud800" in out
    assert _lines(out)[0]["calls"][0]["arguments"] == {"slug": "\ud800"}
