"""Pure statistics for reports: Wilson score intervals and the exact McNemar test.

Intervals are Wilson score intervals (not the normal approximation): they stay inside [0, 1]
and behave sensibly at 0 % and 100 %, which matters on a suite of 91 items. Paired
comparisons use the exact (binomial) McNemar test on the discordant items, two-sided, and a
seeded paired percentile bootstrap for the interval of the difference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
INTERVAL_METHOD = "Wilson score interval, 95 %"
PAIRED_METHOD = "exact McNemar test (two-sided binomial on discordant items)"
DELTA_METHOD = "paired percentile bootstrap, 95 %, 2000 resamples, seed 0"


@dataclass(frozen=True)
class Rate:
    """``k`` successes out of ``n`` with a 95 % Wilson interval; all None when ``n`` is 0."""

    k: int
    n: int
    value: float | None
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, float | int | None]:
        return {"k": self.k, "n": self.n, "value": self.value, "low": self.low, "high": self.high}


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials (``n`` > 0)."""
    if n <= 0:
        raise ValueError(f"wilson_interval needs n > 0, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"wilson_interval needs 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = (z / (1 + z2 / n)) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int, z: float = 1.96) -> Rate:
    """A Rate for ``k`` of ``n``; an empty denominator gives an all-None rate."""
    if n == 0:
        return Rate(k, n, None, None, None)
    low, high = wilson_interval(k, n, z)
    return Rate(k, n, k / n, low, high)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs.

    Under the null each discordant pair goes either way with probability 1/2, so the p-value is
    twice the smaller binomial tail, capped at 1. No discordant pairs gives p = 1.
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_exact needs non-negative counts, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = float(sum(math.comb(n, i) for i in range(min(b, c) + 1))) / float(2**n)
    return min(1.0, 2 * tail)


def paired_bootstrap_delta(
    a: Sequence[int], b: Sequence[int], resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of mean(b - a), resampling items (pairs) with replacement.

    Deterministic for a given seed. Raises ValueError for unequal or empty inputs.
    """
    if len(a) != len(b) or not a:
        raise ValueError(
            f"paired_bootstrap_delta needs two equal, non-empty lists ({len(a)}, {len(b)})"
        )
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[int(tail * resamples)]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return low, high
