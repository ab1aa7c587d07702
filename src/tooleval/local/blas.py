"""Best-effort control of the OpenBLAS thread count numpy uses, without extra dependencies.

threadpoolctl does this properly but is not a tooleval dependency. OpenBLAS threads spin while
waiting for each other, so on an oversubscribed machine one thread can be several times faster
than two; the engine therefore lets callers choose.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_CORENAMES = (
    "scipy_openblas_get_corename64_",
    "openblas_get_corename64_",
    "openblas_get_corename",
)
_GETTERS = (
    "scipy_openblas_get_num_threads64_",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)


def _openblas_libraries() -> list[str]:
    """Paths of loaded shared libraries whose name mentions openblas (Linux only)."""
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    paths = {line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower()}
    return sorted(p for p in paths if p.startswith("/"))


def _call_first(names: tuple[str, ...], *args: int) -> int | None:
    import numpy  # noqa: F401  (loads the BLAS library numpy links)

    for path in _openblas_libraries():
        lib = ctypes.CDLL(path)
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                return int(fn(*args)) if not args else (fn(*args), 0)[1]
    return None


def set_blas_threads(n: int) -> bool:
    """Set the OpenBLAS thread count; False when no OpenBLAS library was found."""
    if n < 1:
        raise ValueError(f"thread count must be >= 1, got {n}")
    return _call_first(_SETTERS, n) is not None


def blas_threads() -> int | None:
    """The current OpenBLAS thread count, or None when unknown."""
    return _call_first(_GETTERS)


def blas_description() -> str:
    """E.g. ``OpenBLAS SkylakeX kernels, 1 thread``; ``unknown BLAS`` when not OpenBLAS."""
    import numpy  # noqa: F401

    for path in _openblas_libraries():
        lib = ctypes.CDLL(path)
        for name in _CORENAMES:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                core = fn().decode("ascii", "replace")
                return f"OpenBLAS {core} kernels, {blas_threads()} thread(s)"
    return "unknown BLAS"
