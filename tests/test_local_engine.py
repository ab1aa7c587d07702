"""The embedded numpy model: tokenizer, chat format, prefix reuse, batched == naive, provider."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tooleval.local.engine import Engine, shared_engine
from tooleval.local.gguf_model import ModelConfig
from tooleval.local.kv import OwnCache, common_prefix_length
from tooleval.local.ops import sum_in_order
from tooleval.local.tokenizer import ChatTokenizer, render_chatml
from tooleval.providers.base import BatchProvider, ErrorClass, Provider, ProviderError
from tooleval.providers.local import LocalProvider, truncate_at_stop
from tooleval.records import GenerationRequest, Message, ToolSpec

# Token ids produced by Hugging Face transformers (AutoTokenizer with gguf_file=) for the
# SmolLM2-135M-Instruct Q4_1 GGUF, recorded once so this test needs no transformers.
FIXTURE = json.loads(
    (Path(__file__).parent / "fixtures" / "local_tokenizer_ids.json").read_text(encoding="utf-8")
)
HF_IDS = [(item["text"], item["ids"]) for item in FIXTURE["strings"]]

SYSTEM = (
    "Du bist ein Assistent für deutsche Städte. Antworte nur mit einem JSON-Objekt der Form "
    '{"name": "<werkzeug>", "arguments": {...}}. Werkzeuge: weather(slug) liefert das aktuelle '
    "Wetter einer Stadt; pois(slug, type) listet Orte wie Apotheken oder Schulen; "
    "stations(slug) listet die Bahnhöfe mit EVA-Nummer; compare(cities, resource) vergleicht "
    "mehrere Städte. Slugs sind klein geschrieben, Umlaute als ae/oe/ue, zum Beispiel muenchen."
)
QUESTIONS = [
    "Wie ist das Wetter in Köln?",
    "Welche Apotheken gibt es in Bonn?",
    "Vergleiche die Luftqualität von Berlin, Hamburg und Dresden.",
    "Bahnhöfe in Leipzig?",
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return shared_engine(None)


@pytest.fixture(scope="module")
def tok(engine: Engine) -> ChatTokenizer:
    return ChatTokenizer(engine.model.tokenizer)


@pytest.mark.parametrize(("text", "expected"), HF_IDS)
def test_tokenizer_matches_transformers(tok: ChatTokenizer, text: str, expected: list[int]) -> None:
    assert tok.encode(text) == expected
    assert tok.decode(expected, skip_special=False) == text


def test_gguf_chat_template_matches_transformers(engine: Engine, tok: ChatTokenizer) -> None:
    chat = [("system", "Du bist ein Assistent."), ("user", "Wie wird das Wetter in München?")]
    text = engine.model.chat_template.render(chat)
    assert text == FIXTURE["chat"]["text"]
    assert tok.encode(text) == FIXTURE["chat"]["ids"]
    assert render_chatml(chat) == text  # the written-out copy measure uses agrees


def test_gguf_chat_template_adds_default_system_message(engine: Engine) -> None:
    text = engine.model.chat_template.render([("user", "Hi")], add_generation_prompt=False)
    assert text.startswith("<|im_start|>system\nYou are a helpful AI assistant named SmolLM")
    assert text.endswith("<|im_start|>user\nHi<|im_end|>\n")
    assert render_chatml([("user", "Hi")], add_generation_prompt=False) == text


def test_special_tokens_encode_to_single_ids(tok: ChatTokenizer) -> None:
    assert tok.encode("<|im_start|>") == [1]
    assert tok.encode("<|im_end|>") == [tok.im_end_id] == [2]


def test_common_prefix_length() -> None:
    assert common_prefix_length([[1, 2, 3, 4], [1, 2, 5], [1, 2, 3]]) == 2
    assert common_prefix_length([[7, 8], [7, 8]]) == 2
    assert common_prefix_length([[1], [2]]) == 0
    assert common_prefix_length([]) == 0


def test_sum_in_order_is_left_to_right() -> None:
    x = np.array([[1e8, 1.0, -1e8, 1.0]], dtype=np.float32)
    # (((1e8 + 1) - 1e8) + 1) = 1 in float32; a pairwise sum would give 2.
    assert sum_in_order(x, axis=-1)[0] == np.float32(1.0)


def test_own_cache_select_and_grow() -> None:
    cfg = ModelConfig(2, 8, 2, 1, 4, 16, 10, 64, 10000.0, 1e-5)
    cache = OwnCache.allocate(cfg, rows=3, capacity=4, offset=0)
    for i in range(2):
        for row in range(3):
            cache.k[i][row] = row + 1
    cache.length[:] = [1, 2, 3]
    cache.select_rows([2, 0])
    cache.ensure_capacity(6, block=4)
    assert cache.capacity == 8
    assert cache.k[1].shape == (2, 1, 8, 4)
    assert cache.k[1][0, 0, 3, 0] == 3 and cache.k[1][1, 0, 0, 0] == 1
    assert cache.k[1][0, 0, 4:].sum() == 0
    assert cache.v[1].shape == (2, 1, 8, 5) and (cache.v[1][..., 4] == 1).all()
    assert list(cache.length) == [3, 1]


def _prompts(tok: ChatTokenizer) -> list[list[int]]:
    return [tok.encode(render_chatml([("system", SYSTEM), ("user", q)])) for q in QUESTIONS]


def test_batched_equals_naive_with_shared_prefix(engine: Engine, tok: ChatTokenizer) -> None:
    prompts = _prompts(tok)[1:]  # suffixes of different lengths
    stop = {tok.im_end_id}
    result = engine.generate(prompts, 5, stop)
    assert result.prefix_length == common_prefix_length(prompts) > 128  # whole shared blocks
    assert all(len(t) == 5 for t in result.tokens)
    assert result.finish_reasons == ["length"] * len(prompts)
    assert len({tuple(t) for t in result.tokens}) > 1  # the questions matter
    naive = [engine.generate_naive(p, 5, stop) for p in prompts]
    assert result.tokens == naive


def test_identical_prompts_and_stop_ids(engine: Engine, tok: ChatTokenizer) -> None:
    prompt = _prompts(tok)[0]
    engine._last_prefix = None  # no prefix kept from earlier tests: detect it afresh
    both = engine.generate([prompt, prompt], 3, {tok.im_end_id})
    assert both.prefix_length == len(prompt) - 1
    first = both.tokens[0]
    assert both.tokens == [first, first] and len(first) == 3
    stopped = engine.generate([prompt], 3, {first[1]})
    assert stopped.tokens == [first[:1]] and stopped.finish_reasons == ["stop"]


def test_max_batch_groups_give_the_same_tokens(engine: Engine, tok: ChatTokenizer) -> None:
    prompts = _prompts(tok)[:2]
    whole = engine.generate(prompts, 2, {tok.im_end_id})
    grouped = engine.generate(prompts, 2, {tok.im_end_id}, max_batch=1)
    assert grouped.tokens == whole.tokens
    assert grouped.prefix_length == whole.prefix_length


def test_consecutive_calls_reuse_the_prefix_and_keep_outputs(
    engine: Engine, tok: ChatTokenizer
) -> None:
    prompts = _prompts(tok)[:3]
    whole = engine.generate(prompts, 2, {tok.im_end_id})
    cached = engine._last_prefix
    first = engine.generate(prompts[:1], 2, {tok.im_end_id})
    rest = engine.generate(prompts[1:], 2, {tok.im_end_id})
    assert engine._last_prefix is cached  # same shared prefix: not prefilled again
    assert first.tokens + rest.tokens == whole.tokens


def test_engine_rejects_bad_lengths(engine: Engine) -> None:
    with pytest.raises(ValueError, match="prompt 0 is empty"):
        engine.generate([[]], 2, set())
    with pytest.raises(ValueError, match="context length"):
        engine.generate([[1] * 10], engine.cfg.context_length, set())


def _request(question: str, **kw: object) -> GenerationRequest:
    messages = (Message("system", SYSTEM), Message("user", question))
    return GenerationRequest(messages=messages, **kw)  # type: ignore[arg-type]


def test_provider_protocols_and_usage(engine: Engine, tok: ChatTokenizer) -> None:
    provider = LocalProvider()
    assert isinstance(provider, Provider) and isinstance(provider, BatchProvider)
    assert provider.name == "local"
    reqs = [_request(q, max_tokens=n) for q, n in zip(QUESTIONS[:2], (3, 2), strict=True)]
    out = provider.generate_batch(reqs)
    expected = engine.generate(_prompts(tok)[:2], 3, {tok.im_end_id, tok.eos_id})
    for i, (response, prompt) in enumerate(zip(out, _prompts(tok)[:2], strict=True)):
        assert not isinstance(response, ProviderError)
        ids = expected.tokens[i][: reqs[i].max_tokens]  # each request's own max_tokens
        assert response.text == tok.decode(ids)
        assert response.finish_reason == "length"
        assert response.usage.input_tokens == len(prompt)
        assert response.usage.output_tokens == reqs[i].max_tokens
        assert response.usage.cached_input_tokens == expected.prefix_length > 0


def test_provider_stop_strings_and_native_mode(engine: Engine, tok: ChatTokenizer) -> None:
    provider = LocalProvider()
    full = provider.generate(_request(QUESTIONS[0], max_tokens=3))
    assert full.text and full.usage.cached_input_tokens == 0
    stop_at = full.text[len(full.text) // 2 :]
    cut = provider.generate(_request(QUESTIONS[0], max_tokens=3, stop=(stop_at,)))
    assert cut.finish_reason == "stop"
    assert cut.text == full.text[: full.text.find(stop_at)]
    tool = ToolSpec("weather", "Wetter", {"type": "object", "properties": {}})
    results = provider.generate_batch([_request(QUESTIONS[0], tools=(tool,))])
    assert isinstance(results[0], ProviderError)
    assert results[0].error_class is ErrorClass.CLIENT_ERROR
    assert "prompt mode" in str(results[0])


def test_truncate_at_stop() -> None:
    assert truncate_at_stop("abc}def}", ["}", "d"]) == ("abc", True)
    assert truncate_at_stop("abc", ["x", ""]) == ("abc", False)
