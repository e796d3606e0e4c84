"""The judge budget: token buckets on judged traces per minute and estimated judge tokens per hour.

Over budget, priority decides. Each bucket keeps a *reserve*, a share of its capacity that only
high-priority reasons may dig into: a trace of priority ``p`` (0..100) may spend from a bucket only
if the bucket stays at or above ``reserve * capacity * (100 - p) / 100`` afterwards. Priority 100
(negative feedback by default) may empty the bucket; priority 0 must leave the whole reserve. So as a
bucket drains, the lowest priorities stop first and the highest keep going until it is truly empty.

Two lanes sit beside the shared buckets, so that the budget cannot take away what the monitor exists
for (``rules/sampling.yaml`` documents them): the random baseline's hourly floor per version
(``HourlyFloor``), and the negative-feedback overflow, a bucket only negative feedback may spend once
the shared buckets cannot pay (``JudgeBudget.try_overflow``).

The clock is injected (``time.monotonic`` by default) so tests are exact and instant.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime

Clock = Callable[[], float]
MAX_PRIORITY = 100
# Float slack so that a bucket refilled to exactly the amount it needs is not refused by rounding.
_EPSILON = 1e-9
HOUR_S = 3600.0
# Distinct keys (versions) with a floor of their own per hour; later ones share one, so a producer that
# stamps a new version on every trace cannot multiply the floor's cost (the metrics' label cap).
FLOOR_MAX_KEYS = 20
_SHARED_KEY = ("other",)


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
    negative_feedback_overflow_per_minute: float | None = 400.0


class JudgeBudget:
    """Both buckets together: a trace is admitted only if every enabled bucket can pay for it."""

    def __init__(self, settings: BudgetSettings, clock: Clock = time.monotonic) -> None:
        if not 0.0 <= settings.reserve <= 1.0:
            raise ValueError("reserve must be within 0..1")
        self.settings = settings
        self.traces = _bucket(settings.traces_per_minute, 60.0, clock)
        self.tokens = _bucket(settings.tokens_per_hour, HOUR_S, clock)
        self.overflow = _bucket(settings.negative_feedback_overflow_per_minute, 60.0, clock)
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

    def may_spend(self, priority: int) -> bool:
        """Whether the trace bucket would let one trace of ``priority`` through now. When it would not,
        no trace of that priority or below is admitted whatever its tokens: they need not be estimated."""
        traces = self.traces
        if traces is None:
            return True
        with self._lock:
            return traces.can_take(1.0, traces.floor(priority, self.settings.reserve))

    def _affordable(self, tokens: int, priority: int) -> bool:
        """Whether every enabled bucket can pay while keeping its floor for ``priority`` (the trace
        bucket first: when it is empty the token count does not matter)."""
        reserve = self.settings.reserve
        traces, tokens_bucket = self.traces, self.tokens
        if traces is not None and not traces.can_take(1.0, traces.floor(priority, reserve)):
            return False
        return tokens_bucket is None or tokens_bucket.can_take(
            float(tokens), tokens_bucket.floor(priority, reserve)
        )

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

    def try_overflow(self) -> bool:
        """Take one negative-feedback trace from the overflow bucket (the shared ones could not pay)."""
        with self._lock:
            if self.overflow is None or not self.overflow.can_take(1.0, 0.0):
                return False
            self.overflow.take(1.0)
            return True

    def refund_overflow(self) -> None:
        """Give back an overflow trace that was not judged after all."""
        with self._lock:
            if self.overflow is not None:
                self.overflow.give(1.0)

    def levels(self) -> dict[str, float | None]:
        """What is left in each bucket now (``None`` for a bucket that is off), for logs and debugging."""
        with self._lock:
            return {
                "traces": None if self.traces is None else self.traces.level,
                "tokens": None if self.tokens is None else self.tokens.level,
            }


class HourlyFloor:
    """At least ``per_hour`` claims per key in every clock hour, paced evenly: the random baseline's floor.

    Hours are ``clock() // 3600``. Within an hour a key may hold ``1 + per_hour * elapsed / 3600``
    claims (never more than ``per_hour``): one at once, then one every ``3600 / per_hour`` seconds, and
    an allowance not used yet carries over to later in the same hour. So with enough draws a key gets
    exactly ``per_hour`` claims each hour, spread over the hour rather than spent in its first minutes
    (a drift starting at minute 10 shows in the floor's sample at once). Counts start again at each hour;
    ``record`` counts claims made through other lanes too, so the floor only tops up what they gave.
    """

    def __init__(self, per_hour: int, clock: Clock = time.monotonic, max_keys: int = FLOOR_MAX_KEYS) -> None:
        if per_hour < 0:
            raise ValueError("per_hour must not be negative")
        self.per_hour = per_hour
        self._clock = clock
        self._max_keys = max_keys
        self._hour = -1
        self._counts: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def available(self, key: Hashable) -> bool:
        """Whether ``key`` is under its paced floor now (a claim would be granted)."""
        if not self.per_hour:
            return False
        with self._lock:
            now = self._clock()
            slot = self._slot(key, now)
            return self._counts.get(slot, 0) < self._allowed(now)

    def record(self, key: Hashable) -> None:
        """Count one claim (a random judgement) for ``key`` in the current hour."""
        with self._lock:
            slot = self._slot(key)
            self._counts[slot] = self._counts.get(slot, 0) + 1

    def count(self, key: Hashable) -> int:
        """Claims of ``key`` in the current hour."""
        with self._lock:
            return self._counts.get(self._slot(key), 0)

    def _allowed(self, now: float) -> int:
        elapsed = now % HOUR_S
        return min(self.per_hour, 1 + int(self.per_hour * elapsed / HOUR_S + _EPSILON))

    def _slot(self, key: Hashable, now: float | None = None) -> Hashable:
        hour = int((self._clock() if now is None else now) // HOUR_S)
        if hour != self._hour:
            self._hour, self._counts = hour, {}
        if key in self._counts or len(self._counts) < self._max_keys:
            return key
        return _SHARED_KEY


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
    if text.isascii() or _CJK.search(text) is None:  # scans in C: most texts hold no CJK at all
        return -(-len(text) // 4)
    cjk = len(_CJK.findall(text))
    return cjk + -(-(len(text) - cjk) // 4)


# Han, kana, Hangul, CJK punctuation and full-width forms: roughly one token per character.
_CJK = re.compile(
    "[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    "\uff00-\uffef\U00020000-\U0002ffff]"
)


def _bucket(limit: float | None, period_s: float, clock: Clock) -> TokenBucket | None:
    return None if limit is None else TokenBucket(limit, period_s, clock)
