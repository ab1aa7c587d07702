"""Running suites against providers, in layers:

- ``requests``: the one request path (``generate_with_retries`` under a ``RunControl``: caps,
  rate limit, backoff, stop);
- ``dispatch``: the one dispatcher (worker threads or lockstep batches over sessions);
- ``item`` (one single call -> ``ItemRecord``) and ``conversation`` (the one multi-turn driver
  -> ``ConversationRecord``): sessions, no I/O;
- ``journal`` and ``results``: the append-only journal and the results file.

``run_suite`` runs single calls (with journal and ``--resume``); ``run_conversations`` runs a
suite's multi-turn dialogue. Both write one results file, also after Ctrl-C or an early stop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tooleval.providers.base import Provider
from tooleval.records import ConversationRecord, Task
from tooleval.runner.conversation import Conversation, dialogue_of
from tooleval.runner.dispatch import Dispatcher, Session
from tooleval.runner.identity import fingerprint, run_identity
from tooleval.runner.item import ItemSession, build_request
from tooleval.runner.journal import journal_path
from tooleval.runner.outputs import run_lock
from tooleval.runner.records import ItemRecord, RunConfig
from tooleval.runner.requests import RunControl
from tooleval.runner.results import (
    build_conversation_results,
    build_results,
    now_iso,
    write_results,
)
from tooleval.runner.resume import ResumeError, journal_header, open_journal, previous_records
from tooleval.runner.toolcheck import guard_tools, tools_check_section
from tooleval.suites import Suite, load_suite

__all__ = [
    "ResumeError",
    "RunConfig",
    "load_run_suite",
    "run_conversations",
    "run_suite",
    "select_tasks",
]


Key = tuple[str, int]


def load_run_suite(config: RunConfig) -> Suite[Any]:
    """The suite a config names, with its options (API URL, router, result size)."""
    options: dict[str, Any] = dict(config.suite_options)
    if config.suite == "infranode":
        options.setdefault("max_result_chars", config.max_result_chars)
    return load_suite(config.suite, **options)


def select_tasks(suite: Suite[Any], config: RunConfig) -> tuple[Any, ...]:
    """The planned tasks: ``task_ids`` (an unknown id is an error), ``categories``, ``limit``."""
    tasks = tuple(suite.tasks)
    if config.task_ids:
        known = {task.id for task in tasks}
        unknown = [i for i in config.task_ids if i not in known]
        if unknown:
            raise ValueError(f"unknown task id(s) in suite {suite.name}: {', '.join(unknown)}")
        tasks = tuple(t for t in tasks if t.id in config.task_ids)
    if config.categories:
        tasks = tuple(t for t in tasks if t.category in config.categories)
    return tasks[: config.limit] if config.limit else tasks


def with_exec_match(record: ItemRecord, task: Task, suite: Suite[Any]) -> ItemRecord:
    """Add executable equivalence to an answered record when the suite can execute calls."""
    if suite.exec_match is None or not record.answered or record.parsed is None:
        return record
    return replace(record, exec_match=suite.exec_match(task, record.parsed.first))


def request_settings(
    provider: Provider, suite: Suite[Any], config: RunConfig, tasks: Sequence[Any], multi: bool
) -> dict[str, Any] | None:
    """What the provider sends besides the conversation (the model family, token limit,
    sampling, reasoning fields), from the run's first request: the results'
    ``request_settings``. ValueError, before any request, for a setting the model's API
    rejects. None for a provider that does not say (the embedded model, the fake)."""
    describe = getattr(provider, "request_settings", None)
    if describe is None or not tasks:
        return None
    tools = dialogue_of(suite).tools(tasks[0]) if multi else None
    settings: dict[str, Any] = describe(build_request(tasks[0], suite, config, tools))
    return settings


def default_results_path(config: RunConfig) -> Path:
    """Where a run writes without ``output`` (the CLI always passes one)."""
    return config.output or Path("results") / "results.json"


def run_suite(
    config: RunConfig,
    provider: Provider,
    *,
    suite: Suite[Any] | None = None,
    on_record: Callable[[ItemRecord], None] | None = None,
    on_plan: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run ``config`` one call per item with ``provider``; returns the document it also wrote.

    Every answer is journaled as it arrives; ``config.resume`` keeps the answered items of an
    earlier run. ``on_record`` sees every new record (on the calling thread).
    """
    suite = suite or load_run_suite(config)
    if suite.scorer is None:
        raise ValueError(f"suite {suite.name!r} has no single-call scorer; use its multi-turn run")
    tasks = select_tasks(suite, config)
    settings = request_settings(provider, suite, config, tasks, multi=False)
    output = default_results_path(config)
    identity = run_identity(config, suite)
    run_id = fingerprint(identity)
    with run_lock(output, journal_path(output)):
        earlier = previous_records(config, output, identity)
        records = earlier.records
        planned = {(task.id, repeat) for task in tasks for repeat in range(config.repeats)}
        if on_plan:
            on_plan(len(planned), len(planned & set(records)))
        journal = open_journal(output, journal_header(identity, config), earlier)
        by_id = {task.id: task for task in tasks}

        def finish(session: Session) -> None:
            assert isinstance(session, ItemSession) and session.record is not None
            record = with_exec_match(session.record, by_id[session.task.id], suite)
            record = replace(record, run_id=run_id)
            journal.append(record)
            records[record.key] = record
            if on_record:
                on_record(record)

        control = RunControl(config.policy)
        checked, guard = guard_tools(provider, config, control)
        sessions = [
            ItemSession(task, repeat, suite, config)
            for repeat in range(config.repeats)
            for task in tasks
            if (task.id, repeat) not in records
        ]
        started = now_iso()
        try:
            Dispatcher(checked, control, finish).run(sessions)
        finally:
            journal.close()
            document = build_results(
                config, suite, tasks, records, started, control.stop_reason,
                identities=(identity, earlier.identities),
            )  # fmt: skip
            document["tools_check"] = tools_check_section(guard)
            document["request_settings"] = settings
            write_results(output, document)
    return document


def run_conversations(
    config: RunConfig,
    provider: Provider,
    *,
    suite: Suite[Any] | None = None,
    on_record: Callable[[ConversationRecord], None] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the suite's multi-turn dialogue for every planned task (x repeats); returns the
    results document it also wrote (with ``extra`` sections added, e.g. a quota reading)."""
    suite = suite or load_run_suite(config)
    dialogue = dialogue_of(suite)
    if config.mode not in dialogue.modes:
        modes = ", ".join(dialogue.modes)
        raise ValueError(f"suite {suite.name!r} runs conversations in {modes} mode only")
    tasks = select_tasks(suite, config)
    settings = request_settings(provider, suite, config, tasks, multi=True)
    records: dict[Key, ConversationRecord] = {}

    def finish(session: Session) -> None:
        assert isinstance(session, Conversation)
        record = session.record()
        records[record.key] = record
        if on_record:
            on_record(record)

    control = RunControl(config.policy)
    checked, guard = guard_tools(provider, config, control)
    sessions: Sequence[Conversation] = [
        Conversation(task, repeat, suite, config)
        for repeat in range(config.repeats)
        for task in tasks
    ]
    started = now_iso()
    output = default_results_path(config)
    with run_lock(output):
        try:
            Dispatcher(checked, control, finish).run(sessions)
        finally:
            document = build_conversation_results(
                config, suite, tasks, records, started, control.stop_reason
            )
            document["tools_check"] = tools_check_section(guard)
            document["request_settings"] = settings
            document.update(extra or {})
            write_results(output, document)
    return document
