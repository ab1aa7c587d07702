"""Pacing shared by all workers of every command: a requests-per-minute limiter and the one
retry backoff rule (jittered, capped, Retry-After honoured)."""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable

SPACING_MARGIN = 1.01
MAX_WAIT_S = 3600.0  # one wait on the stop signal at most this long (then look again)


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
        if len(self._stamps) >= max(1, int(self.rpm)):
            wait = max(wait, self._stamps[0] + 60.0 - now)
        return wait

    def acquire(self, stop: threading.Event | None = None) -> bool:
        """Wait for a slot; False (no slot taken) as soon as ``stop`` is set while waiting."""
        if not self.rpm:
            return True
        while True:
            with self._lock:
                now = self._clock()
                wait = self.wait_time(now)
                if wait <= 0:
                    self._stamps.append(now)
                    self._next_slot = now + SPACING_MARGIN * 60.0 / self.rpm
                    return True
            wait = min(wait, MAX_WAIT_S)  # a tiny rpm must not overflow the wait
            if stop is None:
                self._sleep(wait)
            elif stop.wait(wait):
                return False


BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0
RETRY_AFTER_CAP_S = 300.0


def backoff_delay(
    attempt: int,
    retry_after: float | None,
    base: float = BACKOFF_BASE_S,
    cap: float = BACKOFF_CAP_S,
    rng: random.Random | None = None,
) -> float:
    """Delay before retry number ``attempt`` (1-based): the server's Retry-After if given (at
    most ``RETRY_AFTER_CAP_S``), else exponential backoff with jitter (between half and all of
    ``base * 2**(attempt-1)``), capped at ``cap``."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), RETRY_AFTER_CAP_S)
    high = min(cap, base * 2.0 ** min(attempt - 1, 64))  # no overflow after 1,000 retries
    return (rng or random).uniform(high / 2, high)
