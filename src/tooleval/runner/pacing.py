"""Pacing shared by all workers: a requests-per-minute limiter and retry backoff."""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable

SPACING_MARGIN = 1.01


class RateLimiter:
    """Never more than ``rpm`` acquisitions in any sliding 60-second window, across threads.

    Calls are also spread evenly (at least ``SPACING_MARGIN * 60 / rpm`` seconds apart) so a
    burst at the start cannot use up a provider's per-second allowance. The 1 % margin absorbs
    the varying delay between acquiring a slot and the request reaching the provider, so the
    rate the provider counts stays at or below ``rpm`` too (docs/performance.md, ``--rpm``).
    """

    def __init__(
        self,
        rpm: float | None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.rpm = rpm
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._stamps: deque[float] = deque()
        self._next_slot = 0.0

    def wait_time(self, now: float) -> float:
        """Seconds to wait before a call at ``now`` may go (0 if it may go now)."""
        if not self.rpm:
            return 0.0
        while self._stamps and now - self._stamps[0] >= 60.0:
            self._stamps.popleft()
        wait = max(0.0, self._next_slot - now)
        if len(self._stamps) >= int(self.rpm):
            wait = max(wait, self._stamps[0] + 60.0 - now)
        return wait

    def acquire(self) -> None:
        if not self.rpm:
            return
        while True:
            with self._lock:
                now = self._clock()
                wait = self.wait_time(now)
                if wait <= 0:
                    self._stamps.append(now)
                    self._next_slot = now + SPACING_MARGIN * 60.0 / self.rpm
                    return
            self._sleep(wait)


def backoff_delay(
    attempt: int,
    retry_after: float | None,
    base: float = 1.0,
    cap: float = 60.0,
    rng: random.Random | None = None,
) -> float:
    """Delay before retry number ``attempt`` (1-based): Retry-After if given, else exponential
    backoff with full jitter, capped."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), cap * 5)
    high = min(cap, base * (2 ** (attempt - 1)))
    return (rng or random).uniform(high / 2, high)
