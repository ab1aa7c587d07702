"""The multi-turn loop: one scenario against one provider over simulated tools.

Round by round: send system + user + history with the routed tools; decode and validate every
native tool call; execute valid calls on the simulated scene; feed each result back as a
``tool`` message; stop when every required tool has a valid call, when the model answers
without a tool call, or after ``max_rounds``. Provider errors keep the partial transcript.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tooleval.providers.base import Provider, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse, Message, NativeToolCall
from tooleval.suites.cesium.catalogue import Catalogue
from tooleval.suites.cesium.routing import Selection
from tooleval.suites.cesium.scenarios import ExecutedCall, Scenario, StepOutcome
from tooleval.suites.cesium.simulator import SimulatedScene
from tooleval.suites.cesium.validation import check_call
from tooleval.suites.cesium.workflow import check_workflow

Sleep = Callable[[float], None]
Clock = Callable[[], float]

OUTCOMES = ("completed", "routing_miss", "provider_error", "budget_exhausted", "max_rounds")

_SYSTEM = {
    "en": (
        "You operate a CesiumJS globe in the user's browser through the tools provided. "
        "Carry out map actions only by calling tools; you may need several turns. For a place "
        "name, call geocode first and use the coordinates it returns. Use only values the user "
        "gave, values returned by tools, or schema defaults. Never write tool calls as text and "
        "never claim an action you did not perform with a tool.\n"
        "Tool scope for this turn: {scope}. Judge what you can do only by these tools.\n"
        "Answer in English."
    ),
    "zh-CN": (
        "你通过提供的工具操作用户浏览器中的 CesiumJS 地球。地图操作只能通过调用工具完成，"
        "可以分多轮进行。遇到地名时先调用 geocode，并使用它返回的坐标。只使用用户给出的值、"
        "工具返回的值或 schema 默认值。不要把工具调用写成文本，"
        "也不要声称完成了没有调用工具的操作。\n"
        "本轮工具范围：{scope}。只根据这些工具判断能力。\n"
        "请用简体中文回答。"
    ),
}


def system_prompt(locale: str, selection: Selection) -> str:
    scope = ", ".join(selection.toolsets) or "none"
    return _SYSTEM.get(locale, _SYSTEM["en"]).format(scope=scope)


@dataclass(frozen=True)
class LoopConfig:
    max_rounds: int = 4
    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int | None = None
    max_retries: int = 2
    max_backoff_s: float = 8.0


DEFAULT_CONFIG = LoopConfig()


class BudgetExhausted(Exception):
    """tooleval's own --max-requests cap was reached."""


@dataclass
class RequestGate:
    """Caps and paces requests for a whole run: ``max_requests`` and ``delay_s`` between starts."""

    max_requests: int
    delay_s: float = 0.0
    sleep: Sleep = time.sleep
    clock: Clock = time.monotonic
    count: int = 0
    _last_start: float | None = None

    def acquire(self) -> None:
        if self.count >= self.max_requests:
            raise BudgetExhausted(f"request budget exhausted ({self.max_requests})")
        if self._last_start is not None and self.delay_s > 0:
            wait = self.delay_s - (self.clock() - self._last_start)
            if wait > 0:
                self.sleep(wait)
        self.count += 1
        self._last_start = self.clock()


@dataclass(frozen=True)
class CallRecord:
    round: int
    index: int
    call_id: str
    name: str
    arguments: str
    valid: bool
    issues: tuple[str, ...]
    kind: str  # required | allowed | unexpected | not_sent | hallucinated
    destructive: bool
    result: dict[str, Any]

    @property
    def unexpected(self) -> bool:
        return self.kind not in ("required", "allowed")


@dataclass
class ScenarioRun:
    scenario: Scenario
    repetition: int
    selection: Selection
    system_prompt: str
    outcome: str = "completed"
    rounds: int = 0
    calls: list[CallRecord] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)
    steps: tuple[StepOutcome, ...] = ()
    error: str | None = None
    final_text: str | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def routing_missing(self) -> tuple[str, ...]:
        return tuple(t for t in self.scenario.required_tools if t not in self.selection.tools)

    @property
    def valid_required(self) -> tuple[str, ...]:
        valid = {c.name for c in self.calls if c.valid}
        return tuple(t for t in self.scenario.required_tools if t in valid)

    @property
    def passed(self) -> bool:
        """Upstream criterion: no routing miss and every required tool has a valid call."""
        return not self.routing_missing and len(self.valid_required) == len(
            self.scenario.required_tools
        )

    @property
    def workflow_passed(self) -> bool:
        return bool(self.steps) and all(s.status == "matched" for s in self.steps)

    @property
    def scored(self) -> bool:
        """Whether the model answered (the run counts toward model-quality metrics)."""
        return self.outcome in ("completed", "max_rounds")


def classify(name: str, scenario: Scenario, selection: Selection, catalogue: Catalogue) -> str:
    if name not in catalogue.by_name():
        return "hallucinated"
    if name not in selection.tools:
        return "not_sent"
    if name in scenario.required_tools:
        return "required"
    return "allowed" if name in scenario.allowed_tools else "unexpected"


def _is_destructive(name: str, catalogue: Catalogue) -> bool:
    tool = catalogue.by_name().get(name)
    return bool(tool and tool.annotations.get("destructiveHint"))


