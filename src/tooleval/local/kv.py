"""Key/value caches for the numpy engine: one shared prefix, and per-sequence ("own") caches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tooleval.local.gguf_model import F32, ModelConfig

I64 = npt.NDArray[np.int64]


def common_prefix_length(prompts: Sequence[Sequence[int]]) -> int:
    """Length of the longest token prefix shared by all prompts."""
    if not prompts:
        return 0
    first = prompts[0]
    n = min(len(p) for p in prompts)
    for other in prompts[1:]:
        i = 0
        while i < n and other[i] == first[i]:
            i += 1
        n = i
    return n


@dataclass
class OwnCache:
    """Keys per layer, shaped (rows, kv_heads, capacity, head_dim); values likewise with one
    more column that is always 1 (so attention gets its softmax weight sums from the same GEMM).

    Own index j holds absolute position ``offset + j``; ``length[r]`` own positions are valid for
    row r. Unused slots are zero (never NaN), so masked keys contribute exact zeros.
    """

    k: list[F32]
    v: list[F32]
    length: I64
    offset: int

    @classmethod
    def allocate(cls, cfg: ModelConfig, rows: int, capacity: int, offset: int) -> OwnCache:
        shape = (rows, cfg.n_kv_heads, capacity, cfg.head_dim)
        return cls(
            k=[np.zeros(shape, dtype=np.float32) for _ in range(cfg.n_layers)],
            v=[_values(rows, cfg.n_kv_heads, capacity, cfg.head_dim) for _ in range(cfg.n_layers)],
            length=np.zeros(rows, dtype=np.int64),
            offset=offset,
        )

    @property
    def capacity(self) -> int:
        return int(self.k[0].shape[2])

    def copy_tail(self, src: OwnCache, start: int, stop: int) -> None:
        """Copy absolute positions [start, stop) of src's row 0 into every row, from own index 0."""
        a, b = start - src.offset, stop - src.offset
        for i in range(len(self.k)):
            self.k[i][:, :, : b - a] = src.k[i][0:1, :, a:b]
            self.v[i][:, :, : b - a] = src.v[i][0:1, :, a:b]

    def select_rows(self, rows: Sequence[int]) -> None:
        """Keep only the given rows (in that order)."""
        index = np.asarray(rows, dtype=np.int64)
        self.k = [k[index] for k in self.k]
        self.v = [v[index] for v in self.v]
        self.length = self.length[index]

    def ensure_capacity(self, needed: int, block: int) -> None:
        """Grow every layer (one at a time, to bound peak memory) so ``needed`` positions fit."""
        if needed <= self.capacity:
            return
        new_cap = -(-needed // block) * block
        for i, old in enumerate(self.k):
            rows, heads, cap, dim = old.shape
            self.k[i] = np.zeros((rows, heads, new_cap, dim), dtype=np.float32)
            self.k[i][:, :, :cap] = old
            self.v[i], old_v = _values(rows, heads, new_cap, dim), self.v[i]
            self.v[i][:, :, :cap] = old_v


def _values(rows: int, heads: int, capacity: int, dim: int) -> F32:
    values = np.zeros((rows, heads, capacity, dim + 1), dtype=np.float32)
    values[..., dim] = 1.0
    return values


@dataclass(frozen=True)
class SharedPrefix:
    """The whole blocks of a prefilled common prefix, as (kv_heads, length, head_dim) per layer.

    ``tokens`` is the full common prefix; positions past ``length`` (the partial last block) are
    copied into each sequence's own cache instead.
    """

    k: tuple[F32, ...]
    v: tuple[F32, ...]
    length: int
    tokens: tuple[int, ...]

    @classmethod
    def from_cache(cls, cache: OwnCache, length: int, tokens: tuple[int, ...]) -> SharedPrefix:
        return cls(
            k=tuple(k[0, :, :length] for k in cache.k),
            v=tuple(v[0, :, :length] for v in cache.v),
            length=length,
            tokens=tokens,
        )
