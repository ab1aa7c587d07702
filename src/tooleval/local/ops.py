"""Numpy building blocks of the forward pass, written so that each row's result is batch-invariant.

- Matrix products always go through BLAS GEMM with at least ``MIN_ROWS`` rows: one-row products
  would take the GEMV path, and very small ones OpenBLAS's small-matrix kernel, and both sum in a
  different order than the blocked GEMM kernel.
- Attention splits the keys into blocks of ``BLOCK`` positions aligned at absolute position 0.
  Each block's softmax numerators times values is one GEMM with a 64-long inner dimension (the
  values carry an extra ones column, so the same GEMM yields the block's weight sum). Block
  results are then added strictly left to right (``sum_in_order``). A shared prefix covers whole
  blocks, so a batched row adds exactly the same numbers in the same order as a row that owns
  all of its keys. Masked keys contribute exact zeros.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tooleval.local.gguf_model import F32, ModelConfig

BLOCK = 64
MIN_ROWS = 8

I64 = npt.NDArray[np.int64]


def linear(x: F32, w: F32) -> F32:
    """``x @ w`` through GEMM with at least MIN_ROWS rows (see module docstring)."""
    n = x.shape[0]
    if n >= MIN_ROWS:
        return np.ascontiguousarray(x) @ w
    padded = np.zeros((MIN_ROWS, x.shape[1]), dtype=np.float32)
    padded[:n] = x
    return (padded @ w)[:n]


def rms_norm(x: F32, weight: F32, eps: float) -> F32:
    mean_sq = np.mean(np.square(x), axis=-1, keepdims=True)
    out: F32 = (x * (np.float32(1.0) / np.sqrt(mean_sq + np.float32(eps)))) * weight
    return out


def rope_tables(cfg: ModelConfig) -> tuple[F32, F32]:
    half = cfg.head_dim // 2
    inv_freq = cfg.rope_theta ** (-np.arange(half, dtype=np.float64) * 2.0 / cfg.head_dim)
    angles = np.outer(np.arange(cfg.context_length, dtype=np.float64), inv_freq)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def apply_rope(x: F32, cos: F32, sin: F32) -> F32:
    """Rotate-half RoPE. x: (N, heads, D); cos/sin: (N, D/2) for each row's position."""
    half = x.shape[-1] // 2
    c, s = cos[:, None, :], sin[:, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    out = np.empty_like(x)
    out[..., :half] = x1 * c - x2 * s
    out[..., half:] = x2 * c + x1 * s
    return out


def _block_products(e: F32, v: F32) -> F32:
    """Per-block ``e @ v``: (..., R, L) x (..., L, D + 1) -> (..., nb, R, D + 1).

    The last column of ``v`` is all ones, so each block's last output column is its weight sum.
    """
    *lead, rows, length = e.shape
    nb = length // BLOCK
    blocks = e.reshape(*lead, rows, nb, BLOCK).swapaxes(-3, -2)
    return blocks @ v.reshape(*lead, nb, BLOCK, v.shape[-1])


def _masked_scores(q: F32, own_k: F32, q_pos: I64) -> F32:
    """Scores (B, G, R, L) of queries against their own keys; invisible keys get -inf."""
    b, g, r, _ = q.shape
    t, length = q_pos.shape[1], own_k.shape[2]
    scores = q @ own_k.swapaxes(-1, -2)
    hidden = np.arange(length)[None, None, :] > q_pos[:, :, None]  # (B, T, L)
    view = scores.reshape(b, g, t, r // t, length)
    np.copyto(view, np.float32(-np.inf), where=hidden[:, None, :, None, :])
    return scores


def attend(q: F32, own_k: F32, own_v: F32, q_pos: I64, shared: tuple[F32, F32] | None) -> F32:
    """Attention for B sequences, G key/value heads, R = T * heads-per-group query rows.

    q: (B, G, R, D), already scaled; own_k: (B, G, L, D); own_v: (B, G, L, D + 1) with a ones
    column; q_pos: (B, T) own-relative positions (key j is visible to a query at p iff j <= p);
    shared: keys (G, S, D) and values (G, S, D + 1) visible to every query, S a multiple of
    BLOCK. Returns (B, G, R, D).
    """
    b, g, r, d = q.shape
    s_own = _masked_scores(q, own_k, q_pos)
    m = s_own.max(axis=-1)
    if shared is not None:
        q_sh = np.ascontiguousarray(q.transpose(1, 0, 2, 3)).reshape(g, b * r, d)
        s_sh = q_sh @ shared[0].swapaxes(-1, -2)  # (G, B*R, S)
        m = np.maximum(m, s_sh.max(axis=-1).reshape(g, b, r).transpose(1, 0, 2))
    s_own -= m[..., None]
    parts = _block_products(np.exp(s_own, out=s_own), own_v)  # (B, G, nb, R, D + 1)
    if shared is None:
        total = sum_in_order(parts, axis=2)
    else:
        s_sh -= np.ascontiguousarray(m.transpose(1, 0, 2)).reshape(g, b * r, 1)
        parts_sh = _block_products(np.exp(s_sh, out=s_sh), shared[1])  # (G, nb, B*R, D + 1)
        total = sum_in_order(parts_sh, axis=1).reshape(g, b, r, d + 1).transpose(1, 0, 2, 3)
        total = np.ascontiguousarray(total)
        for i in range(parts.shape[2]):
            total += parts[:, :, i]
    out: F32 = total[..., :d] / total[..., d:]
    return out


def sum_in_order(x: F32, axis: int) -> F32:
    """Sum along ``axis`` strictly left to right (no pairwise or vectorised reordering)."""
    view = np.moveaxis(x, axis, 0)
    acc: F32 = view[0].copy()
    for i in range(1, view.shape[0]):
        acc += view[i]
    return acc
