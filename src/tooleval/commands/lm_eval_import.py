"""``tooleval lm-eval-import``: an lm-eval --log_samples run as a tooleval results file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tooleval.commands import COMMANDS
from tooleval.commands.common import EXIT_OK, default_output, fail
from tooleval.integrations.lm_eval.importer import LmEvalImportError, import_run, read_run
from tooleval.runner.results import write_results

NAME = "lm-eval-import"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "lm-eval-import",
        help=COMMANDS["lm-eval-import"],
    )
    parser.add_argument(
        "path", type=Path, help="lm_eval's --output_path folder (or one results_*.json in it)"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="results file to write (default: results/lm-eval-<model>.json)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        lm_run = read_run(args.path)
        outcome = import_run(lm_run, args.output)
    except (LmEvalImportError, OSError) as exc:
        return fail(NAME, exc)
    output = args.output or default_output("lm-eval-" + outcome.document["config"]["model"])
    outcome.document["config"]["output"] = str(output)
    write_results(output, outcome.document)
    if outcome.mismatches:
        listed = ", ".join(outcome.mismatches[:5])
        print(
            f"warning: lm-eval logged other scores than tooleval's for "
            f"{len(outcome.mismatches)} item(s) ({listed}); the file holds tooleval's scores",
            file=sys.stderr,
        )
    metrics = outcome.document["metrics"]
    print(
        f"imported {outcome.n_items} items from {lm_run.samples_path.name}: "
        f"call_match {metrics['call_match']:.3f}; results: {output}"
    )
    return EXIT_OK
