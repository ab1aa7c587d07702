"""``tooleval measure``: prompt size per item and in total, and a run's cost estimate."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from tooleval.commands import COMMANDS
from tooleval.commands.common import (
    EXIT_OK,
    fail,
    non_negative_float,
    non_negative_int,
    positive_int,
)
from tooleval.measure import (
    CostEstimate,
    Prices,
    PromptSet,
    estimate_cost,
    make_prices,
    measure_cesium,
    measure_suite,
    read_price_file,
    resolve_tokenizer,
)
from tooleval.measure.cost import mean_output_tokens
from tooleval.runner.results import load_results
from tooleval.suites import SUITE_NAMES, load_suite


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("measure", help=COMMANDS["measure"])
    p.add_argument("--suite", default="infranode", choices=SUITE_NAMES)
    p.add_argument("--mode", default="prompt", choices=("prompt", "native"))
    p.add_argument(
        "--tokenizer",
        default="embedded",
        help="embedded (the local model's), a tokenizer.json or its folder, a .gguf file",
    )
    p.add_argument(
        "--router",
        default="improved",
        choices=("improved", "original", "all", "core"),
        help="cesium: which tools reach the model per scenario",
    )
    p.add_argument(
        "--limit", type=positive_int, default=None, metavar="N", help="first N tasks only"
    )
    p.add_argument("--repeats", type=positive_int, default=1, metavar="K")
    p.add_argument("--prices", type=Path, default=None, help="JSON/TOML file with prices")
    p.add_argument(
        "--price-input", type=non_negative_float, default=None, metavar="USD", help="per 1M"
    )
    p.add_argument(
        "--price-cached", type=non_negative_float, default=None, metavar="USD", help="per 1M"
    )
    p.add_argument(
        "--price-output", type=non_negative_float, default=None, metavar="USD", help="per 1M"
    )
    p.add_argument(
        "--output-tokens", type=non_negative_float, default=None, help="expected per request"
    )
    p.add_argument(
        "--output-tokens-from",
        type=Path,
        default=None,
        metavar="RESULTS",
        help="take the expected output length from a results file's usage",
    )
    p.add_argument("--min-cached-prefix", type=non_negative_int, default=None, metavar="TOKENS")
    p.add_argument("--per-item", action="store_true", help="list every item's size")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=run)


def prices_from_args(args: argparse.Namespace) -> Prices | None:
    """Prices from --prices, overridden by flags; None when no price was given at all."""
    values: dict[str, Any] = read_price_file(args.prices) if args.prices else {}
    flags = {
        "input": args.price_input,
        "cached_input": args.price_cached,
        "output": args.price_output,
        "output_tokens": args.output_tokens,
        "min_cached_prefix": args.min_cached_prefix,
    }
    values.update({k: v for k, v in flags.items() if v is not None})
    if args.output_tokens_from is not None and args.output_tokens is None:
        mean = mean_output_tokens(load_results(args.output_tokens_from))
        if mean is None:
            raise ValueError(f"{args.output_tokens_from}: no output token counts in its usage")
        values["output_tokens"] = mean
    if "input" not in values and "output" not in values:
        return None
    return make_prices(values, str(args.prices or "flags"))


def measure_prompts(args: argparse.Namespace) -> PromptSet:
    tok = resolve_tokenizer(args.tokenizer)
    if args.suite == "cesium":
        return measure_cesium(tok, args.router)
    return measure_suite(load_suite(args.suite), args.mode, tok, args.limit)


def summary_json(prompts: PromptSet, cost: CostEstimate | None) -> dict[str, Any]:
    bodies = [i.body.tokens for i in prompts.items]
    return {
        "suite": prompts.suite,
        "mode": prompts.mode,
        "tokenizer": prompts.tokenizer,
        "items": len(prompts.items),
        "prefixes": {k: vars(v) for k, v in prompts.prefixes.items()},
        "per_item_tokens": {
            "min": min(bodies, default=0),
            "mean": sum(bodies) / len(bodies) if bodies else 0,
            "max": max(bodies, default=0),
        },
        "total": {"chars": prompts.total_chars, "tokens": prompts.total_tokens},
        "notes": list(prompts.notes),
        "cost": cost.to_json() if cost else None,
        "item_sizes": [
            {
                "id": i.item_id,
                "detail": i.detail,
                "prefix": i.prefix_id,
                "chars": i.body.chars,
                "tokens": i.body.tokens,
                "input_tokens": prompts.input_tokens(i),
            }
            for i in prompts.items
        ],
    }


def summary_table(prompts: PromptSet) -> Table:
    n = len(prompts.items) or 1
    table = Table(title=f"{prompts.suite} ({prompts.mode}), tokenizer {prompts.tokenizer}")
    for name in ("part", "chars", "tokens"):
        table.add_column(name, justify="left" if name == "part" else "right")
    sizes = list(prompts.prefixes.values())
    if len(sizes) == 1:
        table.add_row(
            "shared prefix (system + tools)", f"{sizes[0].chars:,}", f"{sizes[0].tokens:,}"
        )
    elif sizes:
        chars, tokens = sum(s.chars for s in sizes), sum(s.tokens for s in sizes)
        label = f"prefix (system + routed tools), mean of {len(sizes)} distinct"
        table.add_row(label, f"{chars / len(sizes):,.1f}", f"{tokens / len(sizes):,.1f}")
    body_chars = sum(i.body.chars for i in prompts.items)
    body_tokens = sum(i.body.tokens for i in prompts.items)
    table.add_row("per item (mean)", f"{body_chars / n:,.1f}", f"{body_tokens / n:,.1f}")
    total = f"total, {len(prompts.items)} requests"
    table.add_row(total, f"{prompts.total_chars:,}", f"{prompts.total_tokens:,}")
    return table


def items_table(prompts: PromptSet) -> Table:
    table = Table(title="per item")
    for name in ("item", "detail", "chars", "tokens", "prefix tokens", "input tokens"):
        table.add_column(name, justify="left" if name in ("item", "detail") else "right")
    for i in prompts.items:
        prefix = prompts.prefixes[i.prefix_id].tokens
        sizes = (i.body.chars, i.body.tokens, prefix, prompts.input_tokens(i))
        table.add_row(i.item_id, i.detail, *(str(n) for n in sizes))
    return table


def cost_lines(cost: CostEstimate, prices: Prices) -> list[str]:
    return [
        f"{cost.requests} requests, {cost.input_tokens:,} input tokens, "
        f"{cost.output_tokens:,.0f} output tokens ({prices.output_tokens:g} per request)",
        f"cost without caching: ${cost.cost_uncached:,.4f}",
        f"cost with prompt caching: ${cost.cost_cached:,.4f} "
        f"({cost.cached_input_tokens:,} input tokens at the cached price)",
    ]


def run(args: argparse.Namespace) -> int:
    try:
        prices = prices_from_args(args)
        prompts = measure_prompts(args)
    except (ValueError, OSError) as exc:
        return fail("measure", exc)
    cost = estimate_cost(prompts, prices, args.repeats) if prices else None
    if args.json:
        print(json.dumps(summary_json(prompts, cost), ensure_ascii=False, indent=1))
        return EXIT_OK
    out = Console(highlight=False)
    out.print(summary_table(prompts))
    if args.per_item:
        items = items_table(prompts)
        natural = Console(width=1000).measure(items).maximum
        Console(highlight=False, width=max(out.width, natural)).print(items)
    for note in prompts.notes:
        out.print(f"note: {note}")
    if cost is not None and prices is not None:
        for line in cost_lines(cost, prices):
            out.print(line)
    return EXIT_OK
