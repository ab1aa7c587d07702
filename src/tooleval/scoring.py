"""Pure scorers for the first tool call: one source of truth for every way of running a suite.

Rules (documented in the InfraNode suite README):
- ``parsed``: the output contained a readable tool call.
- ``tool_match``: the first call names the gold tool.
- ``args_match``: the first call's arguments equal the gold arguments, independent of the tool.
- ``call_match``: both.
- ``format_ok``: the output followed the format the prompt asked for, apart from which call
  it made. Prompt mode: the whole answer is one JSON object ``{"name": ..., "arguments":
  {...}}`` (one code fence around it and a leading reasoning block allowed, nothing else).
  Native mode: native tool calls, every one readable and named as offered. A call the parser
  read from another dialect (Hermes tags, pythonic, XML, near-JSON, ...) still scores the four
  call metrics, but not ``format_ok``.
Argument comparison: strings are compared exactly after trimming surrounding whitespace;
lists named in ``UNORDERED_ARGUMENTS`` compare as sets (city order in ``compare`` is
irrelevant); ``True``/``False`` never equal numbers; an argument that the gold omits matches
only if the task lists ``None`` (absent) or the given value among its alternatives.
Slugs must be canonical: a call with "München" is executable but not a match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.records import ItemScore, Mode, ParseResult, Task, ToolCall

UNORDERED_ARGUMENTS = frozenset({"cities"})
ABSENT = None  # marker in Task.alternatives: the argument may be left out


def normalise_value(name: str, value: Any) -> Any:
    """A comparable form of one argument value."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, list):
        items = [normalise_value(name, item) for item in value]
        if name in UNORDERED_ARGUMENTS:
            return ("unordered", sorted(items, key=repr))
        return ("list", items)
    if isinstance(value, dict):
        # Sorted by key only: nesting repr() strings would double every backslash per level,
        # making deeply nested (hostile) arguments exponential in time and memory.
        return ("dict", sorted(((k, normalise_value(k, v)) for k, v in value.items()), key=_key))
    return value


def _key(pair: tuple[str, Any]) -> str:
    return pair[0]


def _value_matches(name: str, value: Any, accepted: tuple[Any, ...]) -> bool:
    got = normalise_value(name, value)
    return any(
        candidate is not ABSENT and normalise_value(name, candidate) == got
        for candidate in accepted
    )


def arguments_match(task: Task, arguments: Mapping[str, Any]) -> bool:
    """Whether ``arguments`` equal the gold arguments, honouring the task's alternatives."""
    gold = task.gold.arguments
    if not task.alternatives and gold.keys() == arguments.keys():  # the common case, direct
        return all(
            value is not ABSENT
            and normalise_value(name, arguments[name]) == normalise_value(name, value)
            for name, value in gold.items()
        )
    for name in gold.keys() | arguments.keys() | task.alternatives.keys():
        accepted = ((gold[name],) if name in gold else (ABSENT,)) + task.alternatives.get(name, ())
        if name not in arguments:
            if ABSENT not in accepted:
                return False
        elif not _value_matches(name, arguments[name], accepted):
            return False
    return True


def score_call(task: Task, call: ToolCall | None, form_ok: int | None = None) -> ItemScore:
    """Score one call (or no call) against the task's gold call; ``form_ok`` is passed on as
    the ``format_ok`` metric (None: not judged)."""
    if call is None:
        return ItemScore(0, 0, 0, 0, form_ok)
    tool = int(call.name.strip() == task.gold.name)
    args = int(arguments_match(task, call.arguments))
    return ItemScore(1, tool, args, tool * args, form_ok)


def format_ok(parsed: ParseResult, mode: Mode) -> int:
    """1 when the output had the form ``mode`` asks for (see the module doc), else 0."""
    native = parsed.extractor == "native"
    return int(parsed.exact and native == (mode == "native"))


def score_parse(task: Task, parsed: ParseResult, mode: Mode | None = None) -> ItemScore:
    """Score the first call of a parse result; later calls are ignored by design.

    With ``mode`` (the prompt's mode), ``format_ok`` is scored too; without it, it is None.
    """
    return score_call(task, parsed.first, None if mode is None else format_ok(parsed, mode))
