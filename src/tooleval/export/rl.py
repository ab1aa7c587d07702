"""A small RL environment over the InfraNode suite, and the RL prompt export.

``InfraNodeEnv`` wraps the shared multi-turn driver (``tooleval.runner.conversation``):
``reset()`` returns an
``Observation`` (task, question, chat messages, tools); ``step(action)`` takes a tool call
(``ToolCall``) or a final answer (``str``) and returns a ``StepResult``: the tool result the
model would see, the reward, and whether the episode is done. The reward is sparse: 0.0 until
the episode ends, then 1.0 when the episode scorer's outcome is ``success`` (else 0.0);
``info`` carries the outcome class, the episode score and the first-call score. The API is
the in-process replica unless a transport is given: no keys, no network.

``rl_prompts`` exports the same starting points as JSONL for offline trainers, with the gold
call so a reward can be computed by ``tooleval.scoring.score_call``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tooleval.records import GenerationResponse, NativeToolCall, Task, ToolCall
from tooleval.runner.conversation import Conversation
from tooleval.runner.item import build_request
from tooleval.runner.records import RunConfig
from tooleval.suites import Suite
from tooleval.suites.infranode import load_suite
from tooleval.suites.infranode.client import Transport

RL_FORMAT = "tooleval-rl/1"


@dataclass(frozen=True)
class Observation:
    task_id: str
    category: str
    question: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class StepResult:
    observation: str
    reward: float
    done: bool
    info: dict[str, Any] = field(default_factory=dict)


class InfraNodeEnv:
    """reset -> Observation; step(ToolCall | str) -> StepResult. One episode at a time."""

    def __init__(
        self,
        suite: Suite[Task] | None = None,
        transport: Transport | None = None,
        max_steps: int = 4,
        max_result_chars: int = 4000,
    ) -> None:
        self.suite = suite or load_suite(max_result_chars=max_result_chars, transport=transport)
        self.config = RunConfig(mode="native", max_rounds=max_steps)
        self._conversation: Conversation | None = None
        self._rng = random.Random()

    def reset(self, task_id: str | None = None, *, seed: int | None = None) -> Observation:
        """Start an episode on ``task_id`` (or a random task; ``seed`` makes it repeatable)."""
        if seed is not None:
            self._rng.seed(seed)
        task = self._task(task_id) if task_id else self._rng.choice(self.suite.tasks)
        self._conversation = Conversation(task, 0, self.suite, self.config)
        return observation(self.suite, task)

    def _task(self, task_id: str) -> Task:
        for task in self.suite.tasks:
            if task.id == task_id:
                return task
        raise KeyError(f"unknown task id {task_id!r}")

    def step(self, action: ToolCall | str) -> StepResult:
        conversation = self._conversation
        if conversation is None or conversation.done:
            raise RuntimeError("call reset() before step(), and again after done")
        before = len(conversation.messages)
        conversation.answer(as_response(action, conversation.rounds))
        new = conversation.messages[before:]
        seen = "\n".join(m.content or "" for m in new if m.role != "assistant")
        if not conversation.done:
            return StepResult(seen, 0.0, False, {"round": conversation.rounds})
        return self._final(seen, conversation)

    def _final(self, text: str, conversation: Conversation) -> StepResult:
        record = conversation.record()
        score = record.score
        info: dict[str, Any] = {
            "outcome": record.outcome,
            "score": score.to_json() if score is not None else None,
            "first_call": asdict(record.first_call) if record.first_call else None,
        }
        return StepResult(text, float(score.success) if score else 0.0, True, info)


def as_response(action: ToolCall | str, round_no: int) -> GenerationResponse:
    """A model turn from an action: a native tool call, or a final text answer."""
    if isinstance(action, str):
        return GenerationResponse(text=action)
    arguments = json.dumps(dict(action.arguments), ensure_ascii=False)
    call = NativeToolCall(action.name, arguments, f"call_{round_no + 1}_0")
    return GenerationResponse(text=None, tool_calls=(call,))


def observation(suite: Suite[Task], task: Task) -> Observation:
    request = build_request(task, suite, RunConfig(mode="native"))
    messages = tuple({"role": m.role, "content": m.content} for m in request.messages)
    tools = tuple(tool.to_openai() for tool in suite.tools)
    return Observation(task.id, task.category, task.question, messages, tools)


def rl_prompts(suite: Suite[Task], tasks: Sequence[Task] | None = None) -> Iterator[dict[str, Any]]:
    """One RL starting point per task: prompt messages, tools and the gold for the reward."""
    for task in tasks if tasks is not None else suite.tasks:
        obs = observation(suite, task)
        yield {
            "format": RL_FORMAT,
            "id": f"{suite.name}/{task.id}",
            "task_id": task.id,
            "category": task.category,
            "suite": suite.name,
            "suite_version": suite.version,
            "tools_hash": suite.tools_hash,
            "messages": list(obs.messages),
            "tools": list(obs.tools),
            "gold": {
                "call": task.gold.to_json(),
                "alternatives": {k: list(v) for k, v in task.alternatives.items()},
            },
            "provenance": dict(task.provenance),
        }
