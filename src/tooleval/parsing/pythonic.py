"""The ``pythonic`` extractor: calls written as Python, read with ``ast`` and never run.

Llama 3.2/4 and BFCL write ``[compare(cities=["berlin", "koeln"], resource="weather")]``;
Gemma writes ``weather(slug="bonn")`` in a ```` ```tool_code ```` fence. A call is accepted
where these models put one:

1. the whole output (one call, a list of calls, or one call per line);
2. the body of ``<|python_start|>...<|python_end|>`` (Llama 4), ``<|python_tag|>`` (Llama 3)
   or ``<function_calls>...</function_calls>`` (Olmo 3);
3. the whole body of a code fence (```` ```tool_code ````, ```` ```python ````, any language);
4. a line that is exactly a bracketed list of calls (at most ``MAX_CANDIDATES`` such lines).

Arguments must be keyword arguments with literal values (strings, numbers, ``True``/``False``/
``None``, lists, tuples, dicts); ``print(call(...))`` is read as ``call(...)``. A Python
keyword as a tool or parameter name (``route(from="bonn")``) is read as a name. A call in the
middle of a sentence (``Dafür eignet sich weather(slug)``) is a mention and is not read.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from itertools import islice
from typing import Any, Final

from tooleval.parsing._fastcall import fast_calls
from tooleval.parsing._literal import NotLiteral, TooDeep, literal_value, parse_statements
from tooleval.parsing._markup import blocks
from tooleval.parsing._scan import MAX_CANDIDATES
from tooleval.parsing._schema import Tools
from tooleval.parsing._shapes import Broken, Item, Skipped, call_item

_LOOKS_LIKE_CALL: Final = re.compile(r"\[?\s*[A-Za-z_][\w.]{0,199}\s*\(")
_CODE_FENCE: Final = re.compile(r"```[\w+.\-]{0,30}[ \t]*\r?\n")
_PYTHON_TAGS: Final = (
    ("<|python_start|>", "<|python_end|>"),
    ("<|python_tag|>", "<|eom_id|>"),
    ("<function_calls>", "</function_calls>"),
)
_MAX_DOTS: Final = 8
_KEYWORD_MARK: Final = "_tooleval_keyword_"
"""Prefix that lets Python's parser read a keyword used as a name; removed again after."""


def _name(identifier: str) -> str:
    return identifier.removeprefix(_KEYWORD_MARK)


def _names_a_call_or_argument(tokens: list[tokenize.TokenInfo], index: int) -> bool:
    token = tokens[index]
    following = tokens[index + 1].string if index + 1 < len(tokens) else ""
    return (
        token.type == tokenize.NAME and keyword.iskeyword(token.string) and following in ("(", "=")
    )


def unkeyworded(text: str) -> str | None:
    """``text`` with every Python keyword that names a call or a keyword argument
    (``from=``, ``or(``) marked so that Python's parser reads it; None when there is none or
    the text cannot be tokenized."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    marked = [i for i in range(len(tokens)) if _names_a_call_or_argument(tokens, i)]
    if not marked:
        return None
    pairs = [(t.type, t.string) for t in tokens]
    for index in marked:
        pairs[index] = (tokenize.NAME, _KEYWORD_MARK + tokens[index].string)
    return str(tokenize.untokenize(pairs))


def _dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a name or a short attribute chain; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute) and len(parts) < _MAX_DOTS:
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join(_name(part) for part in [node.id, *reversed(parts)])


def _arguments(call: ast.Call) -> dict[str, Any] | Broken:
    if call.args:
        return Broken("arguments_not_object")
    arguments: dict[str, Any] = {}
    for argument in call.keywords:
        if argument.arg is None:
            return Broken("arguments_not_object")
        try:
            arguments[_name(argument.arg)] = literal_value(argument.value, 2)
        except TooDeep:
            return Broken("too_deep")
        except NotLiteral:
            return Broken("invalid_arguments_json")
    return arguments


def _call_item(call: ast.Call) -> Item:
    inner = call.args[0] if len(call.args) == 1 else None
    if _dotted_name(call.func) == "print" and isinstance(inner, ast.Call) and not call.keywords:
        call = inner
    name = _dotted_name(call.func)
    if name is None:
        return Skipped("no_tool_name")
    arguments = _arguments(call)
    return arguments if isinstance(arguments, Broken) else call_item(name, arguments)


def _statement_calls(statement: ast.stmt) -> list[ast.Call] | None:
    value = statement.value if isinstance(statement, ast.Expr) else None
    if isinstance(value, ast.Call):
        return [value]
    if isinstance(value, ast.List | ast.Tuple) and value.elts:
        calls = [element for element in value.elts if isinstance(element, ast.Call)]
        return calls if len(calls) == len(value.elts) else None
    return None


def looks_like_call(stripped: str) -> bool:
    """Whether stripped text starts like a call (``name(`` or ``[name(``) and ends like one
    (a closing bracket, perhaps followed by a semicolon)."""
    end = stripped.rstrip(";").rstrip()[-1:]
    return end in (")", "]") and _LOOKS_LIKE_CALL.match(stripped) is not None


def pythonic_items(text: str) -> list[Item]:
    """The calls when ``text`` is nothing but Python calls (see module doc); else ``[]``.

    Inline-code backticks around the calls (```` `weather(slug="bonn")` ````) are allowed.
    """
    stripped = text.strip()
    if stripped.startswith("`") and not stripped.startswith("```"):
        stripped = stripped.strip("`").strip()
    if not looks_like_call(stripped):
        return []
    fast = fast_calls(stripped)
    if fast is not None:
        return [call_item(name, arguments) for name, arguments in fast]
    return _ast_items(stripped)


def _ast_items(stripped: str) -> list[Item]:
    """The calls of a pythonic text read with Python's parser (literals only, never run)."""
    statements = parse_statements(stripped)
    if statements is None and (marked := unkeyworded(stripped)) is not None:
        statements = parse_statements(marked)
    if not statements:
        return []
    calls: list[ast.Call] = []
    for statement in statements:
        found = _statement_calls(statement)
        if found is None:
            return []
        calls.extend(found)
    return [_call_item(call) for call in calls]


def _tagged_bodies(text: str) -> list[str]:
    return [
        text[block.start : block.end]
        for opener, closer in _PYTHON_TAGS
        if opener in text
        for block in blocks(text, opener, closer)
    ]


def _fence_bodies(text: str) -> list[str]:
    bodies: list[str] = []
    for opening in _CODE_FENCE.finditer(text):
        close = text.find("```", opening.end())
        bodies.append(text[opening.end() : len(text) if close < 0 else close])
        if len(bodies) == MAX_CANDIDATES:
            break
    return bodies


def _list_lines(text: str) -> list[str]:
    lines = (
        line.strip().strip("`")
        for line in text.splitlines()
        if "(" in line and line.strip().strip("`").startswith("[")
    )
    return list(islice(lines, MAX_CANDIDATES))


def extract_pythonic(text: str, tools: Tools) -> list[Item]:
    """Python-call syntax: the whole output, python tags, code fences, then list lines."""
    if "(" not in text:
        return []
    whole = pythonic_items(text)
    if whole:
        return whole
    for candidates in (_tagged_bodies(text), _fence_bodies(text), _list_lines(text)):
        items = [item for body in candidates for item in pythonic_items(body)]
        if items:
            return items
    return []
