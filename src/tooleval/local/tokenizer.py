"""A byte-level BPE tokenizer rebuilt from a GGUF file's metadata (and a plain ChatML renderer).

The local backend renders prompts with the chat template stored in the GGUF
(``tooleval.local.chat_template``); ``render_chatml`` is the SmolLM2 template written out, kept
for prompt-size estimates (``tooleval measure``) that need no model file.

The vocabulary, merges and token types come from ``tokenizer.ggml.*``; the pre-tokenizer follows
the file's ``tokenizer.ggml.pre`` name the way llama.cpp reads it (for ``smollm``: each digit on
its own, then the GPT-2 split). Control tokens such as ``<|im_start|>`` are added as special
tokens, so they encode to a single id wherever they appear in the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

# llama.cpp token types (gguf.TokenType): 3 = control, 4 = user defined.
_SPECIAL_TOKEN_TYPES = frozenset({3, 4})
# Pre-tokenizer names whose GGUF vocabularies split every digit separately before the GPT-2 regex.
_DIGIT_SPLIT_PRE = frozenset({"smollm", "starcoder", "refact"})
_PLAIN_GPT2_PRE = frozenset({"gpt2", "default", "gpt-2"})

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
DEFAULT_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


class TokenizerError(ValueError):
    """The GGUF metadata does not describe a tokenizer this module can rebuild."""


@dataclass(frozen=True)
class TokenizerSpec:
    """The tokenizer fields of a GGUF file, already read."""

    model: str
    pre: str
    tokens: tuple[str, ...]
    merges: tuple[str, ...]
    token_types: tuple[int, ...]
    eos_id: int


def spec_from_fields(fields: dict[str, Any], source: str) -> TokenizerSpec:
    """Build a TokenizerSpec from GGUF metadata values (already decoded to Python values)."""

    def need(key: str) -> Any:
        if key not in fields:
            raise TokenizerError(f"{source}: GGUF metadata has no field {key!r}")
        return fields[key]

    model = str(need("tokenizer.ggml.model"))
    if model != "gpt2":
        raise TokenizerError(
            f"{source}: tokenizer.ggml.model is {model!r}; only 'gpt2' is supported"
        )
    tokens = tuple(str(t) for t in need("tokenizer.ggml.tokens"))
    types = tuple(int(t) for t in fields.get("tokenizer.ggml.token_type", [1] * len(tokens)))
    if len(types) != len(tokens):
        raise TokenizerError(f"{source}: tokenizer.ggml.token_type has {len(types)} entries")
    return TokenizerSpec(
        model=model,
        pre=str(fields.get("tokenizer.ggml.pre", "default")),
        tokens=tokens,
        merges=tuple(str(m) for m in need("tokenizer.ggml.merges")),
        token_types=types,
        eos_id=int(need("tokenizer.ggml.eos_token_id")),
    )


def _pre_tokenizer(pre: str) -> pre_tokenizers.PreTokenizer:
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre in _DIGIT_SPLIT_PRE:
        return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
    if pre in _PLAIN_GPT2_PRE:
        return byte_level
    raise TokenizerError(f"unsupported tokenizer.ggml.pre {pre!r}")


def build_tokenizer(spec: TokenizerSpec) -> Tokenizer:
    """A ``tokenizers.Tokenizer`` equivalent to the GGUF's byte-level BPE vocabulary."""
    vocab = {token: index for index, token in enumerate(spec.tokens)}
    merges = []
    for line in spec.merges:
        left, sep, right = line.partition(" ")
        if not sep:
            raise TokenizerError(f"malformed merge {line!r}")
        merges.append((left, right))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    tok.pre_tokenizer = _pre_tokenizer(spec.pre)
    tok.decoder = decoders.ByteLevel()
    specials = [
        AddedToken(t, special=True, normalized=False)
        for t, kind in zip(spec.tokens, spec.token_types, strict=True)
        if kind in _SPECIAL_TOKEN_TYPES
    ]
    tok.add_special_tokens(specials)
    return tok


class ChatTokenizer:
    """Encode/decode text and render ChatML conversations for one GGUF vocabulary."""

    def __init__(self, spec: TokenizerSpec) -> None:
        self.spec = spec
        self._tok = build_tokenizer(spec)
        self.eos_id = spec.eos_id
        self.im_end_id = self.token_id(IM_END)

    def token_id(self, token: str) -> int:
        index = self._tok.token_to_id(token)
        if index is None:
            raise TokenizerError(f"token {token!r} is not in the vocabulary")
        return int(index)

    def encode(self, text: str) -> list[int]:
        """Token ids for ``text``; special tokens written in the text become single ids."""
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Sequence[int], skip_special: bool = True) -> str:
        return str(self._tok.decode(list(ids), skip_special_tokens=skip_special))

    def to_json(self) -> str:
        """The Hugging Face ``tokenizers`` serialisation (what llguidance reads)."""
        return str(self._tok.to_str())


def render_chatml(messages: Sequence[tuple[str, str]], add_generation_prompt: bool = True) -> str:
    """Render (role, content) pairs with the SmolLM2 GGUF chat template (ChatML).

    Like the template, a conversation that does not start with a system message gets the
    model's default system message first.
    """
    parts: list[str] = []
    if messages and messages[0][0] != "system":
        parts.append(f"{IM_START}system\n{DEFAULT_SYSTEM}{IM_END}\n")
    for role, content in messages:
        parts.append(f"{IM_START}{role}\n{content}{IM_END}\n")
    if add_generation_prompt:
        parts.append(f"{IM_START}assistant\n")
    return "".join(parts)
