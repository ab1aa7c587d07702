"""``tooleval model-tools``: the 15 Cesium scenarios, routing preflight or live multi-turn.

Without ``--live`` only the routing preflight runs: no model request is made and the exit code
is 1 when any scenario's required tools are not routed. With ``--live --backend B --model M``
each scenario runs as a multi-turn conversation over simulated tools (``--max-rounds`` turns,
at most ``--max-requests`` requests in all, ``--delay-ms`` between request starts, bounded
retries on rate limits and server errors). The report (``--output``) keeps full transcripts,
the tools sent and their hash, the system prompt and the request settings, never a key.
Exit codes: 0 done, 1 routing miss (preflight) or every run failed with an error, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tooleval.fileio import write_text_atomic
from tooleval.providers.base import Provider
from tooleval.suites.cesium.evaluate import (
    Routed,
    build_report,
    preflight,
    run_live,
    select_scenarios,
)
from tooleval.suites.cesium.loop import LoopConfig, RequestGate, ScenarioRun

EXIT_BAD_INPUT = 2


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "model-tools",
        help="Cesium multi-turn scenarios: routing preflight, or live with --live",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--live", action="store_true", help="allow model requests (never without this flag)")
    add("--backend", default="openai", help="provider backend (default openai)")
    add("--model", help="model id (required with --live)")
    add("--base-url", help="OpenAI-compatible endpoint base URL")
    add("--preset", help="endpoint preset, e.g. cloudflare, deepseek")
    add("--router", choices=("original", "improved"), default="original")
    add("--case", help="comma-separated scenario ids (default: all 15)")
    add("--repeats", type=_positive, default=1)
    add("--max-rounds", type=_positive, default=4)
    add("--max-requests", type=_positive, default=24)
    add("--max-tokens", type=_positive, default=1024)
    add("--temperature", type=float, default=0.0)
    add("--seed", type=int, default=None)
    add("--delay-ms", type=_non_negative, default=0)
    add("--timeout-ms", type=_positive, default=90_000)
    add("--output", metavar="PATH", help="write the full JSON report here")
    add("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=run)


def print_preflight(routed: list[Routed], router: str) -> None:
    print(f"routing preflight ({router} router): {len(routed)} scenarios")
    for item in routed:
        missing = f" missing={','.join(item.missing)}" if item.missing else ""
        toolsets = ",".join(item.selection.toolsets)
        print(f"- {item.scenario.id}: {len(item.selection.tools)} tools [{toolsets}]{missing}")


def settings_of(args: argparse.Namespace, ids: list[str]) -> dict[str, Any]:
    """The run's settings for the report: everything but secrets (keys never pass through)."""
    return {
        "live": bool(args.live),
        "backend": args.backend if args.live else None,
        "model": args.model,
        "baseUrl": args.base_url,
        "preset": args.preset,
        "router": args.router,
        "scenarioIds": ids,
        "repeats": args.repeats,
        "maxRounds": args.max_rounds,
        "maxRequests": args.max_requests,
        "maxTokens": args.max_tokens,
        "temperature": args.temperature,
        "seed": args.seed,
        "delayMs": args.delay_ms,
        "timeoutMs": args.timeout_ms,
    }


def build_live_provider(args: argparse.Namespace) -> Provider:
    from tooleval.providers.registry import build_provider

    provider: Provider = build_provider(
        args.backend,
        model=args.model,
        base_url=args.base_url,
        preset=args.preset,
        timeout_s=args.timeout_ms / 1000,
    )
    return provider


def live_runs(
    args: argparse.Namespace, routed: list[Routed], provider: Provider
) -> tuple[list[ScenarioRun], int]:
    config = LoopConfig(
        max_rounds=args.max_rounds, max_tokens=args.max_tokens,
        temperature=args.temperature, seed=args.seed,
    )  # fmt: skip
    gate = RequestGate(max_requests=args.max_requests, delay_s=args.delay_ms / 1000)
    runs = run_live(routed, provider, repeats=args.repeats, config=config, gate=gate)
    return runs, gate.count


def print_runs(runs: list[ScenarioRun], summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        return
    for i, run in enumerate(runs, start=1):
        names = " -> ".join(c.name for c in run.calls) or "no tool"
        verdict = "pass" if run.passed else "fail"
        steps = ",".join(s.status for s in run.steps)
        print(f"[{i}/{len(runs)}] {run.scenario.id} run {run.repetition}: {run.outcome} "
              f"{verdict} ({names}) steps={steps}")  # fmt: skip
    print("[model-tools] " + json.dumps(summary, ensure_ascii=False))


def run(args: argparse.Namespace, provider: Provider | None = None) -> int:
    try:
        ids = [c.strip() for c in args.case.split(",") if c.strip()] if args.case else []
        routed = preflight(select_scenarios(ids), args.router)
    except ValueError as exc:
        print(f"tooleval model-tools: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    settings = settings_of(args, [r.scenario.id for r in routed])
    if not args.json:
        print_preflight(routed, args.router)
    if not args.live:
        return _finish_preflight(args, routed, settings)
    if not args.model:
        print("tooleval model-tools: --live needs --model", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        provider = provider or build_live_provider(args)
    except (ValueError, KeyError, ImportError) as exc:
        print(f"tooleval model-tools: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    runs, requests = live_runs(args, routed, provider)
    report = build_report(runs, settings=settings, request_count=requests)
    print_runs(runs, report["summary"], args.json)
    if args.output:
        write_text_atomic(
            Path(args.output), json.dumps(report, ensure_ascii=False, indent=2) + "\n"
        )
    all_errors = bool(runs) and all(r.outcome == "provider_error" for r in runs)
    return 1 if all_errors else 0


def _finish_preflight(
    args: argparse.Namespace, routed: list[Routed], settings: dict[str, Any]
) -> int:
    misses = [r for r in routed if r.missing]
    if args.output or args.json:
        doc = {
            "settings": settings,
            "routingMisses": len(misses),
            "scenarios": [
                {"id": r.scenario.id, "missing": list(r.missing), **r.selection.to_json()}
                for r in routed
            ],
        }
        text = json.dumps(doc, ensure_ascii=False, indent=2)
        if args.output:
            write_text_atomic(Path(args.output), text + "\n")
        if args.json:
            print(text)
    if not args.json:
        print("no model was called (add --live --backend … --model … to run the scenarios)")
    return 1 if misses else 0
