"""A float32 numpy forward pass for llama-architecture models, with shared-prefix reuse.

``Engine.generate`` prefills the prompts' longest common token prefix once, prefills each
prompt's suffix (batched across prompts), then decodes all unfinished prompts together, one
token per step, dropping finished ones. ``Engine.generate_naive`` runs one prompt from scratch;
it is the reference the batched path must equal token for token. Why they are equal is
explained in ``tooleval.local.ops``; ``tests/test_local_engine.py`` checks it and
``bench/bench_local.py`` measures it on the full suite.
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from tooleval.local.blas import set_blas_threads
from tooleval.local.gguf_model import F32, LayerWeights, LoadedModel, load_model
from tooleval.local.kv import OwnCache, SharedPrefix, common_prefix_length
from tooleval.local.ops import BLOCK, I64, apply_rope, attend, linear, rms_norm, rope_tables

PREFILL_CHUNK = 256
SCORE_BUDGET = 12_000_000  # floats in one attention score matrix (bounds batch chunks)


class Guide(Protocol):
    """A decoding constraint for a group of sequences (``tooleval.local.constrain``)."""

    def restrict(self, logits: F32, sequences: Sequence[int]) -> None: ...

    def advance(self, sequence: int, token: int) -> None: ...


GuideFactory = Callable[[int], Guide]


@dataclass(frozen=True)
class BatchResult:
    """Generated ids per prompt (stop token excluded), why each ended, shared prefix length."""

    tokens: list[list[int]]
    finish_reasons: list[str]
    prefix_length: int
    seconds: dict[str, float] = field(default_factory=dict)  # per phase, for benchmarks


class Engine:
    """A loaded model plus the greedy generation entry points."""

    def __init__(self, model: LoadedModel, workers: int = 1) -> None:
        self.model = model
        self.cfg = model.weights.config
        self.workers = max(1, workers)
        self._cos, self._sin = rope_tables(self.cfg)
        self._scale = np.float32(1.0 / np.sqrt(self.cfg.head_dim))
        # The last prefilled prefix, reused while calls keep the same system prompt.
        self._last_prefix: tuple[tuple[int, ...], SharedPrefix, OwnCache] | None = None

    @classmethod
    def load(cls, path: str | Path | None = None, workers: int | None = None) -> Engine:
        """Load a GGUF (default: SmolLM2-135M).

        ``workers`` Python threads split each batch by rows (default: one per CPU); with more
        than one, OpenBLAS is set to a single thread so the workers do not oversubscribe the
        machine. Rows are computed independently, so the split never changes any result.
        """
        count = workers if workers is not None else (os.cpu_count() or 1)
        if count > 1:
            set_blas_threads(1)
        return cls(load_model(path), count)

    def _parallel(self, jobs: list[Callable[[], F32]]) -> list[F32]:
        if self.workers == 1 or len(jobs) == 1:
            return [job() for job in jobs]
        with ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(lambda job: job(), jobs))

    # ----------------------------------------------------------------- forward pass
    def _layer(
        self,
        lw: LayerWeights,
        x: F32,
        pos_abs: I64,
        cache: tuple[F32, F32],
        q_pos: I64,
        shared: tuple[F32, F32] | None,
    ) -> F32:
        """One block for rows x (B*T, dim) whose K/V are written into cache (B, G, L, D)."""
        cfg = self.cfg
        b, t = q_pos.shape
        g, hd, nh = cfg.n_kv_heads, cfg.head_dim, cfg.n_heads
        qkv = linear(rms_norm(x, lw.attn_norm, cfg.norm_eps), lw.wqkv)
        cos, sin = self._cos[pos_abs.ravel()], self._sin[pos_abs.ravel()]
        q = apply_rope(qkv[:, : nh * hd].reshape(-1, nh, hd), cos, sin) * self._scale
        k = apply_rope(qkv[:, nh * hd : (nh + g) * hd].reshape(-1, g, hd), cos, sin)
        v = qkv[:, (nh + g) * hd :].reshape(b, t, g, hd)
        rows = np.arange(b)[:, None]
        cache[0][rows, :, q_pos] = k.reshape(b, t, g, hd)
        cache[1][rows, :, q_pos, :hd] = v
        qg = q.reshape(b, t, g, nh // g, hd).transpose(0, 2, 1, 3, 4).reshape(b, g, -1, hd)
        att = attend(np.ascontiguousarray(qg), cache[0], cache[1], q_pos, shared)
        att = att.reshape(b, g, t, nh // g, hd).transpose(0, 2, 1, 3, 4).reshape(b * t, -1)
        x = x + linear(att, lw.wo)
        gate_up = linear(rms_norm(x, lw.ffn_norm, cfg.norm_eps), lw.w_gate_up)
        gate, up = gate_up[:, : cfg.ffn_dim], gate_up[:, cfg.ffn_dim :]
        act: F32 = (gate / (np.float32(1.0) + np.exp(-gate))).astype(np.float32, copy=False) * up
        out: F32 = x + linear(act, lw.w_down)
        return out

    def _forward(
        self, tokens: I64, own: OwnCache, rows: slice, q_pos: I64, shared: SharedPrefix | None
    ) -> F32:
        """Run tokens (B, T) at own positions q_pos through all layers; hidden (B, T, dim)."""
        b, t = tokens.shape
        x = self.model.weights.embed[tokens.ravel()]
        pos_abs = q_pos + own.offset
        keys = int(q_pos.max()) // BLOCK * BLOCK + BLOCK
        for i, lw in enumerate(self.model.weights.layers):
            cache = (own.k[i][rows, :, :keys], own.v[i][rows, :, :keys])
            sh = (shared.k[i], shared.v[i]) if shared is not None and shared.length else None
            x = self._layer(lw, x, pos_abs, cache, q_pos, sh)
        return x.reshape(b, t, -1)

    def _logits(self, hidden: F32) -> F32:
        w = self.model.weights
        return linear(rms_norm(hidden, w.final_norm, self.cfg.norm_eps), w.lm_head)

    # ----------------------------------------------------------------- prefill
    def _prefill_single(
        self, prompt: Sequence[int], own: OwnCache, keep: Sequence[int] = ()
    ) -> F32:
        """Prefill one sequence (own row 0) in chunks.

        Returns the hidden states at positions ``keep`` (default: the last position only).
        """
        ids = np.asarray(prompt, dtype=np.int64)
        wanted = list(keep) or [len(ids) - 1]
        kept: dict[int, F32] = {}
        for start in range(0, len(ids), PREFILL_CHUNK):
            chunk = ids[start : start + PREFILL_CHUNK][None, :]
            q_pos = np.arange(start, start + chunk.shape[1], dtype=np.int64)[None, :]
            hidden = self._forward(chunk, own, slice(0, 1), q_pos, None)[0]
            for pos in wanted:
                if start <= pos < start + chunk.shape[1]:
                    kept[pos] = hidden[pos - start]
        own.length[0] = len(ids)
        return np.stack([kept[pos] for pos in wanted])

    def logits_at(self, tokens: Sequence[int], positions: Sequence[int]) -> F32:
        """Next-token logits (len(positions), vocab) after each of ``positions`` in ``tokens``,
        from one plain forward pass (no shared prefix): for checks against other engines."""
        if not tokens or any(not 0 <= p < len(tokens) for p in positions):
            raise ValueError(f"positions must lie in [0, {len(tokens)})")
        own = OwnCache.allocate(self.cfg, 1, _round_up(len(tokens), BLOCK), offset=0)
        return self._logits(self._prefill_single(tokens, own, positions))

    def build_prefix(self, prefix: Sequence[int]) -> tuple[SharedPrefix, OwnCache]:
        """Prefill the common prefix once; split it into whole shared blocks and a tail."""
        cfg = self.cfg
        full = OwnCache.allocate(cfg, 1, _round_up(len(prefix), BLOCK), offset=0)
        if prefix:
            self._prefill_single(prefix, full)
        shared_len = len(prefix) // BLOCK * BLOCK
        shared = SharedPrefix.from_cache(full, shared_len, tuple(prefix))
        return shared, full

    def prefix_for(self, prompts: Sequence[Sequence[int]]) -> tuple[int, SharedPrefix, OwnCache]:
        """The shared prefix for ``prompts``: the last one built if every prompt extends it
        (the runner sends a suite in chunks, so the system prompt is prefilled once), else a
        new one over their common prefix. Where the prefix ends never changes an output."""
        last = self._last_prefix
        if last is not None and all(
            len(x) > len(last[0]) and tuple(x[: len(last[0])]) == last[0] for x in prompts
        ):
            return len(last[0]), last[1], last[2]
        p = min(common_prefix_length(prompts), min(len(x) for x in prompts) - 1)
        key = tuple(prompts[0][:p])
        shared, tail = self.build_prefix(list(key))
        self._last_prefix = (key, shared, tail)
        return p, shared, tail

    def _prefill_suffixes(
        self, prompts: Sequence[Sequence[int]], shared: SharedPrefix, tail: OwnCache
    ) -> tuple[OwnCache, F32, list[int]]:
        """Own caches (prefix tail copied in) and last hidden states, rows sorted by suffix length.

        Returns the cache, the last hidden state per row and the prompt index of each row.
        """
        p, s = len(shared.tokens), shared.length
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        suffixes = [list(prompts[i][p:]) for i in order]
        t_max = max(len(x) for x in suffixes)
        own = OwnCache.allocate(self.cfg, len(prompts), _round_up(p - s + t_max + 1, BLOCK), s)
        own.copy_tail(tail, s, p)
        budget = self.cfg.n_heads * (s + BLOCK) * self.workers
        spans = _chunks([len(x) for x in suffixes], budget)

        def job(b0: int, b1: int) -> F32:
            chunk = suffixes[b0:b1]
            width = max(len(x) for x in chunk)
            tokens = np.zeros((len(chunk), width), dtype=np.int64)
            for j, suf in enumerate(chunk):
                tokens[j, : len(suf)] = suf
            q_pos = np.arange(p - s, p - s + width, dtype=np.int64)[None, :].repeat(len(chunk), 0)
            hidden = self._forward(tokens, own, slice(b0, b1), q_pos, shared)
            return np.stack([hidden[j, len(suf) - 1] for j, suf in enumerate(chunk)])

        last = np.concatenate(self._parallel([functools.partial(job, *sp) for sp in spans]))
        own.length[:] = [p - s + len(x) for x in suffixes]
        return own, last, order

    # ----------------------------------------------------------------- decoding
    def _decode(
        self,
        own: OwnCache,
        shared: SharedPrefix | None,
        first_hidden: F32,
        row_ids: list[int],
        max_new_tokens: int,
        stop_ids: set[int],
        guide: Guide | None = None,
    ) -> tuple[list[list[int]], list[str]]:
        """Decode all rows together; results are indexed by ``row_ids`` (0..n-1 in any order).

        With a ``guide``, each step's logits are restricted to the tokens it allows (per prompt
        index) before the argmax, and the guide is told every token chosen.
        """
        n = first_hidden.shape[0]
        outputs: list[list[int]] = [[] for _ in range(n)]
        reasons = ["length"] * n
        alive = list(row_ids)  # prompt index of each own-cache row; -1 once finished
        logits = self._logits(first_hidden)
        for step in range(max_new_tokens):
            if guide is not None:
                guide.restrict(logits, alive)
            next_ids = np.argmax(logits, axis=-1)
            keep_rows: list[int] = []
            for row, idx in enumerate(alive):
                if idx < 0:
                    continue
                tok = int(next_ids[row])
                if tok in stop_ids:
                    reasons[idx] = "stop"
                    alive[row] = -1
                    continue
                outputs[idx].append(tok)
                keep_rows.append(row)
                if guide is not None:
                    guide.advance(idx, tok)
            if not keep_rows or step == max_new_tokens - 1:
                break
            finished = len(alive) - len(keep_rows)
            if finished and finished * 8 >= len(alive):
                own.select_rows(keep_rows)
                alive = [alive[r] for r in keep_rows]
                next_ids = next_ids[keep_rows]
            own.ensure_capacity(int(own.length.max()) + 1, BLOCK)
            logits = self._decode_step(next_ids, own, shared)
        return outputs, reasons

    def _decode_step(self, next_ids: I64, own: OwnCache, shared: SharedPrefix | None) -> F32:
        """Feed one token per row; rows are split across the workers. Returns logits."""
        q_pos = own.length.astype(np.int64)[:, None]
        n = len(next_ids)
        bounds = np.linspace(0, n, min(self.workers, n) + 1).astype(int)

        def job(b0: int, b1: int) -> F32:
            rows = slice(b0, b1)
            hidden = self._forward(next_ids[rows, None], own, rows, q_pos[rows], shared)
            return self._logits(hidden[:, 0])

        spans = list(itertools.pairwise(bounds))
        logits = np.concatenate(self._parallel([functools.partial(job, *sp) for sp in spans]))
        own.length += 1
        return logits

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        max_new_tokens: int,
        stop_ids: set[int],
        max_batch: int | None = None,
        guides: GuideFactory | None = None,
    ) -> BatchResult:
        """Greedy generation for many prompts sharing a token prefix (prefilled once).

        ``guides(n)`` makes the decoding constraint for a group of ``n`` prompts (None: free).
        """
        if not prompts:
            return BatchResult([], [], 0)
        self._check_lengths(prompts, max_new_tokens)
        clock = time.perf_counter()
        p, shared, tail = self.prefix_for(prompts)
        seconds = {"prefix": time.perf_counter() - clock, "suffix": 0.0, "decode": 0.0}
        tokens: list[list[int]] = []
        reasons: list[str] = []
        group = max_batch or len(prompts)
        for start in range(0, len(prompts), group):
            clock = time.perf_counter()
            own, last, rows = self._prefill_suffixes(prompts[start : start + group], shared, tail)
            seconds["suffix"] += time.perf_counter() - clock
            clock = time.perf_counter()
            guide = guides(len(rows)) if guides is not None else None
            out, why = self._decode(own, shared, last, rows, max_new_tokens, stop_ids, guide)
            seconds["decode"] += time.perf_counter() - clock
            tokens += out
            reasons += why
        return BatchResult(tokens, reasons, p, seconds)

    def generate_greedy(
        self, prompts: Sequence[Sequence[int]], max_new_tokens: int, stop_ids: set[int]
    ) -> list[list[int]]:
        return self.generate(prompts, max_new_tokens, stop_ids).tokens

    def generate_naive(
        self,
        prompt: Sequence[int],
        max_new_tokens: int,
        stop_ids: set[int],
        guides: GuideFactory | None = None,
    ) -> list[int]:
        """One prompt from scratch, no shared prefix: the reference for batched equality."""
        self._check_lengths([prompt], max_new_tokens)
        own = OwnCache.allocate(self.cfg, 1, _round_up(len(prompt) + 1, BLOCK), offset=0)
        last = self._prefill_single(prompt, own)
        guide = guides(1) if guides is not None else None
        out, _ = self._decode(own, None, last, [0], max_new_tokens, stop_ids, guide)
        return out[0]

    def _check_lengths(self, prompts: Sequence[Sequence[int]], max_new_tokens: int) -> None:
        if max_new_tokens < 0:
            raise ValueError(f"max_new_tokens must be >= 0, got {max_new_tokens}")
        for i, prompt in enumerate(prompts):
            if not prompt:
                raise ValueError(f"prompt {i} is empty")
            if len(prompt) + max_new_tokens > self.cfg.context_length:
                raise ValueError(
                    f"prompt {i}: {len(prompt)} tokens + {max_new_tokens} new exceed the "
                    f"context length {self.cfg.context_length}"
                )


@functools.lru_cache(maxsize=2)
def shared_engine(path: str | None = None) -> Engine:
    """One loaded engine per model path per process (loading takes seconds and ~0.6 GB)."""
    return Engine.load(path)


def _chunks(widths: list[int], cost_per_row: int) -> list[tuple[int, int]]:
    """Split rows (sorted by width) into [start, stop) runs whose score matrices fit the budget."""
    out: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(widths) + 1):
        if i == len(widths) or (i - start + 1) * widths[i] * cost_per_row > SCORE_BUDGET:
            out.append((start, i))
            start = i
    return out


def _round_up(n: int, multiple: int) -> int:
    return max(multiple, -(-n // multiple) * multiple)
