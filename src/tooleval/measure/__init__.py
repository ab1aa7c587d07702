"""Prompt size and cost measurement (``tooleval measure``)."""

from __future__ import annotations

from tooleval.measure.cost import CostEstimate, Prices, estimate_cost, make_prices, read_price_file
from tooleval.measure.prompts import PromptSet, Size, measure_cesium, measure_suite
from tooleval.measure.tokenizers import (
    NamedTokenizer,
    TextTokenizer,
    WhitespaceTokenizer,
    resolve_tokenizer,
)

__all__ = [
    "CostEstimate",
    "NamedTokenizer",
    "Prices",
    "PromptSet",
    "Size",
    "TextTokenizer",
    "WhitespaceTokenizer",
    "estimate_cost",
    "make_prices",
    "measure_cesium",
    "measure_suite",
    "read_price_file",
    "resolve_tokenizer",
]
