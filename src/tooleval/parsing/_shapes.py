"""Turn decoded JSON values into tool calls.

Recognised shapes (keys are matched exactly, in the order listed):

- a call object: a tool name under ``name``, ``tool``, ``tool_name`` or ``function`` (a string)
  and arguments under ``arguments``, ``parameters``, ``args`` or ``input`` (after ``tool``,
  also LangChain's ``tool_input``);
- LangChain's agent action ``{"action": NAME, "action_input": {...}}``: ``action`` names a
  tool only beside its own ``action_input`` (a plain ``"action"`` key is too common a word),
  and ``"action": "Final Answer"`` is the agent's answer, not a call;
- OpenAI style ``{"function": {"name": ..., "arguments": ...}}`` (``type``/``id`` ignored);
- wrappers ``{"tool_calls": [...]}``, ``{"function_calls": [...]}``, ``{"tool_call": ...}``,
  ``{"function_call": ...}``;
- a JSON list of any of these.

Arguments may be an object or a JSON string holding an object (in text, also a near-JSON
string such as ``"{'slug': 'bonn'}"``). A missing, ``null`` or blank arguments value means "no
arguments" (``{}``); anything else that is not an object fails. A named object without any
known arguments key but with another key holding an object (``{"name": "weather", "params":
{...}}``) fails with ``invalid_arguments_json``: its arguments are there, under a key the
parser does not know, and reading the call with none would be a silent misread. Without an
arguments key and without such an object, the other keys are the arguments, written flat
beside the name (``{"name": "weather", "slug": "bonn"}``); ``"type": "function"`` and a
provider's call ``id`` (``call_...``, ``toolu_...``) are the envelope, not arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from tooleval.parsing._decode import Decoded, decode_json, decode_prefix
from tooleval.parsing._literal import decode_loose, loose_prefix
from tooleval.parsing._scan import fence_blocks
from tooleval.records import ToolCall

ARGUMENT_KEYS: Final = ("arguments", "parameters", "args", "input")


@dataclass(frozen=True)
class CallKeys:
    """One family of call objects: the key of the tool name and the keys its arguments may
    sit under. With ``paired``, the name key counts only beside one of those keys."""

    name: str
    arguments: tuple[str, ...]
    paired: bool = False


CALL_KEYS: Final = (
    CallKeys("name", ARGUMENT_KEYS),
    CallKeys("tool", ("tool_input", *ARGUMENT_KEYS)),
    CallKeys("tool_name", ARGUMENT_KEYS),
    CallKeys("function", ARGUMENT_KEYS),
    CallKeys("action", ("action_input",), paired=True),
)
"""Tried in this order; the first family whose name key is present decides."""
NAME_KEYS: Final = tuple(keys.name for keys in CALL_KEYS)
FINAL_ANSWERS: Final = frozenset({"Final Answer"})
"""``action`` values that end a LangChain agent with an answer instead of a call."""
WRAPPER_KEYS: Final = ("tool_calls", "function_calls", "tool_call", "function_call")


@dataclass(frozen=True)
class Skipped:
    """A candidate that is not a tool call (not JSON, or JSON without a tool name)."""

    reason: str


@dataclass(frozen=True)
class Broken:
    """A recognisable tool call (it has a name) whose arguments cannot be used."""

    reason: str


@dataclass(frozen=True)
class Exact:
    """A marker after the call of a candidate that had exactly the requested form: one object
    ``{"name": "<tool>", "arguments": {...}}`` with no other keys."""


EXACT: Final = Exact()
Item = ToolCall | Skipped | Broken | Exact


def is_exact_form(value: Any) -> bool:
    """Whether a decoded value is exactly ``{"name": str, "arguments": {...}}``."""
    return (
        isinstance(value, dict)
        and len(value) == 2
        and isinstance(value.get("name"), str)
        and isinstance(value.get("arguments"), dict)
    )


def decode_arguments(raw: Any, loose: bool = True) -> dict[str, Any] | Broken:
    """Arguments as an object: objects pass, JSON text is decoded, null/blank mean ``{}``.

    With ``loose``, text that is not JSON is read as near-JSON (native calls pass False: a
    provider's arguments are JSON by contract).
    """
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return Broken("arguments_not_object")
    if not raw.strip():
        return {}
    decoded = decode_json(raw)
    if loose and decoded.reason == "invalid_json":
        decoded = decode_loose(raw)
    if decoded.reason == "too_deep":
        return Broken("too_deep")
    if decoded.reason is not None:
        return Broken("invalid_arguments_json")
    if not isinstance(decoded.value, dict):
        return Broken("arguments_not_object")
    return decoded.value


def call_item(name: Any, raw_arguments: Any, loose: bool = True) -> Item:
    """One call from a name and raw arguments, or why it is not usable."""
    if not isinstance(name, str) or not name.strip():
        return Skipped("no_tool_name")
    arguments = decode_arguments(raw_arguments, loose)
    if isinstance(arguments, Broken):
        return arguments
    return ToolCall(name=name, arguments=arguments)


def _first_present(obj: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        if key in obj:
            return key
    return None


def _call_keys(obj: dict[str, Any]) -> CallKeys | None:
    """The family of the first name key present (a paired one only beside its arguments)."""
    for keys in CALL_KEYS:
        if keys.name in obj and (not keys.paired or _first_present(obj, keys.arguments)):
            return keys
    return None


CALL_ID_PREFIXES: Final = ("call_", "toolu_")
"""How OpenAI's and Anthropic's call ids begin."""


def _is_envelope(key: str, value: Any) -> bool:
    """Keys that mark a call rather than pass an argument: ``"type": "function"`` and an
    ``id`` holding a provider's call id. Any other ``type`` or ``id`` is an argument (InfraNode's
    ``pois`` takes a ``type``, Cesium's tools an entity ``id``)."""
    if key == "type":
        return bool(value == "function")
    return key == "id" and isinstance(value, str) and value.startswith(CALL_ID_PREFIXES)


def flat_arguments(obj: dict[str, Any], name_key: str) -> dict[str, Any]:
    """The arguments of a call written flat, beside its name: every other key but the
    envelope's (``{"name": "weather", "slug": "bonn"}`` -> ``{"slug": "bonn"}``)."""
    return {
        key: value for key, value in obj.items() if key != name_key and not _is_envelope(key, value)
    }


def _call_from_object(obj: dict[str, Any]) -> Item:
    function = obj.get("function")
    source = function if isinstance(function, dict) else obj
    keys = _call_keys(source)
    if keys is None:
        return Skipped("no_tool_name")
    name = source[keys.name]
    if keys.paired and isinstance(name, str) and name in FINAL_ANSWERS:
        return Skipped("no_tool_name")
    argument_key = _first_present(source, keys.arguments)
    if argument_key is not None:
        return call_item(name, source[argument_key])
    flat = flat_arguments(source, keys.name)
    unknown_key = any(isinstance(value, dict) for value in flat.values())
    if unknown_key and isinstance(name, str) and name.strip():
        return Broken("invalid_arguments_json")  # arguments under a key we do not know
    return call_item(name, flat)


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


def value_prefix(text: str) -> tuple[Decoded, int]:
    """The JSON (else near-JSON) value at the start of ``text``, and where it ends."""
    decoded, end = decode_prefix(text)
    if decoded.reason == "invalid_json":
        return loose_prefix(text)
    return decoded, end


def named_call(name: str, rest: str) -> Item:
    """A call whose name sits in a template header and whose arguments object follows it
    (directly, or in a code fence)."""
    body = rest.lstrip()
    if body.startswith("```"):
        found = fence_blocks(body)
        body = found[0].lstrip() if found else ""
    decoded, _ = value_prefix(body)
    if decoded.reason is not None:
        return Broken("too_deep" if decoded.reason == "too_deep" else "invalid_arguments_json")
    if not isinstance(decoded.value, dict):
        return Broken("arguments_not_object")
    return call_item(name, decoded.value)
