"""Cost of a run from per-million-token prices, with and without prompt caching.

Caching model: the first request with a given prefix pays the full input price for it; every
later request pays the cached-input price for the prefix tokens, provided the prefix reaches
``min_cached_prefix`` tokens (providers only cache long prefixes, e.g. 1024 tokens). Cache
writes are not charged extra and entries are assumed not to expire during the run.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from tooleval.fileio import loads
from tooleval.measure.prompts import PromptSet

PRICE_FIELDS = ("input", "cached_input", "output", "output_tokens", "min_cached_prefix")


@dataclass(frozen=True)
class Prices:
    """USD per million tokens, and the expected output tokens per request."""

    input: float
    output: float
    cached_input: float | None = None
    output_tokens: float = 0.0
    min_cached_prefix: int = 0


@dataclass(frozen=True)
class CostEstimate:
    requests: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: float
    cost_uncached: float
    cost_cached: float

    def to_json(self) -> dict[str, float | int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def read_price_file(path: Path) -> dict[str, Any]:
    """A flat JSON or TOML object with any of PRICE_FIELDS; unknown keys are an error."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else loads(text, path)
    except (OSError, ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read prices ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: prices must be an object with {', '.join(PRICE_FIELDS)}")
    unknown = sorted(set(data) - set(PRICE_FIELDS))
    if unknown:
        raise ValueError(f"{path}: unknown price field(s) {unknown}; known: {PRICE_FIELDS}")
    for key, value in data.items():
        if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{path}: {key} must be a non-negative number, got {value!r}")
    return data


def make_prices(values: dict[str, Any], source: str) -> Prices:
    for key in ("input", "output"):
        if values.get(key) is None:
            raise ValueError(f"{source}: no {key} price (USD per million tokens)")
    return Prices(
        input=float(values["input"]),
        output=float(values["output"]),
        cached_input=None if values.get("cached_input") is None else float(values["cached_input"]),
        output_tokens=float(values.get("output_tokens") or 0.0),
        min_cached_prefix=int(values.get("min_cached_prefix") or 0),
    )


def estimate_cost(prompts: PromptSet, prices: Prices, repeats: int = 1) -> CostEstimate:
    """Cost of asking every item ``repeats`` times, uncached and with prefix caching."""
    requests = len(prompts.items) * repeats
    input_tokens = prompts.total_tokens * repeats
    cached = 0
    seen: set[str] = set()
    for _ in range(repeats):
        for item in prompts.items:
            prefix = prompts.prefixes[item.prefix_id].tokens
            if item.prefix_id in seen and prefix >= prices.min_cached_prefix:
                cached += prefix
            seen.add(item.prefix_id)
    output_tokens = prices.output_tokens * requests
    output_cost = output_tokens * prices.output / 1e6
    uncached = input_tokens * prices.input / 1e6 + output_cost
    cached_price = prices.input if prices.cached_input is None else prices.cached_input
    with_cache = (
        (input_tokens - cached) * prices.input / 1e6 + cached * cached_price / 1e6 + output_cost
    )
    return CostEstimate(
        requests=requests,
        input_tokens=input_tokens,
        cached_input_tokens=cached if prices.cached_input is not None else 0,
        output_tokens=output_tokens,
        cost_uncached=uncached,
        cost_cached=with_cache,
    )


def mean_output_tokens(results: dict[str, Any]) -> float | None:
    """Mean reported output tokens over a results document's answered items, if reported."""
    counts = [
        item["usage"]["output_tokens"]
        for item in results.get("items", [])
        if item.get("score") is not None and (item.get("usage") or {}).get("output_tokens")
    ]
    return sum(counts) / len(counts) if counts else None
