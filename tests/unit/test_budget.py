"""The judge budget: token buckets with an injected clock, and priority reserves."""

from __future__ import annotations

import pytest

from monitor.budget import BudgetSettings, JudgeBudget, TokenBucket, estimate_text_tokens


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_starts_full_and_refills_evenly() -> None:
    """A 60-per-minute bucket refills one token a second, never above capacity."""
    clock = FakeClock()
    bucket = TokenBucket(60, 60.0, clock)
    bucket.take(60)
    assert bucket.level == 0.0
    clock.now += 15
    assert bucket.level == pytest.approx(15.0)
    clock.now += 3600
    assert bucket.level == 60.0


def test_bucket_take_is_clamped_to_capacity() -> None:
    """One huge spend empties the bucket but cannot drive it below zero."""
    bucket = TokenBucket(100, 3600.0, FakeClock())
    assert bucket.can_take(10_000, floor=0.0)
    bucket.take(10_000)
    assert bucket.level == 0.0


def test_refund_never_overfills() -> None:
    """Giving tokens back stops at the capacity."""
    bucket = TokenBucket(5, 60.0, FakeClock())
    bucket.take(1)
    bucket.give(10)
    assert bucket.level == 5.0


def test_floor_shrinks_with_priority() -> None:
    """Priority 100 may drain to zero, priority 0 must leave the whole reserve."""
    bucket = TokenBucket(50, 60.0, FakeClock())
    assert bucket.floor(100, 0.2) == 0.0
    assert bucket.floor(0, 0.2) == pytest.approx(10.0)
    assert bucket.floor(50, 0.2) == pytest.approx(5.0)


def test_low_priority_stops_first_as_the_bucket_drains() -> None:
    """With a 50% reserve on 10 traces, priority 0 gets 5, then only priority 100 gets the rest."""
    budget = JudgeBudget(BudgetSettings(traces_per_minute=10, tokens_per_hour=None, reserve=0.5), FakeClock())
    low = [budget.try_spend(0, priority=0) for _ in range(8)]
    assert low == [True] * 5 + [False] * 3
    high = [budget.try_spend(0, priority=100) for _ in range(6)]
    assert high == [True] * 5 + [False]


def test_refill_lets_low_priority_back_in() -> None:
    """After the bucket refills with time, a refused low-priority trace is admitted again."""
    clock = FakeClock()
    budget = JudgeBudget(BudgetSettings(traces_per_minute=6, tokens_per_hour=None, reserve=0.0), clock)
    assert all(budget.try_spend(0, 0) for _ in range(6))
    assert not budget.try_spend(0, 0)
    clock.now += 9.9
    assert not budget.try_spend(0, 0)
    clock.now += 0.1
    assert budget.try_spend(0, 0)


def test_token_bucket_refuses_without_taking_a_trace() -> None:
    """When the token bucket cannot pay, the trace bucket is left untouched too."""
    budget = JudgeBudget(BudgetSettings(traces_per_minute=10, tokens_per_hour=1000, reserve=0.0), FakeClock())
    assert budget.try_spend(900, 50)
    assert not budget.try_spend(200, 50)
    assert budget.levels() == {"traces": pytest.approx(9.0), "tokens": pytest.approx(100.0)}


def test_can_spend_takes_nothing() -> None:
    """Asking whether a trace fits leaves the buckets as they were."""
    budget = JudgeBudget(BudgetSettings(traces_per_minute=1, tokens_per_hour=None), FakeClock())
    assert budget.can_spend(10, 100) and budget.can_spend(10, 100)
    assert budget.try_spend(10, 100)
    assert not budget.can_spend(10, 100)


def test_disabled_buckets_never_refuse() -> None:
    """Both limits off: every trace is admitted."""
    budget = JudgeBudget(BudgetSettings(traces_per_minute=None, tokens_per_hour=None), FakeClock())
    assert all(budget.try_spend(10**9, 0) for _ in range(1000))


def test_bad_reserve_is_refused() -> None:
    """A reserve outside 0..1 is a configuration mistake."""
    with pytest.raises(ValueError, match="reserve"):
        JudgeBudget(BudgetSettings(reserve=1.5))


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("abcd", 1),
        ("abcde", 2),
        ("退货政策", 4),
        ("退货 abcd", 4),
        ("반품 정책", 5),
        ("trả hàng 7 ngày", 4),
    ],
)
def test_text_token_estimate(text: str, tokens: int) -> None:
    """One token per CJK character, one per four other characters, rounded up."""
    assert estimate_text_tokens(text) == tokens
