"""SFT export: chat-format JSONL in the OpenAI tool-calling format, gold-verified only.

Two sources:

- ``gold_examples``: per task, system + user + the gold call as an assistant tool call + the
  API's answer as a ``tool`` message. A task is exported only when its gold call, executed
  now, answers with HTTP 200 and the ``source_status`` its provenance records (verified).
- ``episode_examples``: the successful episodes of a ``tooleval episodes`` results file, with
  their final answers. Their calls are executed again (deterministic on the replica) to rebuild
  the tool messages, and the episode is **scored again** with the current episode scorer under
  the cap the model was shown (the file's ``max_result_chars``): only episodes that succeed now
  are exported, so a results file written by an older, laxer scorer cannot leak wrong answers
  into training data. An episode with an invalid call, or whose suite version differs, is
  skipped.

Tool results are the same slimmed, size-capped text the episodes feed to models.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tooleval.records import ExecutedCall, Task, ToolCall, ToolSpec
from tooleval.suites import Suite
from tooleval.suites.infranode.api import ApiResponse
from tooleval.suites.infranode.client import Transport, body_status, execute_tool, tool_request
from tooleval.suites.infranode.episodes.feedback import result_text
from tooleval.suites.infranode.episodes.scoring import DEFAULT_RESULT_CHARS, score_episode
from tooleval.suites.infranode.prompting import system_prompt

SFT_FORMAT = "tooleval-sft/1"


def openai_call(call: ToolCall, call_id: str) -> dict[str, Any]:
    arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def request_line(call: ToolCall) -> str:
    path, query = tool_request(call.name, call.arguments)
    return f"GET {path}" + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def verified(task: Task, answer: ApiResponse) -> bool:
    """HTTP 200 and the source status the provenance recorded (compare: every city's)."""
    expected = task.provenance.get("source_status", "ok")
    return answer.status == 200 and body_status(answer.body) == expected


def tool_turns(
    calls: Sequence[tuple[ToolCall, ApiResponse]], round_no: int, max_chars: int
) -> list[dict[str, Any]]:
    """One assistant message with the calls, then one tool message per call."""
    ids = [f"call_{round_no}_{i}" for i in range(len(calls))]
    turns: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [openai_call(c, i) for (c, _), i in zip(calls, ids, strict=True)],
        }
    ]
    for (call, answer), call_id in zip(calls, ids, strict=True):
        text = result_text(answer.body, max_chars)
        turns.append({"role": "tool", "tool_call_id": call_id, "name": call.name, "content": text})
    return turns


def base_record(suite: Suite[Task], task: Task, source: str) -> dict[str, Any]:
    return {
        "format": SFT_FORMAT,
        "id": f"{suite.name}/{task.id}/{source}",
        "task_id": task.id,
        "category": task.category,
        "suite": suite.name,
        "suite_version": suite.version,
        "tools_hash": suite.tools_hash,
        "source": source,
        "tools": [tool.to_openai() for tool in suite.tools],
    }


def opening(task: Task, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": system_prompt(tools, "native")},
        {"role": "user", "content": task.question},
    ]


def gold_examples(
    suite: Suite[Task], transport: Transport, max_chars: int = 4000
) -> Iterator[dict[str, Any]]:
    """One example per task whose gold call verifies against ``transport``."""
    for task in suite.tasks:
        answer = execute_tool(transport, task.gold.name, task.gold.arguments)
        if not verified(task, answer):
            continue
        record = base_record(suite, task, "gold")
        record["messages"] = opening(task, suite.tools) + tool_turns(
            [(task.gold, answer)], 1, max_chars
        )
        record["provenance"] = {
            **dict(task.provenance),
            "verified": {"request": request_line(task.gold), "status": answer.status},
        }
        yield record


def _episode_rounds(item: Mapping[str, Any]) -> list[list[ToolCall]]:
    rounds: dict[int, list[ToolCall]] = {}
    for call in item.get("calls") or []:
        rounds.setdefault(int(call["round"]), []).append(ToolCall(call["name"], call["arguments"]))
    return [rounds[key] for key in sorted(rounds)]


def executed_call(index: int, round_no: int, call: ToolCall, answer: ApiResponse) -> ExecutedCall:
    """A call executed again for re-scoring, recorded as the episode driver records it."""
    return ExecutedCall(
        index=index,
        name=call.name,
        arguments=call.arguments,
        result=answer.body,
        round=round_no,
        status=answer.status,
        source_status=body_status(answer.body),
    )


def episode_example(
    suite: Suite[Task],
    task: Task,
    item: Mapping[str, Any],
    transport: Transport,
    max_chars: int,
    shown_chars: int = DEFAULT_RESULT_CHARS,
) -> dict[str, Any] | None:
    """The SFT example of one episode item that succeeds when scored again, else None.

    ``shown_chars`` is the result cap the model saw in the episode (for scoring);
    ``max_chars`` the cap of the exported tool messages."""
    score = item.get("score") or {}
    if item.get("outcome") != "success" or score.get("invalid_calls", 1) != 0:
        return None
    messages = opening(task, suite.tools)
    executed: list[ExecutedCall] = []
    for number, calls in enumerate(_episode_rounds(item), start=1):
        answers = [execute_tool(transport, c.name, c.arguments) for c in calls]
        if any(a.status != 200 for a in answers):
            return None
        pairs = list(zip(calls, answers, strict=True))
        executed += [
            executed_call(len(executed) + i, number, c, a) for i, (c, a) in enumerate(pairs)
        ]
        messages += tool_turns(pairs, number, max_chars)
    gold = execute_tool(transport, task.gold.name, task.gold.arguments)
    final = str(item.get("final_answer") or "")
    steps = int(item.get("rounds") or 0)
    rescored = score_episode(task, executed, final, gold, steps, shown_chars)
    if not rescored.success:
        return None
    messages.append({"role": "assistant", "content": final})
    record = base_record(suite, task, "episode")
    record["messages"] = messages
    record["provenance"] = {**dict(task.provenance), "episode": {"outcome": "success"}}
    return record


def episode_examples(
    suite: Suite[Task], document: Mapping[str, Any], transport: Transport, max_chars: int = 4000
) -> Iterator[dict[str, Any]]:
    """SFT examples from an InfraNode multi-turn results document of the same suite version."""
    if (document.get("suite") or {}).get("version") != suite.version:
        return
    tasks = {task.id: task for task in suite.tasks}
    config = document.get("config") or {}
    model, shown = config.get("model"), int(config.get("max_result_chars") or DEFAULT_RESULT_CHARS)
    for item in document.get("items") or []:
        task = tasks.get(item.get("task_id", ""))
        example = episode_example(suite, task, item, transport, max_chars, shown) if task else None
        if example is not None:
            example["provenance"]["episode"]["model"] = model
            yield example
