"""The BLAS thread count numpy uses, through threadpoolctl (OpenBLAS, MKL, BLIS, Accelerate).

BLAS threads spin while waiting for each other, so on an oversubscribed machine one thread can
be several times faster than two; the engine sets one BLAS thread per worker and splits the
batch across its own worker threads instead.
"""

from __future__ import annotations

from typing import Any


def _blas_pools() -> Any:
    import numpy  # noqa: F401  (loads the BLAS library numpy links)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def set_blas_threads(n: int) -> bool:
    """Limit every BLAS library numpy loaded to ``n`` threads; False when none was found."""
    if n < 1:
        raise ValueError(f"thread count must be >= 1, got {n}")
    pools = _blas_pools()
    if not pools.lib_controllers:
        return False
    pools.limit(limits=n)
    return True


def blas_threads() -> int | None:
    """The current BLAS thread count (the largest, if several libraries), or None when unknown."""
    counts = [int(info["num_threads"]) for info in _blas_pools().info()]
    return max(counts) if counts else None


def blas_description() -> str:
    """E.g. ``openblas 0.3.31 (Haswell kernels), 1 thread(s)``; ``unknown BLAS`` when none."""
    infos = _blas_pools().info()
    if not infos:
        return "unknown BLAS"
    parts = []
    for info in infos:
        arch = f" ({info['architecture']} kernels)" if info.get("architecture") else ""
        parts.append(
            f"{info['internal_api']} {info.get('version') or ''}{arch}, "
            f"{info['num_threads']} thread(s)"
        )
    return "; ".join(parts)
