"""Prompt sizes and cost estimates: trivial tokenizers, a real tokenizer.json, the embedded BPE."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from conftest import make_mini_suite
from tooleval.commands import measure as measure_command
from tooleval.measure import (
    NamedTokenizer,
    Prices,
    PromptSet,
    Size,
    WhitespaceTokenizer,
    estimate_cost,
    make_prices,
    measure_cesium,
    measure_suite,
    read_price_file,
    resolve_tokenizer,
)
from tooleval.measure.cost import mean_output_tokens
from tooleval.measure.prompts import ItemPrompt
from tooleval.records import Task, ToolCall, ToolSpec
from tooleval.suites import Suite
from tooleval.suites.infranode.prompting import system_prompt

WORDS = NamedTokenizer("whitespace", WhitespaceTokenizer())
TOOLS = (ToolSpec("weather", "Das Wetter", {"type": "object", "properties": {}}),)


def mini_suite() -> Suite:
    tasks = tuple(
        Task(f"t-{i}", "c", f"Wie ist das Wetter in Stadt{i}?", ToolCall("weather", {}), "1")
        for i in range(3)
    )
    return make_mini_suite(tasks, TOOLS, ("c",))


def fixed_prompts(prefix_tokens: int = 100, body_tokens: int = 10, n: int = 10) -> PromptSet:
    items = tuple(ItemPrompt(f"i{k}", "p", Size(40, body_tokens)) for k in range(n))
    return PromptSet("s", "prompt", "t", {"p": Size(400, prefix_tokens)}, items)


def test_suite_prompt_splits_into_one_shared_prefix_and_items() -> None:
    prompts = measure_suite(mini_suite(), "prompt", WORDS)
    system = system_prompt(TOOLS, "prompt")
    assert list(prompts.prefixes.values()) == [Size(len(system), len(system.split()))]
    assert [i.body for i in prompts.items] == [Size(29, 6)] * 3
    assert prompts.total_tokens == 3 * (len(system.split()) + 6)
    assert prompts.total_chars == 3 * (len(system) + 29)


def test_native_mode_counts_the_tools_in_the_prefix() -> None:
    native = measure_suite(mini_suite(), "native", WORDS)
    prefix = next(iter(native.prefixes.values()))
    assert '"weather"' in json.dumps(prefix.__dict__) or prefix.chars > len(
        system_prompt(TOOLS, "native")
    )
    assert native.notes and "estimated" in native.notes[0]


def test_cost_with_and_without_caching_hand_computed() -> None:
    prices = Prices(input=1.0, output=2.0, cached_input=0.1, output_tokens=5)
    cost = estimate_cost(fixed_prompts(), prices)
    # uncached: 10 x 110 input tokens at $1/M + 50 output tokens at $2/M
    assert cost.cost_uncached == pytest.approx(1100e-6 + 100e-6)
    # cached: the prefix is paid in full once, then 9 x 100 tokens at $0.1/M
    assert cost.cached_input_tokens == 900
    assert cost.cost_cached == pytest.approx(200e-6 + 90e-6 + 100e-6)


def test_short_prefix_is_not_cached_and_repeats_multiply() -> None:
    prices = Prices(input=1.0, output=0.0, cached_input=0.1, min_cached_prefix=1024)
    cost = estimate_cost(fixed_prompts(), prices, repeats=3)
    assert cost.requests == 30 and cost.cached_input_tokens == 0
    assert cost.cost_cached == cost.cost_uncached == pytest.approx(3300e-6)


def test_price_file_is_validated_with_its_name(tmp_path: Path) -> None:
    good = tmp_path / "p.toml"
    good.write_text("input = 0.4\ncached_input = 0.1\noutput = 1.6\noutput_tokens = 40\n")
    prices = make_prices(read_price_file(good), str(good))
    assert prices == Prices(0.4, 1.6, 0.1, 40.0, 0)
    bad = tmp_path / "bad.json"
    bad.write_text('{"input": 1, "ouput": 2}')
    with pytest.raises(ValueError, match=r"bad\.json.*ouput"):
        read_price_file(bad)
    with pytest.raises(ValueError, match="no output price"):
        make_prices({"input": 1.0}, "flags")


def test_mean_output_tokens_from_results_usage() -> None:
    doc = {
        "items": [
            {"score": {"call_match": 1}, "usage": {"output_tokens": 10}},
            {"score": {"call_match": 0}, "usage": {"output_tokens": 30}},
            {"score": None, "usage": {"output_tokens": 99}},  # a provider error: not counted
        ]
    }
    assert mean_output_tokens(doc) == 20


def word_level_tokenizer(path: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "Wie": 1, "ist": 2, "das": 3, "Wetter": 4}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path))
    return path


def test_tokenizer_json_by_path(tmp_path: Path) -> None:
    named = resolve_tokenizer(str(word_level_tokenizer(tmp_path / "tokenizer.json")))
    assert named.tokenizer.encode("Wie ist das Wetter ?") == [1, 2, 3, 4, 0]
    assert resolve_tokenizer(str(tmp_path)).count("Wie ist") == 2  # the folder works too
    with pytest.raises(ValueError, match="--tokenizer"):
        resolve_tokenizer(str(tmp_path / "nope"))


def test_embedded_tokenizer_counts_chatml_markers_once() -> None:
    embedded = resolve_tokenizer("embedded")
    assert embedded.template == "chatml"
    prompts = measure_suite(mini_suite(), "prompt", embedded)
    body = prompts.items[0].body
    question = embedded.count("Wie ist das Wetter in Stadt0?")
    # <|im_start|>user\n … <|im_end|>\n<|im_start|>assistant\n: three special tokens plus
    # "user", "assistant" and newlines around the question
    assert question < body.tokens <= question + 9
    assert embedded.count("<|im_start|>") == 1


def test_cesium_scenarios_use_their_routed_tools() -> None:
    prompts = measure_cesium(WORDS, "improved")
    assert len(prompts.items) == 15
    assert len(prompts.prefixes) > 1  # different scenarios route different tools
    assert all(" tools: " in i.detail for i in prompts.items)
    original = measure_cesium(WORDS, "original")
    assert original.total_tokens != prompts.total_tokens
    everything = measure_cesium(WORDS, "all")
    assert len(everything.prefixes) <= 2  # one per locale: every scenario gets all tools
    assert everything.total_tokens > max(prompts.total_tokens, original.total_tokens)


def call(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    measure_command.register(parser.add_subparsers())
    args = parser.parse_args(["measure", *argv])
    code: int = args.func(args)
    return code


def test_command_prints_sizes_and_costs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tokenizer = str(word_level_tokenizer(tmp_path / "tokenizer.json"))
    flags = ["--price-input", "1", "--price-output", "2", "--output-tokens", "10"]
    assert call("--suite", "cesium", "--tokenizer", tokenizer, "--json", *flags) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["items"] == 15 and data["cost"]["requests"] == 15
    assert data["total"]["tokens"] == sum(i["input_tokens"] for i in data["item_sizes"])
    assert call("--suite", "cesium", "--tokenizer", tokenizer, "--per-item") == 0
    assert "view-instant-en" in capsys.readouterr().out


def test_command_reports_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert call("--suite", "cesium", "--tokenizer", str(tmp_path / "missing.json")) == 2
    assert "missing.json" in capsys.readouterr().err
