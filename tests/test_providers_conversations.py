"""Multi-turn InfraNode episodes and Cesium scenarios, end to end through each real provider
module (and its SDK) against the strict loopback server of its wire format, with reasoning
off and on, and a first round whose call has arguments that are no JSON object.

The strict servers refuse what the real APIs refuse (tests/servers/strict_*.py): a history
that lost Gemini's thought signatures or Claude's thinking blocks, a DeepSeek tool turn
without its reasoning_content, an OpenRouter turn without its reasoning_details, invalid
argument JSON replayed to vLLM or Ollama, OpenAI sampling fields a reasoning model rejects.
Every conversation here must reach the model's final answer with no request refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from servers import Reply, ScriptedServer, anthropic_server, gemini_server, openai_server
from tooleval.providers.anthropic import AnthropicProvider
from tooleval.providers.base import Provider
from tooleval.providers.gemini import GeminiProvider
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.records import ConversationRecord
from tooleval.runner import run_conversations
from tooleval.runner.records import RunConfig
from tooleval.suites import load_suite
from tooleval.suites.infranode.client import execute_tool, make_transport

ENV = {"TEST_KEY": "sk-SENTINEL-conversations"}
INFRANODE = load_suite("infranode")
CESIUM = load_suite("cesium")
# A two-step episode: find the station in the city's list, then read its departures board.
TWO_STEP = next(t for t in INFRANODE.tasks if t.category == "two_step" and "Abfahrt" in t.question)
CITY = TWO_STEP.gold.arguments["slug"]
TARGET = TWO_STEP.provenance["target_station"]["eva"]


@dataclass(frozen=True)
class Wire:
    """One provider as a test drives it: its loopback server and how a turn looks on it."""

    name: str
    backend: str
    model: str
    preset: str | None = None
    flavour: str = "openai"

    def serve(self, *replies: Reply) -> ScriptedServer:
        if self.backend == "gemini":
            return gemini_server.serve(*replies)
        if self.backend == "anthropic":
            return anthropic_server.serve(*replies)
        return openai_server.serve(*replies, flavour=self.flavour)

    def provider(self, base_url: str) -> Provider:
        options: dict[str, Any] = {"base_url": base_url, "api_key_env": "TEST_KEY", "env": ENV}
        if self.backend == "gemini":
            return GeminiProvider(self.model, **options)
        if self.backend == "anthropic":
            return AnthropicProvider(self.model, **options)
        return OpenAICompatProvider(self.model, preset=self.preset, **options)

    def call(self, turn: int, name: str, args: Any, thinking: bool) -> Reply:
        """One tool call as the model's turn ``turn``; ``args`` None: arguments that are no
        JSON object (cut-off JSON text where the format carries text)."""
        if self.backend == "gemini":
            signed = thinking or self.model.startswith("gemini-3")  # Gemini 3 always signs
            thought = "Welches Werkzeug?" if thinking else None
            bad = ["kaputt"]
            return gemini_server.function_calls(
                (name, bad if args is None else args), signed=signed, ids=True, thought=thought
            )
        if self.backend == "anthropic":
            return anthropic_server.tool_use(
                (name, "kaputt" if args is None else args),
                thinking="Welches Werkzeug?" if thinking else None,
                redacted=thinking and turn == 2,
                prefix=f"toolu_{turn}",
            )
        extra: dict[str, Any] = {}
        if thinking and self.flavour == "deepseek":
            extra["reasoning_content"] = "Welches Werkzeug?"
        if thinking and self.flavour == "openrouter":
            extra["reasoning_details"] = [
                {"type": "reasoning.encrypted", "data": f"enc-{turn}", "id": f"rd-{turn}"}
            ]
        text = '{"slug": "duess' if args is None else args
        return openai_server.tool_calls((name, text), prefix=f"call_{turn}", **extra)

    def text(self, content: str) -> Reply:
        module: Any = {"gemini": gemini_server, "anthropic": anthropic_server}.get(
            self.backend, openai_server
        )
        reply: Reply = module.text(content)
        return reply


WIRES = (
    Wire("openai-gpt-5", "openai", "gpt-5", "openai"),
    Wire("openai-gpt-5.1", "openai", "gpt-5.1", "openai"),
    Wire("deepseek", "openai", "deepseek-v4-flash", "deepseek", "deepseek"),
    Wire("openrouter", "openai", "anthropic/claude-sonnet-4.5", "openrouter", "openrouter"),
    Wire("vllm", "openai", "Qwen/Qwen3-8B", "vllm", "vllm"),
    Wire("ollama", "openai", "qwen3:8b", "ollama", "ollama"),
    Wire("gemini-3", "gemini", "gemini-3-pro-preview"),
    Wire("gemini-2.5", "gemini", "gemini-2.5-flash"),
    Wire("claude-adaptive", "anthropic", "claude-opus-4-7"),
    Wire("claude-budget", "anthropic", "claude-haiku-4-5"),
)
CASES = [(w, r) for w in WIRES for r in ("off", "high")]
IDS = [f"{w.name}-reasoning-{r}" for w, r in CASES]


def converse(
    wire: Wire, reasoning: str, suite: Any, task: str, replies: list[Reply], tmp_path: Path
) -> tuple[ConversationRecord, ScriptedServer]:
    config = RunConfig(
        suite=suite.name,
        backend=wire.backend,
        model=wire.model,
        preset=wire.preset,
        mode="native",
        concurrency=1,
        max_rounds=6,
        max_tokens=512,
        max_retries=0,
        reasoning=reasoning,
        task_ids=(task,),
        output=tmp_path / "r.json",
        tools_check=False,  # these tests count requests; test_toolcheck.py covers the check
    )
    records: list[ConversationRecord] = []
    with wire.serve(*replies) as server:
        run_conversations(
            config, wire.provider(server.base_url), suite=suite, on_record=records.append
        )
    return records[0], server


def departure_answer() -> str:
    body = execute_tool(make_transport(None), "station_board_departures", {"eva": TARGET}).body
    dep = body["data"]["payload"]["departures"][0]
    clock = dep["planned_time"][11:16]
    return f"Nächste Abfahrt: {dep['line']} nach {dep['destination']} um {clock} Uhr."


def assert_accepted(record: ConversationRecord, server: ScriptedServer, requests: int) -> None:
    assert server.rejected == [], [r.body for r in server.rejected]
    assert (record.ending, record.error_class) == ("answered", None), record.error_message
    assert len(server.received) == requests == record.requests
    first = record.calls[0]
    assert (first.valid, first.error) == (False, "unreadable_call")


@pytest.mark.parametrize(("wire", "reasoning"), CASES, ids=IDS)
def test_infranode_episode_runs_to_its_answer(wire: Wire, reasoning: str, tmp_path: Path) -> None:
    thinking = reasoning != "off"
    replies = [
        wire.call(1, "stations", None, thinking),
        wire.call(2, "stations", {"slug": CITY}, thinking),
        wire.call(3, "station_board_departures", {"eva": TARGET}, thinking),
        wire.text(departure_answer()),
    ]
    record, server = converse(wire, reasoning, INFRANODE, TWO_STEP.id, replies, tmp_path)
    assert_accepted(record, server, 4)
    assert [c.name for c in record.calls[1:]] == ["stations", "station_board_departures"]
    assert all(c.valid for c in record.calls[1:])
    assert record.score is not None and record.score.outcome == "success"


@pytest.mark.parametrize(("wire", "reasoning"), CASES, ids=IDS)
def test_cesium_scenario_runs_to_its_answer(wire: Wire, reasoning: str, tmp_path: Path) -> None:
    thinking = reasoning != "off"
    marker = {"longitude": 116.3972, "latitude": 39.9163, "label": "Forbidden City"}
    replies = [
        wire.call(1, "geocode", None, thinking),
        wire.call(2, "geocode", {"address": "Forbidden City"}, thinking),
        wire.call(3, "addMarker", marker, thinking),
        wire.text("Done."),
    ]
    record, server = converse(wire, reasoning, CESIUM, "multi-geocode-marker-en", replies, tmp_path)
    assert_accepted(record, server, 4)
    assert [(c.name, c.valid) for c in record.calls[1:]] == [("geocode", True), ("addMarker", True)]


Replay = Callable[[dict[str, Any]], Any]


@pytest.mark.parametrize(
    ("wire", "look"),
    [
        (WIRES[2], lambda m: m["messages"][2].get("reasoning_content")),
        (WIRES[3], lambda m: m["messages"][2].get("reasoning_details")),
    ],
    ids=["deepseek reasoning_content", "openrouter reasoning_details"],
)
def test_reasoning_fields_go_back_on_the_tool_turn_they_came_with(
    wire: Wire, look: Replay, tmp_path: Path
) -> None:
    replies = [
        wire.call(1, "stations", {"slug": CITY}, True),
        wire.text("Fertig."),
    ]
    record, server = converse(wire, "high", INFRANODE, TWO_STEP.id, replies, tmp_path)
    assert server.rejected == [] and record.ending == "answered"
    sent = look(server.received[1].body)
    assert sent == (
        "Welches Werkzeug?"
        if wire.flavour == "deepseek"
        else [{"type": "reasoning.encrypted", "data": "enc-1", "id": "rd-1"}]
    )