def handle_call(
    run: ScenarioRun, call: NativeToolCall, call_id: str, scene: SimulatedScene, cat: Catalogue
) -> CallRecord:
    """Validate one native call, execute it if valid, and record it (never raises)."""
    kind = classify(call.name, run.scenario, run.selection, cat)
    issues: tuple[str, ...]
    if not call.name:
        issues = ("missing function name",)
    elif kind in ("hallucinated", "not_sent"):
        issues = ("tool was not in the selected tool set",)
    else:
        check = check_call(dict(cat.by_name()[call.name].spec.parameters), call.arguments)
        issues = check.issues
    if issues:
        result: dict[str, Any] = {"success": False, "error": "; ".join(issues)}
    else:
        args = check.arguments or {}
        result = scene.execute(call.name, args)
    index = len(run.calls)
    return CallRecord(
        run.rounds, index, call_id, call.name or "<missing>", call.arguments, not issues,
        issues, kind, _is_destructive(call.name, cat), result,
    )  # fmt: skip


def generate_with_retry(
    provider: Provider,
    request: GenerationRequest,
    gate: RequestGate,
    config: LoopConfig,
    sleep: Sleep,
) -> GenerationResponse:
    """One model turn: bounded retries on retryable errors, honouring ``retry_after``."""
    attempt = 0
    while True:
        gate.acquire()
        try:
            return provider.generate(request)
        except ProviderError as exc:
            if not exc.retryable or attempt >= config.max_retries:
                raise
            backoff = exc.retry_after if exc.retry_after is not None else 0.5 * 2**attempt
            sleep(min(config.max_backoff_s, max(0.0, backoff)))
            attempt += 1


def _with_ids(calls: tuple[NativeToolCall, ...], round_no: int) -> tuple[NativeToolCall, ...]:
    """Give every call an id (``eval-<round>-<i>``, 1-based) when the provider sent none."""
    return tuple(
        NativeToolCall(c.name, c.arguments, c.call_id or f"eval-{round_no}-{i}")
        for i, c in enumerate(calls, start=1)
    )


def _tool_message(record: CallRecord) -> Message:
    content = json.dumps(record.result, ensure_ascii=False, separators=(",", ":"))
    return Message("tool", content, tool_call_id=record.call_id, name=record.name)


def _requirements_met(run: ScenarioRun) -> bool:
    return len(run.valid_required) == len(run.scenario.required_tools)


def play_round(
    run: ScenarioRun, response: GenerationResponse, scene: SimulatedScene, cat: Catalogue
) -> bool:
    """Apply one model answer to the run; True when the loop should stop."""
    calls = _with_ids(response.tool_calls, run.rounds)
    run.transcript.append(Message("assistant", response.text, tool_calls=calls))
    if not calls:
        run.final_text = response.text or ""
        return True
    for call in calls:
        record = handle_call(run, call, call.call_id or "", scene, cat)
        run.calls.append(record)
        run.transcript.append(_tool_message(record))
    return _requirements_met(run)


def _request(run: ScenarioRun, cat: Catalogue, config: LoopConfig) -> GenerationRequest:
    return GenerationRequest(
        messages=tuple(run.transcript),
        tools=cat.specs(run.selection.tools),
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        seed=config.seed,
    )


def _finish(run: ScenarioRun, scene_calls: list[ExecutedCall]) -> ScenarioRun:
    run.steps = check_workflow(run.scenario, scene_calls)
    return run


def _executed(run: ScenarioRun) -> list[ExecutedCall]:
    return [ExecutedCall(c.index, c.name, _args(c), c.result) for c in run.calls if c.valid]


def _args(record: CallRecord) -> dict[str, Any]:
    return dict(json.loads(record.arguments)) if record.arguments.strip() else {}


def run_scenario(
    scenario: Scenario,
    provider: Provider,
    *,
    selection: Selection,
    catalogue: Catalogue,
    gate: RequestGate,
    config: LoopConfig = DEFAULT_CONFIG,
    repetition: int = 1,
    sleep: Sleep = time.sleep,
) -> ScenarioRun:
    prompt = system_prompt(scenario.locale, selection)
    run = ScenarioRun(scenario, repetition, selection, prompt)
    run.transcript = [Message("system", prompt), Message("user", scenario.prompt)]
    if run.routing_missing:
        run.outcome = "routing_miss"
        run.error = "router omitted: " + ", ".join(run.routing_missing)
        return _finish(run, [])
    scene = SimulatedScene()
    run.outcome = "max_rounds"
    for _ in range(config.max_rounds):
        run.rounds += 1
        before = gate.count
        try:
            response = generate_with_retry(
                provider, _request(run, catalogue, config), gate, config, sleep
            )
        except BudgetExhausted as exc:
            run.outcome, run.error = "budget_exhausted", str(exc)
            run.rounds -= 1
            break
        except ProviderError as exc:
            run.outcome, run.error = "provider_error", f"{exc.error_class.value}: {exc}"
            break
        finally:
            run.requests += gate.count - before
        run.input_tokens += response.usage.input_tokens or 0
        run.output_tokens += response.usage.output_tokens or 0
        if play_round(run, response, scene, catalogue):
            run.outcome = "completed"
            break
    return _finish(run, _executed(run))


__all__ = [
    "OUTCOMES",
    "BudgetExhausted",
    "CallRecord",
    "LoopConfig",
    "RequestGate",
    "ScenarioRun",
    "run_scenario",
    "system_prompt",
]
