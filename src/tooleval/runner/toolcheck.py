"""Did the tools arrive? A check on the first native request of a run.

Some OpenAI-compatible servers accept a ``tools`` array and quietly leave it out of the
prompt: llama-cpp-python's ``chatml-function-calling`` format without ``tool_choice``, a chat
template that cannot render tools, a model that Ollama serves without tool support. The model
then answers in prose and a whole run scores "never calls a tool". The server's own usage
figures show it: the prompt it reports is no larger than the same prompt without tools.

On the first request that offers tools (single-call runs and conversations alike), the guard
compares the reported ``prompt_tokens`` with the size of the prompt without tools:

1. an answer holding native tool calls proves the tools arrived (nothing more is asked);
2. where the model's tokenizer is known (``prompt_counter``: the SmolLM2 family), the prompt
   without tools is counted locally; a difference that clearly covers the tool schemas passes;
3. otherwise, and to confirm a miss before stopping a run, one tiny request without tools
   (same messages, ``max_tokens`` 1) is sent through the run's request path, and its reported
   ``prompt_tokens`` is the baseline.

The tools are judged missing when the difference is below ``MIN_SHARE`` of what the tool
schemas need (their names and parameter schemas as compact JSON, which every tool rendering
contains; descriptions are left out because some servers drop them). Then the run stops with
``ToolsNotDelivered`` naming the likely cause. A server that reports no ``prompt_tokens``
cannot be checked; the results say so. Everything but ``ToolsCheckGuard`` is pure.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cache
from typing import Any, Literal

from tooleval.providers.base import Provider, ProviderError
from tooleval.records import GenerationRequest, GenerationResponse, Message, ToolSpec
from tooleval.runner.records import RunConfig
from tooleval.runner.requests import RunControl, Stopped, generate_with_retries

Verdict = Literal["arrived", "missing", "unchecked"]
PromptCounter = Callable[[Sequence[Message]], int]

MIN_SHARE = 0.25
"""The tools count as arrived when the prompt grew by at least this share of what their
schemas need. Servers render tools differently (OpenAI more compactly than JSON, llama.cpp's
``chatml-function-calling`` without descriptions), but every rendering we measured needs far
more than a quarter of the names and parameter schemas; a dropped tool list adds nothing."""
COUNTED_SLACK = 48
"""A locally counted baseline may miss the server's template by a few tokens (a default
system message, a BOS token): a counted difference must also exceed this to pass."""
STOP_REASON = "tools_not_delivered"
DOCS_PAGE = "docs/backends/README.md"
SERVER_PAGES = {
    "llamacpp": "docs/backends/llama-cpp.md",
    "vllm": "docs/backends/vllm-sglang.md",
    "sglang": "docs/backends/vllm-sglang.md",
    "ollama": "docs/backends/ollama.md",
}


class ToolsNotDelivered(ValueError):
    """The server left the tools out of the prompt: a native run would score only zeros."""


@dataclass(frozen=True)
class ToolsCheck:
    """The figures of one check, as the results file records them (``tools_check``).

    ``method``: ``tool_calls_in_answer``, ``counted:<tokenizer>`` or
    ``request_without_tools``; ``prompt_tokens`` is what the server reported for the first
    request with tools, ``baseline_tokens`` the prompt without tools, ``needed_tokens`` the
    estimate for the tool schemas and ``threshold`` the least difference that passes.
    """

    verdict: Verdict
    method: str
    tools: int
    needed_tokens: int
    threshold: int
    prompt_tokens: int | None = None
    baseline_tokens: int | None = None
    reason: str | None = None

    @property
    def difference(self) -> int | None:
        if self.prompt_tokens is None or self.baseline_tokens is None:
            return None
        return self.prompt_tokens - self.baseline_tokens

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "difference": self.difference}


def tool_schema_text(tools: Sequence[ToolSpec]) -> str:
    """What every rendering of the tools contains: names and parameter schemas, compact."""
    rendered = [{"name": t.name, "parameters": dict(t.parameters)} for t in tools]
    return json.dumps(rendered, ensure_ascii=False, separators=(",", ":"))


def needed_tokens(tools: Sequence[ToolSpec], count_text: Callable[[str], int] | None) -> int:
    """Tokens the tool schemas need: counted with the model's tokenizer, else 4 chars a token."""
    text = tool_schema_text(tools)
    return count_text(text) if count_text else math.ceil(len(text) / 4)


