"""An optional judge model for final answers the deterministic check cannot decide.

The deterministic check (``grounding``) is the score. When it finds nothing wrong but does not
recognise the asked facts either (``answer_decided`` 0: phrasing it cannot read), it fails the
answer as ``ungrounded``; a judge (any configured backend, ``--judge-backend/--judge-model``)
then reads the question, the tool results exactly as the model saw them and the answer, and
says ``correct`` or ``incorrect``. ``--judge-all`` asks it about every answer whose calls were
right (to measure agreement). Its verdicts are a separate metric, ``success_with_judge``
(deterministic outcome where decided, the judge's where not), beside ``success``; they never
change ``success``. Prompt, raw reply and verdict are stored per item (``add_judge``).

The judge's requests go through a ``generate`` function given by the caller (the command
passes the shared request path, so retries, pacing and Ctrl-C behave as for the model).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import mean
from typing import Any

from tooleval.providers.base import ProviderError
from tooleval.records import (
    ConversationRecord,
    GenerationRequest,
    GenerationResponse,
    Message,
    Task,
)
from tooleval.suites.infranode.episodes.records import EpisodeScore

JUDGE_PROMPT_VERSION = "judge-de/1"
JUDGE_MAX_TOKENS = 300
ANSWER_OUTCOMES = frozenset(
    {"success", "ungrounded", "contradicted", "invented_data", "gap_not_reported"}
)
"""Outcomes reached only after the calls were right: the final answer decides them."""
SYSTEM = (
    "Du prüfst die Schlussantwort eines Assistenten, der Werkzeuge einer Daten-API benutzt hat. "
    "Du bekommst die Frage, die Werkzeugergebnisse genau so, wie der Assistent sie gesehen hat, "
    "und seine Antwort. Die Antwort ist korrekt, wenn sie die Frage beantwortet, alle genannten "
    "Werte und Namen zur richtigen Stadt, Station oder Größe mit den Ergebnissen übereinstimmen "
    "(sinnvolles Runden ist erlaubt) und sie nichts behauptet, was nicht in den Ergebnissen "
    "steht. Fehlen die Daten (not_covered), ist nur eine Antwort korrekt, die das sagt. "
    'Antworte nur mit JSON: {"verdict": "correct" oder "incorrect", "reason": "<ein Satz>"}.'
)
_JSON = re.compile(r"\{.*\}", re.DOTALL)
Generate = Callable[[GenerationRequest], GenerationResponse]
Key = tuple[str, int]


@dataclass(frozen=True)
class JudgeVerdict:
    verdict: str  # "correct", "incorrect", "unreadable" (reply not understood), "error"
    reason: str
    prompt: tuple[Message, ...]
    raw: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "prompt": [{"role": m.role, "content": m.content} for m in self.prompt],
            "raw": self.raw,
        }


@dataclass(frozen=True)
class JudgeRun:
    """Which judge ran (``setup``: backend, model, endpoint, key variable name — never a
    key), whether it saw every answer, and its verdicts by (task id, repeat)."""

    setup: Mapping[str, Any]
    every_answer: bool
    verdicts: Mapping[Key, JudgeVerdict]


def shown_results(record: ConversationRecord) -> list[str]:
    """The tool results of the transcript as the model saw them: every ``tool`` message and
    every user message after the question (prompt-mode feedback)."""
    first_user = next((i for i, m in enumerate(record.transcript) if m.role == "user"), None)
    if first_user is None:
        return []
    later = record.transcript[first_user + 1 :]
    return [m.content for m in later if m.role in ("tool", "user") and m.content]


def judge_prompt(task: Task, record: ConversationRecord) -> tuple[Message, ...]:
    results = "\n".join(shown_results(record)) or "(keine)"
    user = (
        f"Frage: {task.question}\n\nWerkzeugergebnisse:\n{results}\n\n"
        f"Antwort des Assistenten:\n{record.final_answer or ''}"
    )
    return (Message("system", SYSTEM), Message("user", user))


def parse_verdict(text: str | None) -> tuple[str, str]:
    """(verdict, reason) from the judge's reply; ``unreadable`` when it is not understood."""
    match = _JSON.search(text or "")
    try:
        data = json.loads(match.group()) if match else None
    except json.JSONDecodeError:
        data = None
    verdict = str(data.get("verdict", "")).strip().casefold() if isinstance(data, dict) else ""
    if verdict not in ("correct", "incorrect"):
        return "unreadable", (text or "")[:200]
    return verdict, str(data.get("reason", "")) if isinstance(data, dict) else ""


