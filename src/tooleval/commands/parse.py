"""``tooleval parse [FILE]``: run the tool-call parser on raw model outputs.

Without FILE, stdin is read as one model output. With FILE, each JSONL line is
``{"id": ..., "text": ..., "tool_calls": [{"name": ..., "arguments": ...}]}`` (``tool_calls``
optional: native calls, preferred over the text when present). One JSON line is printed per
input: ``{"id", "calls", "reason", "extractor", "exact", "format_ok"}``. The suite's tools
(``--suite``, default InfraNode) type the values of XML-parameter dialects and resolve
namespaced names; ``--mode`` decides ``format_ok``. A malformed line stops the run with
``FILE:LINE: message`` on stderr and exit code 2; lines printed before it stay printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_OK, fail
from tooleval.fileio import JsonlError, iter_jsonl
from tooleval.parsing import parse_response
from tooleval.records import Mode, NativeToolCall, ParseResult, ToolSpec
from tooleval.scoring import format_ok
from tooleval.suites import SUITE_NAMES, load_suite

NAME = "parse"
DESCRIPTION = """\
Run the tool-call parser on raw model outputs.

Without FILE, stdin is read as one model output. With FILE, each JSONL line is
  {"id": ..., "text": ..., "tool_calls": [{"name": ..., "arguments": ...}]}
where tool_calls (native calls, preferred over the text) is optional.

Prints one JSON line per input: {"id", "calls", "reason", "extractor",
"exact", "format_ok"}. extractor names the dialect that was read; format_ok
is 1 when the output followed the format the prompt asks for (prompt mode:
one JSON object {"name", "arguments"} and nothing else; native mode: native
tool calls). See docs/parsing.md.

A malformed line stops the run with FILE:LINE: message on stderr and exit
code 2; lines printed before it stay printed."""
MODES = ("auto", "prompt", "native")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "parse",
        help=COMMANDS["parse"],
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="JSONL file of {id, text[, tool_calls]} lines; without it, stdin is one output",
    )
    parser.add_argument(
        "--suite",
        choices=(*SUITE_NAMES, "none"),
        default="infranode",
        help="offer this suite's tools: they type XML-parameter values and resolve names "
        "like functions.weather (default: infranode; none: parse without tools)",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="auto",
        help="the prompt mode format_ok is judged for (default auto: native when the input "
        "has tool_calls, else prompt)",
    )
    parser.set_defaults(func=run)


def result_json(item_id: Any, result: ParseResult, mode: Mode = "prompt") -> dict[str, Any]:
    """The printed form of one parse result; ``format_ok`` is judged for ``mode``."""
    return {
        "id": item_id,
        "calls": [call.to_json() for call in result.calls],
        "reason": result.reason,
        "extractor": result.extractor,
        "exact": result.exact,
        "format_ok": format_ok(result, mode),
    }


def _emit(obj: dict[str, Any]) -> None:
    try:
        line = json.dumps(obj, ensure_ascii=False)
        line.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from the model: keep them as escapes
        line = json.dumps(obj)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _native_call(raw: Any) -> NativeToolCall:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ValueError("each of 'tool_calls' must be an object with a string 'name'")
    arguments = raw.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return NativeToolCall(name=raw["name"], arguments=arguments)


def parse_record(record: dict[str, Any], tools: tuple[ToolSpec, ...] = ()) -> ParseResult:
    """Parse one input line; raises ``ValueError`` naming the bad field."""
    text = record.get("text")
    if text is not None and not isinstance(text, str):
        raise ValueError("'text' must be a string or null")
    raw_calls = record.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ValueError("'tool_calls' must be a list")
    return parse_response(text, tuple(_native_call(raw) for raw in raw_calls), tools)


def _mode_for(mode: str, record: dict[str, Any]) -> Mode:
    """The mode ``format_ok`` is judged for: ``--mode``, or (auto) native when the line has
    native calls."""
    if mode == "native" or (mode == "auto" and record.get("tool_calls")):
        return "native"
    return "prompt"


def _run_file(path: str, tools: tuple[ToolSpec, ...], mode: str) -> int:
    try:
        for number, record in iter_jsonl(path):
            try:
                result = parse_record(record, tools)
            except ValueError as error:
                raise JsonlError(path, number, str(error)) from None
            _emit(result_json(record.get("id"), result, _mode_for(mode, record)))
    except JsonlError as error:
        return fail(NAME, error)
    except OSError as error:
        return fail(NAME, f"cannot read {path}: {error.strerror or error}")
    return EXIT_OK


def _read_stdin() -> str:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read()
        return data.decode("utf-8", errors="replace")
    return sys.stdin.read()


def offered_tools(suite: str) -> tuple[ToolSpec, ...]:
    return () if suite == "none" else load_suite(suite).tools


def run(args: argparse.Namespace) -> int:
    tools = offered_tools(args.suite)
    if args.file is None:
        record = {"text": _read_stdin()}
        _emit(result_json(None, parse_record(record, tools), _mode_for(args.mode, record)))
        return EXIT_OK
    return _run_file(args.file, tools, args.mode)
