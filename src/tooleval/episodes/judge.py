"""An optional judge model for final answers the deterministic check cannot decide.

The deterministic check (``grounding``) is the score. When it finds nothing wrong but does not
recognise the asked facts either (``answer_decided`` 0: phrasing it cannot read), it fails the
answer as ``ungrounded``; a judge (any configured backend, ``--judge-backend/--judge-model``)
then reads the question, the tool results exactly as the model saw them and the answer, and
says ``correct`` or ``incorrect``. ``--judge-all`` asks it about every answer whose calls were
right (to measure agreement). Its verdicts are a separate metric, ``success_with_judge``
(deterministic outcome where decided, the judge's where not), beside ``success``; they never
change ``success``. Prompt, raw reply and verdict are stored per item.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import mean
from typing import Any

from tooleval.episodes.records import EpisodeRecord
from tooleval.providers.base import Provider, ProviderError
from tooleval.records import GenerationRequest, Message, Task

JUDGE_PROMPT_VERSION = "judge-de/1"
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


def shown_results(record: EpisodeRecord) -> list[str]:
    """The tool results of the transcript, as the model saw them."""
    return [
        m.content
        for m in record.transcript[2:]
        if m.role in ("tool", "user") and m.content and m is not record.transcript[-1]
    ]


def judge_prompt(task: Task, record: EpisodeRecord) -> tuple[Message, ...]:
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


def needs_judge(record: EpisodeRecord, every_answer: bool) -> bool:
    score = record.score
    if score is None or not (record.final_answer or "").strip():
        return False
    if score.outcome not in ANSWER_OUTCOMES:
        return False
    return every_answer or not score.answer_decided


def judge_one(provider: Provider, task: Task, record: EpisodeRecord) -> JudgeVerdict:
    prompt = judge_prompt(task, record)
    request = GenerationRequest(messages=prompt, max_tokens=300, temperature=0.0)
    try:
        response = provider.generate(request)
    except ProviderError as error:
        return JudgeVerdict("error", str(error), prompt, None)
    verdict, reason = parse_verdict(response.text)
    return JudgeVerdict(verdict, reason, prompt, response.text)


def judge_records(
    provider: Provider,
    tasks: Sequence[Task],
    records: Sequence[EpisodeRecord],
    every_answer: bool = False,
) -> dict[str, JudgeVerdict]:
    """Verdicts by task id for the records that need a judge (see ``needs_judge``)."""
    by_id = {task.id: task for task in tasks}
    return {
        r.task_id: judge_one(provider, by_id[r.task_id], r)
        for r in records
        if r.task_id in by_id and needs_judge(r, every_answer)
    }


def judge_metrics(
    records: Sequence[EpisodeRecord], verdicts: Mapping[str, JudgeVerdict]
) -> dict[str, Any]:
    """``success_with_judge`` and how the judge and the deterministic check compare."""
    scored = [r for r in records if r.score is not None]
    with_judge = []
    agree = []
    for record in scored:
        assert record.score is not None
        verdict = verdicts.get(record.task_id)
        judged = verdict is not None and verdict.verdict in ("correct", "incorrect")
        if judged and not record.score.answer_decided:
            with_judge.append(int(verdict.verdict == "correct"))  # type: ignore[union-attr]
        else:
            with_judge.append(record.score.success)
        if judged and record.score.answer_decided:
            agree.append(int((verdict.verdict == "correct") == bool(record.score.success)))  # type: ignore[union-attr]
    asked = [v for v in verdicts.values()]
    return {
        "judge_asked": len(asked),
        "judge_correct": sum(1 for v in asked if v.verdict == "correct"),
        "judge_unreadable": sum(1 for v in asked if v.verdict in ("unreadable", "error")),
        "success_with_judge": mean(with_judge) if with_judge else None,
        "judge_agreement": mean(agree) if agree else None,
    }