def _score(record: ConversationRecord) -> EpisodeScore | None:
    return record.score if isinstance(record.score, EpisodeScore) else None


def needs_judge(record: ConversationRecord, every_answer: bool) -> bool:
    score = _score(record)
    if score is None or not (record.final_answer or "").strip():
        return False
    if score.outcome not in ANSWER_OUTCOMES:
        return False
    return every_answer or not score.answer_decided


def judge_one(generate: Generate, task: Task, record: ConversationRecord) -> JudgeVerdict:
    prompt = judge_prompt(task, record)
    request = GenerationRequest(messages=prompt, max_tokens=JUDGE_MAX_TOKENS, temperature=0.0)
    try:
        response = generate(request)
    except ProviderError as error:
        return JudgeVerdict("error", str(error), prompt, None)
    verdict, reason = parse_verdict(response.text)
    return JudgeVerdict(verdict, reason, prompt, response.text)


def judge_records(
    generate: Generate,
    tasks: Sequence[Task],
    records: Sequence[ConversationRecord],
    every_answer: bool = False,
) -> dict[Key, JudgeVerdict]:
    """Verdicts by (task id, repeat) for the records that need a judge (``needs_judge``)."""
    by_id = {task.id: task for task in tasks}
    return {
        r.key: judge_one(generate, by_id[r.task_id], r)
        for r in records
        if r.task_id in by_id and needs_judge(r, every_answer)
    }


def _judged(verdict: JudgeVerdict | None) -> bool | None:
    """True/False for a correct/incorrect verdict, None without a usable one."""
    if verdict is None or verdict.verdict not in ("correct", "incorrect"):
        return None
    return verdict.verdict == "correct"


def judge_metrics(
    records: Sequence[ConversationRecord], verdicts: Mapping[Key, JudgeVerdict]
) -> dict[str, Any]:
    """``success_with_judge`` and how the judge and the deterministic check compare."""
    with_judge: list[int] = []
    agree: list[int] = []
    for record in records:
        score = _score(record)
        if score is None:
            continue
        judged = _judged(verdicts.get(record.key))
        if judged is not None and not score.answer_decided:
            with_judge.append(int(judged))
        else:
            with_judge.append(score.success)
        if judged is not None and score.answer_decided:
            agree.append(int(judged == bool(score.success)))
    asked = list(verdicts.values())
    return {
        "judge_asked": len(asked),
        "judge_correct": sum(1 for v in asked if v.verdict == "correct"),
        "judge_unreadable": sum(1 for v in asked if v.verdict in ("unreadable", "error")),
        "success_with_judge": mean(with_judge) if with_judge else None,
        "judge_agreement": mean(agree) if agree else None,
    }


def add_judge(
    document: dict[str, Any], records: Sequence[ConversationRecord], judge: JudgeRun
) -> None:
    """Add the judge's setup, metrics and per-item verdicts to a results document."""
    document["judge"] = {
        **dict(judge.setup),
        "prompt_version": JUDGE_PROMPT_VERSION,
        "every_answer": judge.every_answer,
    }
    document["metrics"].update(judge_metrics(records, judge.verdicts))
    for item in document["items"]:
        verdict = judge.verdicts.get((item["task_id"], item["repeat"]))
        item["judge"] = verdict.to_json() if verdict else None
