"""Tool-argument validation with a real Draft 2020-12 validator.

Decisions (documented in the suite README): date-time is checked strictly as RFC 3339 (not the
lenient JavaScript ``Date.parse`` upstream used); booleans are never numbers (jsonschema already
treats ``True`` as non-numeric); ``5.0`` counts as an integer (Draft 2020-12); NaN and Infinity
are rejected while decoding the arguments text. String lengths count code points, not UTF-16
units (no catalogue tool has a bound that astral characters could straddle in practice).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

_RFC3339 = re.compile(
    r"\A\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z", re.ASCII
)

FORMAT_CHECKER = FormatChecker(formats=())


def is_rfc3339_datetime(value: object) -> bool:
    """RFC 3339 date-time: full date, time, seconds and an explicit offset."""
    if not isinstance(value, str):
        return True
    if not _RFC3339.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00").replace("t", "T"))
    except ValueError:
        return False
    return True


FORMAT_CHECKER.checks("date-time")(is_rfc3339_datetime)


@dataclass(frozen=True)
class ArgumentCheck:
    """The verdict on one call's arguments: the decoded object, or the issues found."""

    arguments: dict[str, Any] | None
    issues: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return not self.issues


def _reject_constant(name: str) -> float:
    raise ValueError(f"non-finite number {name} is not JSON")


def decode_arguments(text: str | None) -> ArgumentCheck:
    """Decode a native call's arguments text into a JSON object; never raises."""
    if text is None or not text.strip():
        return ArgumentCheck({}, ())
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        return ArgumentCheck(None, (f"arguments are not valid JSON: {exc}",))
    if not isinstance(value, dict):
        return ArgumentCheck(None, ("arguments must decode to an object",))
    return ArgumentCheck(value, ())


def json_path(parts: Iterable[object]) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _has_non_finite(value: object) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_non_finite(v) for v in value)
    return False


def validator_for(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema, format_checker=FORMAT_CHECKER)


def validate_arguments(schema: dict[str, Any], arguments: object) -> tuple[str, ...]:
    """Issues of ``arguments`` against ``schema`` as ``"<json path> <message>"``, sorted by path."""
    if _has_non_finite(arguments):
        return ("$ contains NaN or Infinity, which JSON does not allow",)
    errors = sorted(validator_for(schema).iter_errors(arguments), key=lambda e: list(e.path))
    return tuple(f"{json_path(error.absolute_path)} {error.message}" for error in errors)


def check_call(schema: dict[str, Any], arguments_text: str | None) -> ArgumentCheck:
    """Decode then validate one call's arguments text."""
    decoded = decode_arguments(arguments_text)
    if decoded.arguments is None:
        return decoded
    return ArgumentCheck(decoded.arguments, validate_arguments(schema, decoded.arguments))