def threshold_for(needed: int, counted: bool) -> int:
    """The least prompt growth that shows the tools arrived."""
    least = max(1, math.ceil(MIN_SHARE * needed))
    return max(least, COUNTED_SLACK) if counted else least


def judge(prompt_tokens: int, baseline_tokens: int, threshold: int) -> Verdict:
    return "arrived" if prompt_tokens - baseline_tokens >= threshold else "missing"


def probe_request(request: GenerationRequest) -> GenerationRequest:
    """The same messages without tools, one output token: the baseline's prompt."""
    return replace(request, tools=(), max_tokens=1, reasoning=None)


def missing_message(check: ToolsCheck, preset: str | None) -> str:
    """The stop message: the figures, the likely cause, where to read more, what to do."""
    page = SERVER_PAGES.get(preset or "", DOCS_PAGE)
    how = "counted locally" if check.method.startswith("counted") else "reported"
    return (
        f"the server left the tools out of the prompt: the first native request offered "
        f"{check.tools} tools, whose schemas need about {check.needed_tokens} tokens, but the "
        f"server reported {check.prompt_tokens} prompt tokens against {check.baseline_tokens} "
        f"without tools ({how}). Likely cause: the server ignored `tools` (llama-cpp-python's "
        "chatml-function-calling without tool_choice, a chat template that cannot render "
        "tools, vLLM/SGLang without a tool-call parser, an Ollama model without tool "
        f"support); see {page}. Fix the server, run --mode prompt, or pass --no-tools-check "
        "to run anyway"
    )


def check_of(
    request: GenerationRequest,
    response: GenerationResponse,
    counter: tuple[str, PromptCounter, Callable[[str], int]] | None,
) -> ToolsCheck:
    """The verdict from the first answer alone (tool calls, or a locally counted baseline);
    ``missing`` here is provisional until a request without tools confirms it."""
    count_text = counter[2] if counter else None
    needed = needed_tokens(request.tools, count_text)
    base = ToolsCheck("unchecked", "none", len(request.tools), needed, threshold_for(needed, False))
    reported = response.usage.input_tokens
    if response.tool_calls:
        return replace(base, verdict="arrived", method="tool_calls_in_answer",
                       prompt_tokens=reported)  # fmt: skip
    if reported is None:
        return replace(base, reason="the server reported no prompt_tokens")
    if counter is None:
        return replace(base, prompt_tokens=reported)
    name, count_prompt, _ = counter
    baseline = count_prompt(request.messages)
    threshold = threshold_for(needed, True)
    verdict = judge(reported, baseline, threshold)
    return replace(base, verdict=verdict, method=f"counted:{name}", prompt_tokens=reported,
                   baseline_tokens=baseline, threshold=threshold)  # fmt: skip


def confirm(check: ToolsCheck, probe: GenerationResponse | ProviderError) -> ToolsCheck:
    """The verdict with the reported baseline of the request without tools."""
    needed = check.needed_tokens
    unconfirmed = replace(check, verdict="unchecked", method="request_without_tools",
                          threshold=threshold_for(needed, False))  # fmt: skip
    if isinstance(probe, ProviderError):
        return replace(unconfirmed, reason=f"the request without tools failed: {probe}")
    baseline = probe.usage.input_tokens
    if baseline is None or check.prompt_tokens is None:
        return replace(unconfirmed, reason="the server reported no prompt_tokens")
    verdict = judge(check.prompt_tokens, baseline, unconfirmed.threshold)
    return replace(unconfirmed, verdict=verdict, baseline_tokens=baseline)


# --- the model's tokenizer, where known ------------------------------------------------------


