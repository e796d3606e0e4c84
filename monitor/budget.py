"""The judge budget: token buckets on judged traces per minute and estimated judge tokens per hour.

Over budget, priority decides. Each bucket keeps a *reserve*, a share of its capacity that only
high-priority reasons may dig into: a trace of priority ``p`` (0..100) may spend from a bucket only
if the bucket stays at or above ``reserve * capacity * (100 - p) / 100`` afterwards. Priority 100
(negative feedback by default) may empty the bucket; priority 0 must leave the whole reserve. So as a
bucket drains, the lowest priorities stop first and the highest keep going until it is truly empty.

The clock is injected (``time.monotonic`` by default) so tests are exact and instant.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

Clock = Callable[[], float]
MAX_PRIORITY = 100
# Float slack so that a bucket refilled to exactly the amount it needs is not refused by rounding.
_EPSILON = 1e-9


class TokenBucket:
    """A bucket of ``capacity`` tokens refilling at ``capacity / period_s`` tokens a second; starts full."""

    def __init__(self, capacity: float, period_s: float, clock: Clock = time.monotonic) -> None:
        if capacity <= 0 or period_s <= 0:
            raise ValueError("capacity and period_s must be positive")
        self.capacity = float(capacity)
        self.rate = self.capacity / period_s
        self._clock = clock
        self._level = self.capacity
        self._stamp = clock()

    @property
    def level(self) -> float:
        """Tokens available now."""
        self._refill()
        return self._level

    def floor(self, priority: int, reserve: float) -> float:
        """The level a spend of this priority must leave in the bucket."""
        return reserve * self.capacity * (MAX_PRIORITY - priority) / MAX_PRIORITY

    def can_take(self, amount: float, floor: float) -> bool:
        """Whether ``amount`` can be taken while leaving at least ``floor``."""
        return self.level - min(amount, self.capacity) >= floor - _EPSILON

    def take(self, amount: float) -> None:
        """Remove ``amount`` (clamped to the capacity, so one huge trace empties the bucket, not more)."""
        self._refill()
        self._level = max(0.0, self._level - min(amount, self.capacity))

    def give(self, amount: float) -> None:
        """Put tokens back (a refund), never above the capacity."""
        self._refill()
        self._level = min(self.capacity, self._level + amount)

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._level = min(self.capacity, self._level + elapsed * self.rate)


@dataclass(frozen=True, slots=True)
class BudgetSettings:
    """Limits from ``rules/sampling.yaml``; ``None`` switches a bucket off."""

    traces_per_minute: float | None = 60.0
    tokens_per_hour: float | None = 2_000_000.0
    reserve: float = 0.2


class JudgeBudget:
    """Both buckets together: a trace is admitted only if every enabled bucket can pay for it."""

    def __init__(self, settings: BudgetSettings, clock: Clock = time.monotonic) -> None:
        if not 0.0 <= settings.reserve <= 1.0:
            raise ValueError("reserve must be within 0..1")
        self.settings = settings
        self.traces = _bucket(settings.traces_per_minute, 60.0, clock)
        self.tokens = _bucket(settings.tokens_per_hour, 3600.0, clock)
        self._lock = threading.Lock()

    def can_spend(self, tokens: int, priority: int) -> bool:
        """Whether a trace of ``priority`` costing ``tokens`` would be admitted now (takes nothing)."""
        with self._lock:
            return self._affordable(tokens, priority)

    def try_spend(self, tokens: int, priority: int) -> bool:
        """Take one trace and ``tokens`` if ``priority`` allows it; on False nothing is taken."""
        with self._lock:
            if not self._affordable(tokens, priority):
                return False
            for bucket, amount in self._wanted(tokens):
                bucket.take(amount)
            return True

    def _affordable(self, tokens: int, priority: int) -> bool:
        reserve = self.settings.reserve
        return all(b.can_take(amount, b.floor(priority, reserve)) for b, amount in self._wanted(tokens))

    def _wanted(self, tokens: int) -> list[tuple[TokenBucket, float]]:
        pairs = ((self.traces, 1.0), (self.tokens, float(tokens)))
        return [(bucket, amount) for bucket, amount in pairs if bucket is not None]

    def refund(self, tokens: int) -> None:
        """Give back one trace and ``tokens`` when an admitted trace was not judged after all."""
        with self._lock:
            if self.traces is not None:
                self.traces.give(1.0)
            if self.tokens is not None:
                self.tokens.give(float(tokens))

    def levels(self) -> dict[str, float | None]:
        """What is left in each bucket now (``None`` for a bucket that is off), for logs and debugging."""
        with self._lock:
            return {
                "traces": None if self.traces is None else self.traces.level,
                "tokens": None if self.tokens is None else self.tokens.level,
            }


class EventClock:
    """Time as the traces tell it: the latest timestamp seen so far (``ragmon replay``).

    Refilling the budget by event time makes a replay decide the same way however fast the machine
    runs it; traces without a timestamp do not move the clock. The daemon keeps wall-clock time.
    """

    def __init__(self) -> None:
        self._now = 0.0

    def __call__(self) -> float:
        return self._now

    def observe(self, moment: datetime | None) -> None:
        """Move the clock to ``moment`` if it is later than every timestamp seen before."""
        if moment is not None:
            seconds = moment.timestamp() if moment.tzinfo else moment.replace(tzinfo=UTC).timestamp()
            self._now = max(self._now, seconds)


def estimate_text_tokens(text: str) -> int:
    """A cheap token estimate: one per CJK character, one per four other characters (rounded up)."""
    if not text or max(text) < _CJK_FIRST:  # a scan in C: most texts hold no CJK at all
        return -(-len(text) // 4)
    cjk = len(_CJK.findall(text))
    return cjk + -(-(len(text) - cjk) // 4)


_CJK_FIRST = "\u3000"
# Han, kana, Hangul, CJK punctuation and full-width forms: roughly one token per character.
_CJK = re.compile(
    "[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    "\uff00-\uffef\U00020000-\U0002ffff]"
)


def _bucket(limit: float | None, period_s: float, clock: Clock) -> TokenBucket | None:
    return None if limit is None else TokenBucket(limit, period_s, clock)
