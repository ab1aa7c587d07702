"""Schema-constrained decoding: the output must be one valid call of one of the offered tools.

The constraint is a JSON Schema, ``anyOf`` one object per tool: ``{"name": <const>,
"arguments": <the tool's parameters schema>}``: the answer format the prompt asks for, so the
usual parser reads it like any free answer. It is written compactly (no spaces), like the tool
lines the InfraNode prompt lists (``suites.infranode.prompting.render_tools``): on that suite
this small model then finished every call within the token budget, where the spaced form left
one open.
llguidance compiles the schema against the engine's own vocabulary and computes, before every
decoding step, the set of tokens that keep the output a valid prefix; everything else gets
``-inf`` before the argmax. Once the call is complete only the stop token is allowed.

A row's mask depends only on the tokens that row generated, so batched constrained decoding gives
the same tokens as naive constrained decoding whenever the unconstrained logits are equal
(which the engine guarantees; see ``tooleval.local.ops``).

Schema keywords llguidance cannot enforce (``uniqueItems``, say) are ignored and reported by
``ToolGrammar.warnings``; everything else (enums, ``const``, required fields, types, patterns,
numeric bounds, ``minItems``/``maxItems``, ``additionalProperties: false``) is enforced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tooleval.local.gguf_model import F32
from tooleval.records import ToolSpec

# Compact JSON, as in the prompt's tool list; llguidance ignores (and reports) keywords it
# cannot enforce instead of refusing the schema.
JSON_FORMAT = {
    "whitespace_flexible": False,
    "item_separator": ",",
    "key_separator": ":",
    "lenient": True,
}

# Characters allowed in a string whose schema sets no bound of its own (slugs, search words).
MAX_STRING = 48


class GrammarError(ValueError):
    """The tools' schemas cannot be turned into a decoding constraint."""


def bound_strings(schema: Any, max_length: int) -> Any:
    """A copy of ``schema`` where every string without its own bound gets ``maxLength``.

    Greedy decoding of a small model can repeat inside a string forever; a free string that
    never closes would leave an unparseable call when the token budget ends.
    """
    if isinstance(schema, list):
        return [bound_strings(s, max_length) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bound_strings(v, max_length) for k, v in schema.items()}
    kinds = out.get("type")
    is_string = kinds == "string" or (isinstance(kinds, list) and "string" in kinds)
    if is_string and not any(k in out for k in ("maxLength", "enum", "const")):
        out["maxLength"] = max_length
    return out


def call_schema(tools: Sequence[ToolSpec], max_string: int | None = MAX_STRING) -> dict[str, Any]:
    """The JSON Schema of one call of any of ``tools``, in the prompt's answer format.

    ``max_string`` bounds strings the tool schemas leave unbounded (None: no bound).
    """
    if not tools:
        raise GrammarError("constrained decoding needs at least one tool")
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise GrammarError(f"tool names are not unique: {names}")

    def arguments(tool: ToolSpec) -> Any:
        params = dict(tool.parameters)
        return params if max_string is None else bound_strings(params, max_string)

    options = [
        {
            "type": "object",
            "properties": {"name": {"const": t.name}, "arguments": arguments(t)},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    return {"anyOf": options, "x-guidance": dict(JSON_FORMAT)}


@dataclass(frozen=True)
class ToolGrammar:
    """A compiled constraint over one vocabulary; cheap to instantiate per generated sequence."""

    tokenizer: Any  # llguidance.LLTokenizer
    grammar: str
    warnings: tuple[str, ...]

    def guide(self, rows: int) -> TokenGuide:
        """Fresh matchers for ``rows`` sequences (indexed 0..rows-1)."""
        import llguidance

        return TokenGuide(
            [llguidance.LLMatcher(self.tokenizer, self.grammar, log_level=0) for _ in range(rows)],
            self.tokenizer.vocab_size,
            self.tokenizer.eos_tokens,
        )


def compile_tools(
    tokenizer_json: str, stop_ids: Iterable[int], tools: Sequence[ToolSpec]
) -> ToolGrammar:
    """Compile the call schema of ``tools`` for the vocabulary in ``tokenizer_json``.

    ``tokenizer_json`` is the Hugging Face ``tokenizers`` serialisation of the engine's
    tokenizer; ``stop_ids`` end a sequence once the call is complete.
    """
    import llguidance

    stops = sorted(set(stop_ids))
    tokenizer = llguidance.LLTokenizer(tokenizer_json, eos_token=stops)
    grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(call_schema(tools)))
    failed, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, tokenizer)
    if failed:
        raise GrammarError(f"the tools' JSON Schemas cannot be enforced: {'; '.join(messages)}")
    return ToolGrammar(tokenizer, grammar, tuple(messages))


class TokenGuide:
    """Per-sequence llguidance matchers for one batch: masks logits, then follows the tokens."""

    def __init__(self, matchers: list[Any], vocab_size: int, stop_ids: Sequence[int]) -> None:
        import llguidance.numpy as llnp

        self._matchers = matchers
        self._vocab = vocab_size
        self._stop_ids = list(stop_ids)
        self._bitmask = llnp.allocate_token_bitmask(len(matchers), vocab_size)
        self._executor = _executor()

    def restrict(self, logits: F32, sequences: Sequence[int]) -> None:
        """Set disallowed logits to ``-inf``; row r of ``logits`` belongs to ``sequences[r]``.

        Rows whose sequence is negative (already finished) are left as they are. A matcher in
        an error state allows only the stop tokens, so the sequence ends there.
        """
        import llguidance.numpy as llnp

        live = [(row, seq) for row, seq in enumerate(sequences) if seq >= 0]
        if not live:
            return
        llnp.fill_next_token_bitmask_par(
            self._executor, [(self._matchers[seq], seq) for _, seq in live], self._bitmask
        )
        rows = np.asarray([row for row, _ in live])
        bits = self._bitmask[[seq for _, seq in live]]
        allowed = np.unpackbits(bits.view(np.uint8), axis=1, bitorder="little")[
            :, : logits.shape[1]
        ]
        for i, (_, seq) in enumerate(live):
            if self._matchers[seq].is_error() or not allowed[i].any():
                allowed[i] = 0
                allowed[i, self._stop_ids] = 1
        masked = np.where(allowed.astype(bool), logits[rows], np.float32(-np.inf))
        logits[rows] = masked

    def advance(self, sequence: int, token: int) -> None:
        """Tell sequence's matcher which token was chosen."""
        self._matchers[sequence].consume_token(token)

    def complete(self, sequence: int) -> bool:
        """Whether the sequence's output so far is a whole valid call."""
        matcher = self._matchers[sequence]
        return bool(matcher.is_accepting()) and not matcher.is_error()


_EXECUTOR: Any = None


def _executor() -> Any:
    """One llguidance thread pool per process (mask computation for many rows in parallel)."""
    global _EXECUTOR
    if _EXECUTOR is None:
        import llguidance

        _EXECUTOR = llguidance.LLExecutor()
    return _EXECUTOR
