"""Model output -> ``ParseResult``. Parsing never raises.

``parse_text`` reads free text; ``parse_native`` reads provider function-calling output;
``parse_response`` prefers native calls when there are any and otherwise reads the text. Each
takes the offered tools (optional): they type the text values of XML-parameter dialects and
let a namespaced name (``functions.weather``) resolve to an offered tool.

Text extractors, tried in this order (``ParseResult.extractor`` names the one that worked;
docs/parsing.md shows every dialect with an example and the families that write it):

1. ``json_object``: the whole text is one JSON value. If it decodes, its verdict is final.
2. ``json_fence``: the whole text is one code fence around one JSON value (final too).
3. ``near_json``: the whole text is one near-JSON literal: single quotes, trailing commas,
   ``True``/``False``/``None``, tuples; read with ``ast``, never evaluated (final too).
4. ``xml_function``: ``<function=NAME>`` with ``<parameter=KEY>`` values (Qwen3-Coder,
   Seed-OSS) or a JSON body (Llama 3.1 custom tools).
5. ``xml_invoke``: ``<invoke name="NAME"><parameter name="KEY">`` (MiniMax-M2; Step-3's
   ``steptml:`` tags) and ``<invoke><tool_name>`` (Claude's older prompt format).
6. ``glm``: ``<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>`` (GLM-4.5/4.6).
7. ``xml_tags``: ``<tool_call><name>NAME</name><arguments>...</arguments>``.
8. ``kimi``: Kimi K2 ``<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>``.
9. ``function_gemma``: ``<start_function_call>call:NAME{k:<escape>v<escape>}``.
10. ``tag``: (near-)JSON bodies of ``<tool_call>``, ``<function_call>``, ``<functioncall>``,
    ``<|tool_call|>``, ``[TOOL_CALLS]`` (also ``[TOOL_CALLS]name[ARGS]{...}``) and
    ``<|python_tag|>``.
11. ``deepseek``: DeepSeek tool-call tokens, name in the header (V3 fenced and V3.1+ forms).
12. ``harmony``: gpt-oss messages ``to=functions.NAME ... <|message|>{arguments}``.
13. ``pythonic``: Python calls ``[weather(slug="bonn")]`` (Llama 3.2/4, BFCL, Gemma
    ```` ```tool_code ````, Olmo 3 ``<function_calls>``), read with ``ast``: literals only,
    never evaluated.
14. ``react``: ``Action: NAME`` / ``Action Input: {...}`` naming an offered tool (ReAct).
15. ``functionary``: ``>>>NAME`` + newline + ``{...}`` naming an offered tool (Functionary).
16. ``code_fence``: bodies of triple-backtick fences (``json``, ``tool_call``, bare, any tag).
17. ``prose``: every balanced top-level ``{...}`` (or list ``[{...}, ...]``) in the text,
    strings and escapes respected.

``parse_native`` (extractor ``native``) decodes each call's arguments text (strict JSON).
When native calls are present, ``parse_response`` uses them alone, even if they are broken:
the text beside a native call is commentary, not a second chance.

``ParseResult.exact`` says whether the output was exactly the canonical form: in text, one
JSON object ``{"name": ..., "arguments": {...}}`` and nothing else (one code fence around it
and a leading reasoning block allowed); for native calls, names used as given. Any repair
(another dialect, near-JSON, a stripped namespace) makes it False. ``tooleval.scoring`` turns
it into the ``format_ok`` metric for the mode the prompt asked for.

Call shapes are listed in ``tooleval.parsing._shapes``. A leading ``<think>...</think>`` (or
``<thinking>``, ``<seed:think>``) block is removed first; so is everything up to a
``</think>`` that has no opening tag (templates that open the block in the prompt), unless that
``</think>`` sits inside an unclosed ``{``. Text that starts with ``{`` or ``[`` has no
reasoning block, so a ``</think>`` inside its strings is kept.

Several calls are returned in document order; the scorer uses the first. Reading stops at the
first recognisable call (one with a tool name) whose arguments are unusable, so a broken call
is never skipped in favour of a later one: if it is the first call, the output fails with its
reason. JSON that holds no tool name (an example object in prose) is skipped. Dialect markup
counts only where the dialect puts a call (first on a line, or after its wrapper tag): a
mention in a sentence (``<function=...>``, ``weather(slug)``) is not a call.

Decisions:

- Standard JSON first; text that is not JSON is read as near-JSON (Python literal syntax
  through ``ast``). Comments, unquoted keys and ``NaN``/``Infinity`` stay invalid.
- ``NaN``/``Infinity`` and numbers that overflow a float (``1e309``) make JSON invalid;
  integers longer than Python's 4300-digit limit too.
- Duplicate keys: the last one wins, as in ``json.loads``.
- Missing, ``null`` or blank (``""``) arguments mean no arguments (``{}``).
- Only the first ``MAX_TEXT_CHARS`` characters are read. When the cut text yields no call,
  the reason is ``too_large``. Native arguments longer than that fail with ``too_large``.
- JSON nested deeper than ``MAX_DEPTH`` fails with ``too_deep`` (checked on each decoded
  value; absurd nesting stops earlier at the decoder's recursion guard, also ``too_deep``).
- One scan looks at no more than ``MAX_CANDIDATES`` JSON candidates (``{...}`` in prose, or
  JSON stepped over to find the end of a fence or tag body); the rest of the text is ignored.
- A closing fence or tag inside a complete JSON value (e.g. ``"</tool_call>"`` or a triple
  backtick in an argument string) does not end the fence or tag body.
- Work is linear in the text length: candidates are decoded by the C JSON decoder or
  Python's parser, and scanners jump with ``str.find`` and regexes without nested
  repetition; a dialect block ends at its closing marker or the next opening one.

Failure reasons (``REASONS``): a failure is never "the model chose not to call"; it is data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from tooleval.parsing._decode import MAX_DEPTH
from tooleval.parsing._scan import MAX_CANDIDATES, object_spans
from tooleval.parsing._schema import NAMESPACES, Tools, canonical_name
from tooleval.parsing._shapes import Broken, Exact, Item, Skipped, call_item
from tooleval.parsing.extractors import EXTRACTORS, FINAL_EXTRACTORS
from tooleval.records import NativeToolCall, ParseResult, ToolCall

__all__ = [
    "EXTRACTOR_NAMES",
    "MAX_CANDIDATES",
    "MAX_DEPTH",
    "MAX_TEXT_CHARS",
    "NAMESPACES",
    "REASONS",
    "parse_native",
    "parse_response",
    "parse_text",
    "strip_reasoning",
]

MAX_TEXT_CHARS: Final = 65_536
"""Characters of one output that are read; the rest is ignored."""

REASONS: Final[Mapping[str, str]] = {
    "empty": "no text and no native calls, or only whitespace after the reasoning block",
    "no_json": "no JSON object, fence body, tag body or dialect call to read",
    "invalid_json": "candidate (near-)JSON that does not decode (truncated, NaN, not a literal)",
    "too_deep": f"JSON nested deeper than {MAX_DEPTH} levels",
    "no_tool_name": "JSON (or a dialect's markup) that names no tool",
    "arguments_not_object": "a named call whose arguments are not an object (or positional)",
    "invalid_arguments_json": "a named call whose arguments cannot be read (bad JSON, markup cut "
    "off, a Python value that is not a literal, an object under an unknown key)",
    "reasoning_unterminated": "the text ends inside an unclosed <think> block",
    "too_large": f"nothing found in the first {MAX_TEXT_CHARS} characters, or huge arguments",
    "internal_error": "a parser bug; never expected, reported instead of raising",
}

EXTRACTOR_NAMES: Final = (*(name for name, _ in EXTRACTORS), "native")

_RANK: Final = {
    "no_json": 0,
    "invalid_json": 1,
    "too_deep": 2,
    "no_tool_name": 3,
    "arguments_not_object": 4,
    "invalid_arguments_json": 4,
}
_CUT_SENSITIVE: Final = frozenset({"no_json", "invalid_json", "reasoning_unterminated"})
_CALL_CHARACTER: Final = re.compile(r"[{\[(<]")
"""Every dialect needs one of these (JSON, markup, tokens, Python calls)."""
_REASONING_TAGS: Final = (
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<seed:think>", "</seed:think>"),
)


def _failure(reason: str) -> ParseResult:
    return ParseResult(calls=(), reason=reason, extractor=None)


def _better(current: str | None, candidate: str) -> str:
    """The more informative of two reasons (the one further along the way to a call)."""
    if current is None or _RANK.get(candidate, 0) > _RANK.get(current, 0):
        return candidate
    return current


def _fold(items: Sequence[Item], extractor: str) -> ParseResult:
    """Calls in order, stopping at the first broken call; else the best reason.

    The result is ``exact`` when its one call came from a candidate marked ``Exact``.
    """
    calls: list[ToolCall] = []
    reason: str | None = None
    exact = False
    for item in items:
        if isinstance(item, ToolCall):
            calls.append(item)
        elif isinstance(item, Exact):
            exact = True
        elif isinstance(item, Broken):
            if calls:
                break
            return _failure(item.reason)
        else:
            reason = _better(reason, item.reason)
    if calls:
        return ParseResult(tuple(calls), None, extractor, exact and len(calls) == 1)
    return _failure(reason or "no_json")


def strip_reasoning(text: str) -> str | None:
    """Text after a leading reasoning block; None when the block never closes."""
    stripped = text.lstrip()
    for opening, closing in _REASONING_TAGS:
        if stripped.startswith(opening):
            end = stripped.find(closing, len(opening))
            return None if end < 0 else stripped[end + len(closing) :]
    close = text.find("</think>")
    if close >= 0 and "<think>" not in text[:close] and not _inside_json(text[:close]):
        return text[close + len("</think>") :]
    return text


def _inside_json(prefix: str) -> bool:
    """True when the end of ``prefix`` lies inside an unclosed ``{...}``."""
    spans = object_spans(prefix)
    return bool(spans) and not spans[-1].closed


def _run_extractors(body: str, tools: Tools) -> ParseResult:
    if _CALL_CHARACTER.search(body) is None:  # plain prose: no extractor can find anything
        return _failure("no_json")
    best = "no_json"
    for name, extractor in EXTRACTORS:
        items = extractor(body, tools)
        if not items:
            continue
        result = _fold(items, name)
        if result.ok or name in FINAL_EXTRACTORS:
            return result
        best = _better(best, result.reason or "no_json")
    return _failure(best)


def _with_tool_names(result: ParseResult, tools: Tools) -> ParseResult:
    """Namespaced names resolved to offered tools; no longer ``exact`` if one had to change."""
    if not tools or not any(call.name.startswith(NAMESPACES) for call in result.calls):
        return result  # the common case: no name can change
    names = [canonical_name(call.name, tools) for call in result.calls]
    if all(new is call.name for new, call in zip(names, result.calls, strict=True)):
        return result
    calls = tuple(ToolCall(n, c.arguments) for n, c in zip(names, result.calls, strict=True))
    return ParseResult(calls, result.reason, result.extractor, exact=False)


def _parse_text(text: str | None, tools: Tools) -> ParseResult:
    if text is None or not text.strip():
        return _failure("empty")
    cut = len(text) > MAX_TEXT_CHARS
    window = text[:MAX_TEXT_CHARS] if cut else text
    starts_as_json = window.lstrip()[:1] in ("{", "[")
    body = window if starts_as_json else strip_reasoning(window)
    if body is None:
        result = _failure("reasoning_unterminated")
    elif not body.strip():
        result = _failure("empty")
    else:
        result = _with_tool_names(_run_extractors(body, tools), tools)
    if cut and result.reason in _CUT_SENSITIVE:
        return _failure("too_large")
    return result


def parse_text(text: str | None, tools: Tools = ()) -> ParseResult:
    """Find the tool calls in one model output. Never raises."""
    try:
        return _parse_text(text, tools)
    except Exception:  # the contract is "never raises"; a bug becomes data
        return _failure("internal_error")


def _native_item(call: NativeToolCall) -> Item:
    if len(call.arguments) > MAX_TEXT_CHARS:
        return Broken("too_large")
    item = call_item(call.name, call.arguments, loose=False)
    return Broken(item.reason) if isinstance(item, Skipped) else item


def parse_native(calls: Sequence[NativeToolCall], tools: Tools = ()) -> ParseResult:
    """Read provider function-calling output (arguments are JSON text). Never raises."""
    try:
        if not calls:
            return _failure("empty")
        result = _fold([_native_item(call) for call in calls], "native")
        if len(result.calls) == len(calls):
            result = ParseResult(result.calls, None, "native", exact=True)
        return _with_tool_names(result, tools)
    except Exception:  # the contract is "never raises"; a bug becomes data
        return _failure("internal_error")


def parse_response(
    text: str | None, native_calls: Sequence[NativeToolCall] = (), tools: Tools = ()
) -> ParseResult:
    """Native calls when the provider returned any (they decide alone); otherwise the text."""
    if native_calls:
        return parse_native(native_calls, tools)
    return parse_text(text, tools)
