"""Python and near-JSON literals, read through ``ast`` and never evaluated.

``literal_value`` accepts only literal nodes: strings, finite numbers, ``True``/``False``/
``None`` (and JSON's ``true``/``false``/``null``), lists, tuples (read as lists) and dicts
with string keys. Anything else (names, calls, operators, sets, bytes, f-strings) is refused.
So near-JSON (single quotes, trailing commas, Python constants, tuples) decodes, while code
does not. Backslash escapes that Python does not know (``\\d``) are kept as written, without
the warning Python's parser would print. Text that makes the parser warn anyway (``1if``, a
number run into a keyword) is not a literal in any case: it is refused, and nothing is
printed (the warning is raised as an error in a guarded window, the same under any warning
filters, so tests and runs read alike).
"""

from __future__ import annotations

import ast
import math
import re
import threading
import warnings
from typing import Any, Final

from tooleval.parsing._decode import INVALID_JSON, MAX_DEPTH, TOO_DEEP, Decoded, skip_string

NAMED_LITERALS: Final[dict[str, Any]] = {
    "True": True,
    "False": False,
    "None": None,
    "true": True,
    "false": False,
    "null": None,
}
_ESCAPE_PAIR: Final = re.compile(
    r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL
)
_KNOWN_ESCAPES: Final = frozenset("\\'\"abfnrtv01234567\n")
_OPEN: Final = {"{": "}", "[": "]", "(": ")"}
_BRACKET_OR_QUOTE: Final = re.compile(r"[\[\](){}\"']")
_QUOTE_STOP: Final = {'"': re.compile(r'["\\]'), "'": re.compile(r"['\\]")}


class NotLiteral(ValueError):
    """A node that is not a plain literal (a name, call, operator, set, ...)."""


class TooDeep(ValueError):
    """A literal nested deeper than ``MAX_DEPTH``."""


def _escape_unknown(pair: re.Match[str]) -> str:
    escaped = pair.group(1)
    known = len(escaped) > 1 or escaped in _KNOWN_ESCAPES
    return pair.group() if known else "\\\\" + escaped


_WARNINGS_LOCK: Final = threading.Lock()
"""Warning filters are process-wide: one parse at a time changes them (runs parse in threads)."""
_NUMBER_INTO_NAME: Final = re.compile(r"\d[A-Za-z_]")
"""Where Python's tokenizer may warn (``1if``, ``0x1for``); also ``1e5``, ``'1st'``: harmless."""


def _parse(text: str, mode: str) -> ast.AST | None:
    source = _ESCAPE_PAIR.sub(_escape_unknown, text.strip()) if "\\" in text else text.strip()
    if _NUMBER_INTO_NAME.search(source) is None:
        return _parse_source(source, mode)
    with _WARNINGS_LOCK, warnings.catch_warnings():  # about 10 µs: only where needed
        warnings.simplefilter("error", SyntaxWarning)
        warnings.simplefilter("error", DeprecationWarning)
        return _parse_source(source, mode)


def _parse_source(source: str, mode: str) -> ast.AST | None:
    try:
        return ast.parse(source, mode=mode)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError, Warning):
        return None


def parse_expression(text: str) -> ast.expr | None:
    """The one Python expression that ``text`` is, or None (syntax error, too nested)."""
    tree = _parse(text, "eval")
    return tree.body if isinstance(tree, ast.Expression) else None


def parse_statements(text: str) -> list[ast.stmt] | None:
    """The Python statements that ``text`` is, or None (syntax error, too nested)."""
    tree = _parse(text, "exec")
    return tree.body if isinstance(tree, ast.Module) else None


def literal_value(node: ast.expr, depth: int = 1) -> Any:
    """The JSON-like value of a literal node; raises ``NotLiteral`` or ``TooDeep``."""
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.Name) and node.id in NAMED_LITERALS:
        return NAMED_LITERALS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = node.operand.value if isinstance(node.operand, ast.Constant) else None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise NotLiteral("sign before something that is not a number")
        return _constant(-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.List | ast.Tuple | ast.Dict) and depth > MAX_DEPTH:
        raise TooDeep(f"deeper than {MAX_DEPTH}")
    if isinstance(node, ast.List | ast.Tuple):
        return [literal_value(element, depth + 1) for element in node.elts]
    if isinstance(node, ast.Dict):
        return _dict_value(node, depth)
    raise NotLiteral(type(node).__name__)


def _constant(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise NotLiteral(f"{type(value).__name__} constant")


def _dict_value(node: ast.Dict, depth: int) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            raise NotLiteral("dict key that is not a string")
        result[key.value] = literal_value(value, depth + 1)
    return result


def decode_loose(text: str) -> Decoded:
    """``text`` as one near-JSON literal: a value, or ``invalid_json``/``too_deep``."""
    node = parse_expression(text)
    if node is None:
        return INVALID_JSON
    try:
        return Decoded(literal_value(node))
    except TooDeep:
        return TOO_DEEP
    except NotLiteral:
        return INVALID_JSON


def balanced_end(text: str, start: int) -> int:
    """End of the bracketed value opening at ``text[start]``, or -1 when it never closes.

    Both quote characters delimit strings, as in Python; brackets of any kind nest.
    """
    depth = 0
    pos = start
    while True:
        match = _BRACKET_OR_QUOTE.search(text, pos)
        if match is None:
            return -1
        char, pos = match.group(), match.end()
        if char in _QUOTE_STOP:
            pos = skip_string(text, pos, _QUOTE_STOP[char])
        elif char in _OPEN:
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return pos


def loose_prefix(text: str) -> tuple[Decoded, int]:
    """Decode the near-JSON value at the start of ``text``; also return where it ends."""
    if text[:1] not in _OPEN:
        return INVALID_JSON, 0
    end = balanced_end(text, 0)
    if end < 0:
        return INVALID_JSON, 0
    return decode_loose(text[:end]), end