def known_counter(model: str) -> tuple[str, PromptCounter, Callable[[str], int]] | None:
    """(name, prompt counter, text counter) for models whose tokenizer ships with tooleval:
    the SmolLM2 family (one vocabulary and ChatML template), from the embedded GGUF."""
    if "smollm2" not in model.lower().replace("-", "").replace("_", ""):
        return None

    def count_prompt(messages: Sequence[Message]) -> int:
        from tooleval.local.tokenizer import render_chatml

        pairs = [(m.role, m.content or "") for m in messages]
        return len(smollm2_tokenizer().encode(render_chatml(pairs)))

    def count_text(text: str) -> int:
        return len(smollm2_tokenizer().encode(text))

    return "smollm2", count_prompt, count_text


@cache
def smollm2_tokenizer() -> Any:
    """The embedded GGUF's tokenizer (metadata only; a few seconds, once per process)."""
    from gguf import GGUFReader

    from tooleval.local.gguf_model import default_model_path, read_fields
    from tooleval.local.tokenizer import ChatTokenizer, spec_from_fields

    path = default_model_path()
    return ChatTokenizer(spec_from_fields(read_fields(GGUFReader(str(path))), str(path)))


# --- the guard --------------------------------------------------------------------------------


class ToolsCheckGuard:
    """A provider that checks the first answer to a request with tools, then passes through.

    Requests that arrive while the check runs wait for it, so a run against a server that
    drops tools sends no more than the one request (and the request without tools) before it
    stops. After a miss the run halts (``stop_reason`` ``tools_not_delivered``) and
    ``ToolsNotDelivered`` is raised; its first answer is not scored.
    """

    def __init__(
        self,
        provider: Provider,
        control: RunControl,
        *,
        model: str,
        preset: str | None = None,
        counter: tuple[str, PromptCounter, Callable[[str], int]] | None = None,
    ) -> None:
        self.provider = provider
        self.name = provider.name
        self.control = control
        self.model = model
        self.preset = preset
        self.counter = counter
        self.check: ToolsCheck | None = None
        self._lock = threading.Lock()

    def generate(self, request: GenerationRequest) -> GenerationResponse:
        if not request.tools or self.check is not None:
            return self._pass(request)
        with self._lock:
            if self.check is not None:
                return self._pass(request)
            response = self.provider.generate(request)
            check = check_of(request, response, self.counter)
            if check.verdict != "arrived" and check.prompt_tokens is not None:
                check = confirm(check, self._probe(request))
            self.check = check
        if check.verdict == "missing":
            message = missing_message(check, self.preset)
            self.control.halt(f"{STOP_REASON}: {message}")
            raise ToolsNotDelivered(message)
        return response

    def _pass(self, request: GenerationRequest) -> GenerationResponse:
        if self.check is not None and self.check.verdict == "missing":
            raise Stopped(self.control.stop_reason)
        return self.provider.generate(request)

    def _probe(self, request: GenerationRequest) -> GenerationResponse | ProviderError:
        try:
            return generate_with_retries(self.provider, probe_request(request), self.control)[0]
        except ProviderError as error:
            return error


def guard_tools(
    provider: Provider, config: RunConfig, control: RunControl
) -> tuple[Provider, ToolsCheckGuard | None]:
    """The provider to run with: guarded for native runs on an OpenAI-compatible server
    (``config.tools_check`` switches the check off)."""
    wanted = config.mode == "native" and config.backend == "openai" and config.tools_check
    if not wanted:
        return provider, None
    guard = ToolsCheckGuard(
        provider, control, model=config.model, preset=config.preset,
        counter=known_counter(config.model),
    )  # fmt: skip
    return guard, guard


def tools_check_section(guard: ToolsCheckGuard | None) -> dict[str, Any] | None:
    """The results file's ``tools_check``: null when no check applied."""
    if guard is None:
        return None
    if guard.check is None:
        return {"verdict": "unchecked", "reason": "no request with tools was answered"}
    return guard.check.to_json()
