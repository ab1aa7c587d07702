"""A scenario transcript as the headline check reads it, independent of the loop that made it.

``ScenarioTranscript`` = the scenario, per model round the calls (name, parsed arguments, the
simulator's result, whether the call was schema-valid and sent) and the final answer text.
Two ways to get one:

- ``replay``: play scripted rounds (``[[(name, arguments), …], …]`` plus a final text) through
  argument validation and a fresh simulated scene, exactly as a live run would execute them;
- ``from_run``: adapt a run record of ``loop.run_scenario`` (``ScenarioRun``/``CallRecord``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooleval.suites.cesium.catalogue import load_catalogue
from tooleval.suites.cesium.routing import route_original
from tooleval.suites.cesium.scenarios import Scenario
from tooleval.suites.cesium.simulator import SimulatedScene, failure
from tooleval.suites.cesium.validation import check_call

if TYPE_CHECKING:
    from tooleval.suites.cesium.loop import ScenarioRun

NOT_SENT = "tool was not in the selected tool set"


@dataclass(frozen=True)
class TranscriptCall:
    name: str
    arguments: Mapping[str, Any]  # parsed; {} when the text was not a JSON object
    result: Mapping[str, Any]
    valid: bool = True  # schema-valid and sent (only valid calls reach the simulator)


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


def _parsed(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def execute(
    name: str, arguments: object, sent: Sequence[str], scene: SimulatedScene
) -> TranscriptCall:
    """Validate one call as the loop does and run it on ``scene`` when valid."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    tool = load_catalogue().by_name().get(name)
    if tool is None or name not in sent:
        return TranscriptCall(name, _parsed(text), failure(NOT_SENT), valid=False)
    check = check_call(dict(tool.spec.parameters), text)
    if check.issues or check.arguments is None:
        return TranscriptCall(name, _parsed(text), failure("; ".join(check.issues)), valid=False)
    return TranscriptCall(name, check.arguments, scene.execute(name, check.arguments))


def replay(
    scenario: Scenario,
    rounds: Sequence[Sequence[tuple[str, object]]],
    final_text: str | None,
    sent: Sequence[str] | None = None,
) -> ScenarioTranscript:
    """Execute scripted rounds on a fresh scene. ``sent``: the tools the model had (default:
    what the original router sends for the prompt); arguments are objects or raw JSON text."""
    tools = tuple(sent) if sent is not None else route_original(scenario.prompt).tools
    scene = SimulatedScene()
    played = tuple(tuple(execute(name, args, tools, scene) for name, args in r) for r in rounds)
    return ScenarioTranscript(scenario, played, final_text)


def from_run(run: ScenarioRun) -> ScenarioTranscript:
    """The transcript of a ``loop.run_scenario`` record. The round that answered without a
    call gives ``final_text``; it is not a round of calls."""
    count = max((c.round for c in run.calls), default=0)
    rounds: list[list[TranscriptCall]] = [[] for _ in range(count)]
    for record in run.calls:
        call = TranscriptCall(record.name, _parsed(record.arguments), record.result, record.valid)
        rounds[record.round - 1].append(call)
    return ScenarioTranscript(run.scenario, tuple(tuple(r) for r in rounds), run.final_text)
