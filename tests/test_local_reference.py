"""The numpy engine against an independent implementation: transformers on the same GGUF.

tests/fixtures/local_reference.json was recorded once by scripts/record_local_reference.py
(transformers + torch, float32 weights dequantised from the same file). This test fails when the
engine's chat template, tokenizer, forward pass or greedy decoding drifts from that reference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tooleval.local.engine import Engine, shared_engine
from tooleval.local.tokenizer import ChatTokenizer

REFERENCE = json.loads(
    (Path(__file__).parent / "fixtures" / "local_reference.json").read_text(encoding="utf-8")
)
CASES = REFERENCE["cases"]
# Both sides compute in float32 from the same dequantised weights; they differ only in the
# order of additions. Measured: at most 4e-5 on logits of magnitude up to 40.
LOGIT_TOLERANCE = 2e-3


@pytest.fixture(scope="module")
def engine() -> Engine:
    return shared_engine(None)


@pytest.fixture(scope="module")
def tok(engine: Engine) -> ChatTokenizer:
    return ChatTokenizer(engine.model.tokenizer)


def _prompt(engine: Engine, tok: ChatTokenizer, case: dict[str, Any]) -> list[int]:
    chat = [(m["role"], m["content"]) for m in case["messages"]]
    return tok.encode(engine.model.chat_template.render(chat))


def test_reference_was_recorded_from_this_model_file(engine: Engine) -> None:
    assert engine.model.path.name == REFERENCE["gguf_file"]
    assert engine.model.path.stat().st_size == REFERENCE["gguf_bytes"]
    assert len(CASES) >= 4 and any(len(c["prompt_ids"]) > 1000 for c in CASES)


@pytest.mark.parametrize("index", range(len(CASES)))
def test_prompt_ids_match_reference(engine: Engine, tok: ChatTokenizer, index: int) -> None:
    assert _prompt(engine, tok, CASES[index]) == CASES[index]["prompt_ids"]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_greedy_tokens_match_reference(engine: Engine, tok: ChatTokenizer, index: int) -> None:
    case = CASES[index]
    result = engine.generate(
        [case["prompt_ids"]], REFERENCE["max_new_tokens"], {tok.im_end_id, tok.eos_id}
    )
    assert result.tokens[0] == case["greedy_ids"]
    assert (result.finish_reasons[0] == "stop") == case["stopped"]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_logits_match_reference(engine: Engine, index: int) -> None:
    case = CASES[index]
    tokens = case["prompt_ids"] + case["greedy_ids"]
    points = case["logits"]
    ours = engine.logits_at(tokens, [p["position"] for p in points])
    for row, point in zip(ours, points, strict=True):
        reference = np.asarray(point["top_logits"], dtype=np.float32)
        np.testing.assert_allclose(row[point["top_ids"]], reference, atol=LOGIT_TOLERANCE, rtol=0)
        assert int(np.argmax(row)) == point["top_ids"][0]


def test_logits_at_checks_positions(engine: Engine) -> None:
    with pytest.raises(ValueError, match="positions"):
        engine.logits_at([1, 2, 3], [3])
