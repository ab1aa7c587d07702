"""A deterministic OpenAI-compatible loopback server that answers from the question.

Every InfraNode question maps to one fixed answer (the gold call, a wrong tool, wrong
arguments or prose, chosen by a hash of the question), so a run's results depend only on which
items were asked, never on the order, timing or number of processes. ``hook`` sees every
request before it is answered (crash tests kill the client from there); ``fault`` may replace
the answer with a misbehaviour (fault-matrix tests). A request the OpenAI API would refuse
is refused as it would be (``strict_openai``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from tooleval.suites import load_suite

from .base import LoopbackServer, Received, Reply
from .strict_openai import OpenAIRules

Fault = Reply  # a misbehaviour: an HTTP answer, a delay, a dropped connection, a cut body


def completion(message: Mapping[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-gold",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gold",
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def answer_for(question: str, gold: Mapping[str, Any]) -> str:
    """The fixed answer text for a question: mostly right, sometimes wrong in one of 3 ways."""
    kind = hashlib.sha256(question.encode()).digest()[0] % 8
    if kind == 5:
        return json.dumps({"name": "get_city_overview", "arguments": gold["arguments"]})
    if kind == 6:
        return json.dumps({"name": gold["name"], "arguments": {"slug": "atlantis"}})
    if kind == 7:
        return "Das weiß ich leider nicht."
    return json.dumps({"name": gold["name"], "arguments": gold["arguments"]})


def gold_answers() -> dict[str, str]:
    """question -> answer text for every InfraNode task."""
    return {
        task.question: answer_for(task.question, task.gold.to_json())
        for task in load_suite("infranode").tasks
    }


Hook = Callable[[int, str], None]
FaultRule = Callable[[int, str], Fault | None]


def question_of(received: Received) -> str:
    """The last message's content of a chat-completions request ("" when there is none)."""
    try:
        return str(received.body["messages"][-1]["content"])
    except (KeyError, IndexError, TypeError):
        return ""


class GoldServer(LoopbackServer):
    """Use as a context manager; ``base_url`` ends in ``/v1``. ``requests`` counts answers
    asked for; ``questions`` lists the user message of every request, in arrival order."""

    def __init__(self, hook: Hook | None = None, fault: FaultRule | None = None) -> None:
        self.answers = gold_answers()
        self.rules = OpenAIRules("openai")
        self.hook = hook
        self.fault = fault
        super().__init__(self._answer, prefix="/v1")

    def __enter__(self) -> GoldServer:
        super().__enter__()
        return self

    @property
    def requests(self) -> int:
        return len(self.received)

    @property
    def questions(self) -> list[str]:
        return [question_of(r) for r in self.received]

    @property
    def headers(self) -> list[dict[str, str]]:
        return [dict(r.headers) for r in self.received]

    @property
    def bodies(self) -> list[bytes]:
        return [r.raw for r in self.received]

    def _answer(self, number: int, received: Received) -> Fault:
        question = question_of(received)
        if self.hook is not None:
            self.hook(number, question)
        fault = self.fault(number, question) if self.fault else None
        if fault is not None:
            return fault
        rejected = self.rules.check(received)  # what the OpenAI API would refuse
        if rejected is not None:
            return rejected
        text = self.answers.get(question, "unbekannte Frage")
        return Fault(body=completion({"role": "assistant", "content": text}))
