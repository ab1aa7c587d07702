"""A scenario transcript as the headline check reads it: the scenario, per model round the
calls (name, parsed arguments, the simulator's result, whether the call passed the checks and
reached the simulator) and the final answer text.

``from_run`` reads it off a conversation record of tooleval's multi-turn driver
(``tooleval.runner.conversation``); the headline rule (``correctness.judge``) depends on this
record only, not on the driver.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tooleval.records import ConversationRecord
from tooleval.suites.cesium.environment import schema_valid
from tooleval.suites.cesium.scenarios import Scenario


@dataclass(frozen=True)
class TranscriptCall:
    name: str
    arguments: Mapping[str, Any]  # parsed; {} when the text was not a JSON object
    result: Mapping[str, Any]
    valid: bool = True  # schema-valid and sent (only such calls reach the simulator)


@dataclass(frozen=True)
class IndexedCall:
    """A call with its model round (1-based) and its position in the whole run (0-based)."""

    round: int
    index: int
    call: TranscriptCall


@dataclass(frozen=True)
class ScenarioTranscript:
    scenario: Scenario
    rounds: tuple[tuple[TranscriptCall, ...], ...]  # per model round that called tools: its calls
    final_text: str | None = None  # the answer of the round without calls; None: no such round

    def calls(self) -> Iterator[IndexedCall]:
        index = 0
        for number, calls in enumerate(self.rounds, start=1):
            for call in calls:
                yield IndexedCall(number, index, call)
                index += 1


def from_run(scenario: Scenario, record: ConversationRecord) -> ScenarioTranscript:
    """The transcript of one driver record. A call refused before execution (unreadable, not
    offered, invalid arguments) is kept as not valid; the turn that answered without a call
    gives ``final_text`` (None when the run ended without one, e.g. after ``max_rounds``)."""
    count = max((c.round for c in record.calls), default=0)
    rounds: list[list[TranscriptCall]] = [[] for _ in range(count)]
    for call in record.calls:
        made = TranscriptCall(call.name, call.arguments, call.result, schema_valid(call))
        rounds[call.round - 1].append(made)
    return ScenarioTranscript(scenario, tuple(tuple(r) for r in rounds), record.final_answer)
