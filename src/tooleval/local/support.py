"""Which GGUF files the numpy engine can run, checked from the header before any weight is read.

The engine implements one architecture: llama-style decoder blocks (RMSNorm, rotary position
embeddings without scaling, grouped-query attention, SwiGLU feed-forward, no biases). GGUF
files of that shape carry ``general.architecture = llama`` (SmolLM/SmolLM2, TinyLlama, ...).
Weights are dequantised to float32 at load time by the ``gguf`` package's numpy code, so the
tensor types are those it implements. The tokenizer must be byte-level BPE
(``tokenizer.ggml.model = gpt2``, see ``tooleval.local.tokenizer``) and the file must carry a
chat template. Anything else is refused with a message naming what is supported; such models
run through an OpenAI-compatible server instead (docs/backends/local-and-fake.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

SUPPORTED_ARCHITECTURES = ("llama",)
SUPPORTED_TENSOR_TYPES = (
    "F32",
    "F16",
    "BF16",
    "Q4_0",
    "Q4_1",
    "Q5_0",
    "Q5_1",
    "Q8_0",
    "Q2_K",
    "Q3_K",
    "Q4_K",
    "Q5_K",
    "Q6_K",
)
# Header fields whose presence means a variant of the architecture the engine does not compute.
_UNSUPPORTED_FEATURES = {
    "llama.expert_count": "mixture-of-experts layers",
    "llama.rope.scaling.type": "RoPE scaling",
}
# Header fields that, when present, must equal embedding_length / head_count.
_HEAD_SIZE_FIELDS = (
    "llama.attention.key_length",
    "llama.attention.value_length",
    "llama.rope.dimension_count",
)
_UNSUPPORTED_TENSORS = {"rope_freqs.weight": "RoPE frequency factors (Llama 3.1 style)"}


class UnsupportedModelError(ValueError):
    """A readable GGUF file that this engine cannot run."""


def supported_summary() -> str:
    """One line for error messages and docs."""
    return (
        f"architecture {', '.join(SUPPORTED_ARCHITECTURES)} (no RoPE scaling, no experts), "
        f"tensor types {', '.join(SUPPORTED_TENSOR_TYPES)}, byte-level BPE tokenizer, "
        "a chat template in the file"
    )


def _feature_problems(fields: Mapping[str, Any], tensor_names: Iterable[str]) -> list[str]:
    problems: list[str] = []
    for key, what in _UNSUPPORTED_FEATURES.items():
        value = fields.get(key)
        if value is not None and value not in ("none", 0):
            problems.append(f"{what} ({key} = {value!r})")
    head = _head_size(fields)
    for key in _HEAD_SIZE_FIELDS:
        value = fields.get(key)
        if value is not None and head is not None and int(value) != head:
            problems.append(f"{key} = {value} differs from the head size {head}")
    names = set(tensor_names)
    problems += [
        f"{what} (tensor {name})" for name, what in _UNSUPPORTED_TENSORS.items() if name in names
    ]
    return problems


def _head_size(fields: Mapping[str, Any]) -> int | None:
    dim, heads = fields.get("llama.embedding_length"), fields.get("llama.attention.head_count")
    return int(dim) // int(heads) if dim and heads else None


def check_supported(
    fields: Mapping[str, Any], tensor_types: Mapping[str, str], source: str
) -> None:
    """Raise UnsupportedModelError naming every reason this file cannot run.

    ``tensor_types`` maps tensor name to its GGML type name (``Q4_1``, ``F32``, ...).
    """
    problems: list[str] = []
    arch = fields.get("general.architecture")
    if arch not in SUPPORTED_ARCHITECTURES:
        problems.append(f"architecture {arch!r}")
    else:
        problems += _feature_problems(fields, tensor_types)
    odd = sorted({t for t in tensor_types.values() if t not in SUPPORTED_TENSOR_TYPES})
    if odd:
        problems.append(f"tensor type(s) {', '.join(odd)}")
    if fields.get("tokenizer.ggml.model") != "gpt2":
        problems.append(f"tokenizer {fields.get('tokenizer.ggml.model')!r}")
    if not fields.get("tokenizer.chat_template"):
        problems.append("no chat template (tokenizer.chat_template)")
    if problems:
        raise UnsupportedModelError(
            f"{source}: the local backend cannot run this model: {'; '.join(problems)}. "
            f"It runs: {supported_summary()}. Serve other models with llama.cpp, Ollama or "
            "vLLM and use --backend openai --base-url (docs/backends/local-and-fake.md)"
        )
