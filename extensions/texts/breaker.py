"""The judge's circuit breaker: stop paying the whole backoff for a judge that is gone.

After ``threshold`` connection failures, timeouts or rate limits (HTTP 429) in a row (any
other HTTP response, even a 5xx, counts as reachable and resets the count), the breaker
*opens*: every further attempt fails at once with "judge unreachable since …". After
``cooldown`` seconds one attempt is let through as a probe; if it reaches the server the
breaker closes, else it opens again for another cool-down. One breaker per session and
process (each pytest-xdist worker has its own). Thread-safe; the clock is injected. Pure
module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class BreakerOpen(Exception):
    """An attempt refused by the open breaker; ``str()`` says since when and why."""


class Breaker:
    """Counts consecutive unreachable or rate-limited attempts; ``threshold`` 0 turns the
    breaker off."""

    def __init__(
        self,
        threshold: int,
        cooldown: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None  # clock time the breaker (re)opened
        self._since: float | None = None  # wall time of the first failure of the streak
        self._last = ""
        self._probing = False

    def allow(self) -> None:
        """Before an attempt: return if it may go out, else raise :class:`BreakerOpen`."""
        with self._lock:
            if self._opened_at is None:
                return
            if not self._probing and self._clock() - self._opened_at >= self.cooldown:
                self._probing = True  # this attempt is the probe
                return
            raise BreakerOpen(self._describe())

    def succeeded(self) -> None:
        """The attempt reached the server (an HTTP response but 429): close the breaker."""
        with self._lock:
            self._failures = 0
            self._opened_at = self._since = None
            self._probing = False

    def failed(self, detail: str) -> bool:
        """The attempt could not connect, timed out or was rate-limited; returns whether the
        breaker is open now (the caller then stops retrying)."""
        with self._lock:
            self._failures += 1
            self._last = detail
            if self._since is None:
                self._since = self._wall()
            if self._probing or (self.threshold and self._failures >= self.threshold):
                self._opened_at = self._clock()
                self._probing = False
            return self._opened_at is not None

    def message(self) -> str:
        """What an open breaker says (empty while closed)."""
        with self._lock:
            return self._describe() if self._opened_at is not None else ""

    def _describe(self) -> str:
        since = time.strftime("%H:%M:%S", time.localtime(self._since or self._wall()))
        wait = max(0.0, self.cooldown - (self._clock() - (self._opened_at or 0.0)))
        return (
            f"judge unreachable since {since}: {self._failures} connection failures, "
            f"timeouts or rate limits in a row (the last: {self._last}); calls fail at once "
            f"until a probe gets through, the next in {wait:.0f} s (texts_breaker_failures, "
            "texts_breaker_cooldown)"
        )
