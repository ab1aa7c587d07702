"""What generateContent rejects, as far as Google's documentation and the google-genai SDK say.

``GeminiRules`` validates a request body (normalised to camelCase: the SDK writes some fields
snake_case) against the model named in the path, and remembers the thought signatures it
issued so a history that lost one is refused as Gemini 3 refuses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Received, Reply

MODEL = re.compile(r"/models/([^/:]+):generateContent$")
THINKING = "ai.google.dev/gemini-api/docs/thinking"
# thinkingLevel values per Gemini 3 model (THINKING; google-genai types.ThinkingLevel).
LEVELS: Sequence[tuple[str, frozenset[str]]] = (
    (r"gemini-3-pro(-.*)?", frozenset({"low", "high"})),
    (r"gemini-(3\.\d+|[4-9](\.\d+)?)-pro(-.*)?", frozenset({"low", "medium", "high"})),
    (
        r"gemini-(3(\.\d+)?|[4-9](\.\d+)?)-flash(-.*)?",
        frozenset({"minimal", "low", "medium", "high"}),
    ),
)
# thinkingBudget limits per 2.5 model (THINKING): (lowest, highest, 0 switches off).
BUDGETS: Sequence[tuple[str, tuple[int, int, bool]]] = (
    (r"gemini-2\.5-pro(-.*)?", (128, 32768, False)),
    (r"gemini-2\.5-flash-lite(-.*)?", (512, 24576, True)),
    (r"gemini-2\.5-flash(-.*)?", (1, 24576, True)),
)


def error(message: str, status: int = 400) -> Reply:
    body = {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return Reply(status=status, body=body)


def camel(value: Any) -> Any:
    """Keys in camelCase (the SDK writes proto field names snake_case on the wire)."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m[1].upper(), k): camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


def _first(table: Sequence[tuple[str, Any]], model: str) -> Any:
    return next((value for pattern, value in table if re.fullmatch(pattern, model)), None)


def check_thinking(model: str, config: Mapping[str, Any]) -> Reply | None:
    """THINKING: Gemini 3 takes thinkingLevel (its own values; Pro cannot switch thinking off),
    2.5 takes thinkingBudget (its own range; 2.5 Pro cannot switch off), both together is a
    400, and 1.5/2.0 models do not think at all."""
    thinking = config.get("thinkingConfig")
    if thinking is None:
        return None
    level, budget = thinking.get("thinkingLevel"), thinking.get("thinkingBudget")
    if level is not None and budget is not None:
        return error("thinking_level and thinking_budget cannot be used in the same request")
    levels = _first(LEVELS, model)
    limits = _first(BUDGETS, model)
    if re.fullmatch(r"gemini-(1\.\d|2\.0)(-.*)?", model):
        return error("Thinking is not supported for this model.")
    if level is not None:
        if levels is None:
            return error("Thinking level is not supported for this model.")
        if str(level).lower() not in levels:
            return error(f"Thinking level {level} is not supported for this model.")
    if budget is not None and limits is not None:
        low, high, can_disable = limits
        if budget == 0 and not can_disable:
            return error("Budget 0 is invalid. This model only works in thinking mode.")
        if budget != 0 and not low <= budget <= high and budget != -1:
            return error(
                f"The thinking budget {budget} is invalid. Please choose a value "
                f"between {low} and {high}."
            )
    if budget == 0 and levels is not None and "minimal" not in levels:
        return error("Budget 0 is invalid. This model only works in thinking mode.")
    return None


def _call_key(call: Mapping[str, Any]) -> str:
    return json.dumps([call.get("name"), call.get("args") or {}], sort_keys=True)


def check_contents(contents: Sequence[Any]) -> Reply | None:
    """Parts never empty; after a model turn with N functionCall parts comes a user turn with
    exactly N functionResponse parts for the same functions (and ids, where the calls had
    ids): "Please ensure that the number of function response parts is equal to the number of
    function call parts of the function call turn"; a functionResponse answers a call."""
    calls: list[Mapping[str, Any]] = []
    for index, content in enumerate(contents):
        parts = content.get("parts") or []
        if not parts:
            return error(f"contents[{index}].parts must not be empty")
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if calls or responses:
            problem = _pairing(calls, responses, content.get("role"))
            if problem is not None:
                return error(problem)
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
    return None


def _pairing(
    calls: Sequence[Mapping[str, Any]], responses: Sequence[Mapping[str, Any]], role: Any
) -> str | None:
    if role != "user" or len(calls) != len(responses):
        return (
            "Please ensure that the number of function response parts is equal to the "
            "number of function call parts of the function call turn."
        )
    if sorted(c.get("name") for c in calls) != sorted(r.get("name") for r in responses):
        return "function response names do not match the function calls"
    ids = [c.get("id") for c in calls if c.get("id")]
    if ids and sorted(ids) != sorted(r.get("id") or "" for r in responses):
        return "function response ids do not match the function call ids"
    return None


class GeminiRules:
    """Request validation plus the signatures this "model" issued: a functionCall part it sent
    with a thoughtSignature must come back with that signature, unchanged ("Function call is
    missing a thought_signature in functionCall parts" / "Corrupted thought signature";
    ai.google.dev/gemini-api/docs/thought-signatures, which also says Gemini 3 enforces it)."""

    def __init__(self) -> None:
        self.signatures: dict[str, str] = {}

    def sent(self, reply: Reply) -> None:
        body = reply.body if isinstance(reply.body, dict) else {}
        for candidate in body.get("candidates") or []:
            if not isinstance(candidate, dict):
                continue
            for part in (candidate.get("content") or {}).get("parts") or []:
                if "functionCall" in part and "thoughtSignature" in part:
                    self.signatures[_call_key(part["functionCall"])] = part["thoughtSignature"]

    def check(self, received: Received) -> Reply | None:
        body = camel(received.body) if isinstance(received.body, dict) else {}
        match = MODEL.search(received.path)
        model = match.group(1) if match else ""
        contents = body.get("contents") or []
        return (
            check_thinking(model, body.get("generationConfig") or {})
            or check_contents(contents)
            or self._signatures(contents)
        )

    def _signatures(self, contents: Sequence[Any]) -> Reply | None:
        for index, content in enumerate(contents):
            for position, part in enumerate(content.get("parts") or []):
                call = part.get("functionCall")
                issued = self.signatures.get(_call_key(call)) if call else None
                if issued is None or part.get("thoughtSignature") == issued:
                    continue
                if "thoughtSignature" not in part:
                    return error(
                        f"Function call is missing a thought_signature in functionCall "
                        f"parts. Content {index}, position {position}."
                    )
                return error("Corrupted thought signature.")
        return None
