"""The optional judge of ``tooleval episodes``: its flags, its provider and its run.

The judge's provider is named by the provider flags again, under ``--judge-`` (``judge_flags``)
and resolved by the same code as the main backend's (``common.resolve_target``, then
``common.provider_for``): the same validators, presets, default models and key rules, keys
only from environment variables. Its requests take the shared request path
(``generate_with_retries`` under its own ``RunControl``). What it is asked and how its
verdicts count: ``tooleval.suites.infranode.episodes.judge``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from tooleval.commands.common import (
    name_in,
    provider_for,
    questions_of,
    resolve_target,
    url,
)
from tooleval.providers.base import ErrorClass, Provider, ProviderError
from tooleval.providers.presets import PRESETS
from tooleval.providers.registry import BACKENDS
from tooleval.records import ConversationRecord, GenerationRequest, GenerationResponse
from tooleval.runner.records import RunConfig
from tooleval.runner.requests import RunControl, Stopped, generate_with_retries
from tooleval.suites import Suite


def judge_flags() -> argparse.ArgumentParser:
    """An optional judge model (``episodes``): the provider flags again, under ``--judge-``."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("judge")
    g.add_argument(
        "--judge-backend", type=name_in(BACKENDS, "backend"), default=None,
        help="a judge model for final answers the deterministic check cannot decide",
    )  # fmt: skip
    g.add_argument("--judge-model", default=None, help="the judge's model")
    g.add_argument("--judge-base-url", type=url, default=None, help="the judge's API base URL")
    g.add_argument("--judge-endpoint", type=url, default=None, help="its chat-completions URL")
    g.add_argument("--judge-preset", type=name_in(PRESETS, "preset"), default=None)
    g.add_argument("--judge-api-key-env", default=None, metavar="VAR", help="its key variable")
    g.add_argument("--judge-script", type=Path, default=None, help="fake judge: replies JSONL")
    g.add_argument(
        "--judge-all", action="store_true", help="judge every answer whose calls were right"
    )
    return p


JUDGE_ONLY_FLAGS = ("model", "base_url", "endpoint", "preset", "api_key_env", "script")


def judge_config(args: argparse.Namespace, config: RunConfig) -> RunConfig | None:
    """The judge's RunConfig: the run's, with the provider the ``--judge-*`` flags name,
    resolved exactly as the main backend's flags are (keys from the environment only). None
    without ``--judge-backend``; ValueError when other judge flags come without it."""
    if args.judge_backend is None:
        given = [f"--judge-{n.replace('_', '-')}" for n in JUDGE_ONLY_FLAGS if _judge(args, n)]
        if given or args.judge_all:
            given += ["--judge-all"] if args.judge_all else []
            verb = "needs" if len(given) == 1 else "need"
            raise ValueError(f"{', '.join(given)} {verb} --judge-backend")
        return None
    judge = argparse.Namespace(
        backend=args.judge_backend, preset=args.judge_preset, model=args.judge_model,
        base_url=args.judge_base_url, endpoint=args.judge_endpoint, provider=None,
        api_key_env=args.judge_api_key_env, rpm=None,
    )  # fmt: skip
    try:
        target = resolve_target(judge)
    except ValueError as exc:  # name the judge's flags, not the main backend's
        raise ValueError(str(exc).replace("--", "--judge-")) from None
    return replace(
        config,
        backend=target.backend,
        model=target.model,
        preset=target.preset,
        base_url=target.base_url,
        endpoint=target.endpoint,
        api_key_env=target.api_key_env,
        rpm=target.rpm,
        max_requests=None,
        stop_after_errors=None,
        temperature=0.0,
        seed=None,
        reasoning=None,
    )


def _judge(args: argparse.Namespace, name: str) -> Any:
    return getattr(args, f"judge_{name}")


Judge = tuple[RunConfig, Provider]


def judge_for(args: argparse.Namespace, config: RunConfig, suite: Suite[Any]) -> Judge | None:
    """The judge's config and provider (built as the main provider is), or None."""
    judge = judge_config(args, config)
    if judge is None:
        return None
    if suite.name != "infranode":
        raise ValueError(f"--judge-backend applies to the infranode suite, not {suite.name!r}")
    return judge, provider_for(judge, args.judge_script, questions_of(suite.tasks))


def judge_setup(judge: RunConfig) -> dict[str, Any]:
    """What the results file says about the judge (a key variable's name, never a key)."""
    keys = ("backend", "model", "preset", "base_url", "endpoint", "api_key_env")
    return {key: getattr(judge, key) for key in keys}


def add_verdicts(
    judge: Judge,
    every_answer: bool,
    suite: Suite[Any],
    records: list[ConversationRecord],
    document: dict[str, Any],
) -> None:
    """Ask the judge (on the shared request path) and add its verdicts to ``document``."""
    from tooleval.suites.infranode.episodes.judge import JudgeRun, add_judge, judge_records

    config, provider = judge
    control = RunControl(config.policy)

    def generate(request: GenerationRequest) -> GenerationResponse:
        try:
            return generate_with_retries(provider, request, control)[0]
        except Stopped as exc:
            raise ProviderError(ErrorClass.REQUEST_CAP, f"judge stopped: {exc}") from None

    verdicts = judge_records(generate, suite.tasks, records, every_answer)
    add_judge(document, records, JudgeRun(judge_setup(config), every_answer, verdicts))
