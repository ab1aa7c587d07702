"""Shared test fixtures: the loopback servers, the scripted fake, a small suite.

Helpers live in two packages beside this file, imported as top-level packages (pytest puts
this folder on ``sys.path`` because of this conftest): ``servers`` (loopback HTTP servers that
speak each provider's wire format, plus the deterministic gold server of the reliability
tests) and ``reliability`` (the fork server that starts and kills ``tooleval`` runs).

Every test that needs a model uses the shipped ``FakeProvider`` (``fake``), never a private
scripted class; every test that needs an HTTP endpoint uses ``servers`` (``loopback``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from typing import Any

import pytest

from servers import Reply, ScriptedServer, anthropic_server, gemini_server, openai_server
from tooleval.providers.fake import FakeBatchProvider, FakeProvider, FakeReply, parse_reply
from tooleval.records import Mode, Task, ToolCall, ToolSpec
from tooleval.scoring import score_parse
from tooleval.suites import Suite
from tooleval.suites.infranode.prompting import build_messages

SERVERS: dict[str, Callable[..., ScriptedServer]] = {
    "openai": openai_server.serve,
    "anthropic": anthropic_server.serve,
    "gemini": gemini_server.serve,
}

MINI_TOOLS = (
    ToolSpec("weather", "Wetter", {"type": "object", "properties": {"slug": {"type": "string"}}}),
    ToolSpec("air_quality", "Luft", {"type": "object", "properties": {"slug": {"type": "string"}}}),
)
MINI_CITIES = ("berlin", "koeln", "bonn", "kiel", "ulm", "jena")


@pytest.fixture(autouse=True)
def secrets_of_this_test() -> Iterator[None]:
    """Each test starts from the keys known before it: a sentinel key one test read (say
    ``sk-SENTINEL-conversations``) would otherwise stay known for the rest of the session and
    mask words of later tests' output that share its first or last characters."""
    from tooleval import redaction

    before = redaction.snapshot()
    yield
    redaction.restore(before)


def make_fake(
    *replies: FakeReply | Mapping[str, Any],
    batch: bool = False,
    questions: Mapping[str, str] | None = None,
) -> FakeProvider:
    """The shipped fake answering ``replies`` (FakeReply objects or their JSON shape)."""
    script = [r if isinstance(r, FakeReply) else parse_reply(r) for r in replies]
    kind = FakeBatchProvider if batch else FakeProvider
    return kind(script, questions=questions)


def weather(slug: str) -> ToolCall:
    return ToolCall("weather", {"slug": slug})


def make_mini_suite(
    tasks: tuple[Task, ...] | None = None,
    tools: tuple[ToolSpec, ...] = MINI_TOOLS,
    categories: tuple[str, ...] = ("a", "b"),
) -> Suite[Task]:
    """Six weather questions over two tools (or ``tasks``/``tools``/``categories``), with the
    InfraNode prompt and scorer (single call only)."""
    if tasks is None:
        tasks = tuple(
            Task(f"t-{i}", "a" if i % 2 else "b", f"Wetter in {slug}?", weather(slug), "1")
            for i, slug in enumerate(MINI_CITIES)
        )

    def messages(task: Task, mode: Mode) -> Any:
        return build_messages(task.question, tools, mode)

    return Suite("mini", "1", tools, tasks, categories, messages, scorer=score_parse)


@pytest.fixture
def fake() -> Callable[..., FakeProvider]:
    """``fake(*replies, batch=False, questions=None)`` -> the shipped FakeProvider."""
    return make_fake


@pytest.fixture
def mini_suite() -> Suite[Task]:
    return make_mini_suite()


@pytest.fixture
def loopback() -> Iterator[Callable[..., ScriptedServer]]:
    """``loopback(kind, *replies)`` -> a started wire-format server (stopped after the test);
    ``kind`` is openai, anthropic or gemini."""
    with ExitStack() as stack:

        def start(kind: str, *replies: Reply) -> ScriptedServer:
            return stack.enter_context(SERVERS[kind](*replies))

        yield start
