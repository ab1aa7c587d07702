"""``tooleval routing``: which tools reach the model? Deterministic, no network.

Without ``--prompt``: scores the original and the improved router on the routing cases (30
upstream EN/zh-CN/multi-intent cases plus tooleval's negatives and paraphrases), prints
recall, precision and tools sent side by side (a case passes with every required tool in at
most 20 tools, for both routers; tools the improved router sends beyond 20 are reported as
over the cap), and checks the original router's upstream anchor counts. Exit 1 if the
reproduction breaks: an upstream case fails under the original router or an anchor differs.
With ``--prompt``: prints the toolsets and tools one router selects for that prompt.
"""

from __future__ import annotations

import argparse
import json

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_FAILED, EXIT_OK, fail
from tooleval.suites.cesium.routing import Selection, route_original
from tooleval.suites.cesium.routing_eval import (
    ROUTERS,
    CaseScore,
    check_anchors,
    evaluate,
    load_routing_cases,
    summarize,
)
from tooleval.suites.cesium.routing_improved import route_improved


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "routing",
        help=COMMANDS["routing"],
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--prompt", help="route one prompt instead of scoring the cases")
    parser.add_argument(
        "--router",
        choices=tuple(ROUTERS),
        default=None,
        help="router for --prompt (default original) or to score alone",
    )
    parser.add_argument("--mode", default="auto", help="auto | core | all | toolset:<name>")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=run)  # fmt: skip


def select(prompt: str, router: str, mode: str) -> Selection:
    route = route_improved if router == "improved" else route_original
    return route(prompt, mode)


def _case_line(a: CaseScore, b: CaseScore) -> str:
    def cell(s: CaseScore) -> str:
        miss = f" missing={','.join(s.missing_tools)}" if s.missing_tools else ""
        return f"{'pass' if s.passed else 'FAIL'} {len(s.selection.tools):>2}{miss}"

    return f"{a.case.id:<28} {a.case.kind:<10} {cell(a):<28} {cell(b)}"


def run_one(args: argparse.Namespace) -> int:
    try:
        selection = select(args.prompt, args.router or "original", args.mode)
    except ValueError as exc:
        return fail("routing", exc)
    if args.json:
        print(json.dumps(selection.to_json(), ensure_ascii=False, indent=2))
    else:
        print(f"toolsets: {', '.join(selection.toolsets) or '-'}")
        print(f"tools ({len(selection.tools)}): {', '.join(selection.tools) or '-'}")
        if selection.dropped_toolsets:
            print(f"dropped by the cap: {', '.join(selection.dropped_toolsets)}")
    return EXIT_OK


def _upstream_failures(scores: dict[str, list[CaseScore]]) -> dict[str, list[str]]:
    return {
        router: [s.case.id for s in items if s.case.source == "upstream" and not s.passed]
        for router, items in scores.items()
    }


def run_cases(args: argparse.Namespace) -> int:
    routers = [args.router] if args.router else list(ROUTERS)
    cases = load_routing_cases()
    scores = {r: evaluate(r, cases) for r in routers}
    upstream = [c for c in cases if c.source == "upstream"]
    summaries = {
        r: {
            "upstream": summarize(r, [s for s in scores[r] if s.case in upstream]).to_json(),
            "all": summarize(r, scores[r]).to_json(),
        }
        for r in routers
    }
    anchors = check_anchors()
    anchors_ok = all(expected == actual for _, expected, actual in anchors)
    failures = _upstream_failures(scores)
    if args.json:
        doc = {
            "summaries": summaries,
            "anchors": [{"label": n, "expected": e, "actual": a} for n, e, a in anchors],
            "cases": {r: [_case_json(s) for s in scores[r]] for r in routers},
            "upstreamFailures": failures,
        }
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        _print_cases(routers, scores, summaries, anchors)
    return EXIT_OK if anchors_ok and not failures.get("original") else EXIT_FAILED


def _case_json(s: CaseScore) -> dict[str, object]:
    return {"id": s.case.id, "kind": s.case.kind, "passed": s.passed,
            "missing": list(s.missing_tools), "overCap": s.over_cap,
            **s.selection.to_json()}  # fmt: skip


def _print_cases(
    routers: list[str],
    scores: dict[str, list[CaseScore]],
    summaries: dict[str, dict[str, dict[str, object]]],
    anchors: list[tuple[str, int, int]],
) -> None:
    if len(routers) == 2:
        print(f"{'case':<28} {'kind':<10} {'original':<28} improved")
        for a, b in zip(scores[routers[0]], scores[routers[1]], strict=True):
            print(_case_line(a, b))
    for router in routers:
        for scope, summary in summaries[router].items():
            print(f"[{router}/{scope}] " + json.dumps(summary))
        over = [f"{s.case.id} ({len(s.selection.tools)})" for s in scores[router] if s.over_cap]
        if over:
            print(f"[{router}] over the cap of 20 (fails the rule): {', '.join(over)}")
    for label, expected, actual in anchors:
        mark = "ok" if expected == actual else "MISMATCH"
        print(f"anchor {label}: expected {expected}, got {actual} {mark}")


def run(args: argparse.Namespace) -> int:
    return run_one(args) if args.prompt is not None else run_cases(args)
