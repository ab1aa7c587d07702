"""The embedded local model (SmolLM2-135M-Instruct by default) as a tooleval provider.

Prompt mode only: the tools must already be written into the system message. Requests in one
batch share their longest common token prefix (the system prompt), which is prefilled once; all
items are then decoded together. Decoding is greedy, whatever the requested temperature.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from tooleval.local.engine import Engine, shared_engine
from tooleval.local.tokenizer import ChatTokenizer, render_chatml
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse, Message, Usage

NATIVE_MODE_MESSAGE = (
    "the local provider supports prompt mode only: write the tools into the system message "
    "instead of passing request.tools (native tool calling is not available for this model)"
)


@dataclass(frozen=True)
class _Prepared:
    index: int
    prompt: list[int]
    request: GenerationRequest


def message_text(message: Message) -> str:
    """The content of one message as the chat template shows it."""
    if message.content is not None:
        return message.content
    calls = [f'{{"name": "{c.name}", "arguments": {c.arguments}}}' for c in message.tool_calls]
    return "\n".join(calls)


def truncate_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """Cut ``text`` at the earliest stop string; say whether one was found."""
    cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


class LocalProvider:
    """In-process greedy generation with the numpy engine; the model loads on first use."""

    name = "local"

    def __init__(self, model_path: str | None = None, max_batch: int | None = None) -> None:
        if max_batch is not None and max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        self.model_path = model_path
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._loaded: tuple[Engine, ChatTokenizer] | None = None

    def _load(self) -> tuple[Engine, ChatTokenizer]:
        with self._lock:
            if self._loaded is None:
                try:
                    engine = shared_engine(self.model_path)
                except (OSError, ValueError) as exc:
                    raise ProviderError(ErrorClass.OTHER, f"local model: {exc}") from exc
                self._loaded = (engine, ChatTokenizer(engine.model.tokenizer))
            return self._loaded

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        result = self.generate_batch([request])[0]
        if isinstance(result, ProviderError):
            raise result
        return result

    def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse | ProviderError]:
        if not requests:
            return []
        engine, tok = self._load()
        results: list[GenerationResponse | ProviderError] = [
            ProviderError(ErrorClass.OTHER, "not run")
        ] * len(requests)
        ready: list[_Prepared] = []
        limit = engine.cfg.context_length
        for i, request in enumerate(requests):
            if request.tools:
                results[i] = ProviderError(ErrorClass.CLIENT_ERROR, NATIVE_MODE_MESSAGE)
                continue
            chat = [(m.role, message_text(m)) for m in request.messages]
            prompt = tok.encode(render_chatml(chat))
            if len(prompt) + request.max_tokens > limit or request.max_tokens < 1:
                results[i] = ProviderError(
                    ErrorClass.CLIENT_ERROR,
                    f"local model: {len(prompt)} prompt tokens + max_tokens {request.max_tokens} "
                    f"do not fit the context length {limit}",
                )
                continue
            ready.append(_Prepared(i, prompt, request))
        if ready:
            for item, response in zip(ready, self._run(engine, tok, ready), strict=True):
                results[item.index] = response
        return results

    def _run(
        self, engine: Engine, tok: ChatTokenizer, items: list[_Prepared]
    ) -> list[GenerationResponse]:
        max_new = max(item.request.max_tokens for item in items)
        stop_ids = {tok.im_end_id, tok.eos_id}
        batch = engine.generate([it.prompt for it in items], max_new, stop_ids, self.max_batch)
        cached = batch.prefix_length if len(items) > 1 else 0
        responses = []
        for item, full, reason in zip(items, batch.tokens, batch.finish_reasons, strict=True):
            ids = full[: item.request.max_tokens]
            if len(ids) < len(full):
                reason = "length"
            text, stopped = truncate_at_stop(tok.decode(ids), item.request.stop)
            responses.append(
                GenerationResponse(
                    text=text,
                    usage=Usage(
                        input_tokens=len(item.prompt),
                        output_tokens=len(ids),
                        cached_input_tokens=cached,
                    ),
                    finish_reason="stop" if stopped else reason,
                )
            )
        return responses
