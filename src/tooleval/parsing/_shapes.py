"""Turn decoded JSON values into tool calls.

Recognised shapes (keys are matched exactly, in the order listed):

- a call object: a tool name under ``name``, ``tool``, ``tool_name`` or ``function`` (a string)
  and arguments under ``arguments``, ``parameters``, ``args`` or ``input``;
- OpenAI style ``{"function": {"name": ..., "arguments": ...}}`` (``type``/``id`` ignored);
- wrappers ``{"tool_calls": [...]}``, ``{"function_calls": [...]}``, ``{"tool_call": ...}``,
  ``{"function_call": ...}``;
- a JSON list of any of these.

Arguments may be an object or a JSON string holding an object. A missing, ``null`` or blank
arguments value means "no arguments" (``{}``); anything else that is not an object fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from tooleval.parsing._decode import decode_json
from tooleval.records import ToolCall

NAME_KEYS: Final = ("name", "tool", "tool_name", "function")
ARGUMENT_KEYS: Final = ("arguments", "parameters", "args", "input")
WRAPPER_KEYS: Final = ("tool_calls", "function_calls", "tool_call", "function_call")


@dataclass(frozen=True)
class Skipped:
    """A candidate that is not a tool call (not JSON, or JSON without a tool name)."""

    reason: str


@dataclass(frozen=True)
class Broken:
    """A recognisable tool call (it has a name) whose arguments cannot be used."""

    reason: str


Item = ToolCall | Skipped | Broken


def decode_arguments(raw: Any) -> dict[str, Any] | Broken:
    """Arguments as an object: objects pass, JSON text is decoded, null/blank mean ``{}``."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return Broken("arguments_not_object")
    if not raw.strip():
        return {}
    decoded = decode_json(raw)
    if decoded.reason == "too_deep":
        return Broken("too_deep")
    if decoded.reason is not None:
        return Broken("invalid_arguments_json")
    if not isinstance(decoded.value, dict):
        return Broken("arguments_not_object")
    return decoded.value


def call_item(name: Any, raw_arguments: Any) -> Item:
    """One call from a name and raw arguments, or why it is not usable."""
    if not isinstance(name, str) or not name.strip():
        return Skipped("no_tool_name")
    arguments = decode_arguments(raw_arguments)
    if isinstance(arguments, Broken):
        return arguments
    return ToolCall(name=name, arguments=arguments)


def _first_key(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in obj:
            return obj[key]
    return None


def _call_from_object(obj: dict[str, Any]) -> Item:
    function = obj.get("function")
    source = function if isinstance(function, dict) else obj
    name = _first_key(source, NAME_KEYS)
    return call_item(name, _first_key(source, ARGUMENT_KEYS))


def call_items(value: Any) -> Iterator[Item]:
    """Every call (or failed candidate) in a decoded JSON value, in document order."""
    if isinstance(value, list):
        if not value:
            yield Skipped("no_tool_name")
        for element in value:
            yield from call_items(element)
        return
    if not isinstance(value, dict):
        yield Skipped("no_tool_name")
        return
    for key in WRAPPER_KEYS:
        if key in value:
            yield from call_items(value[key])
            return
    yield _call_from_object(value)
