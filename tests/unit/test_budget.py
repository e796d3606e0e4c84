"""The judge budget: token buckets with an injected clock, and priority reserves."""

from __future__ import annotations

import pytest

from monitor.budget import BudgetSettings, HourlyFloor, JudgeBudget, TokenBucket, estimate_text_tokens


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


def test_negative_feedback_overflow_is_a_bucket_of_its_own() -> None:
    """The overflow pays one trace at a time, refills per minute, refunds, and leaves the shared buckets."""
    clock = FakeClock()
    settings = BudgetSettings(1, None, negative_feedback_overflow_per_minute=2)
    budget = JudgeBudget(settings, clock)
    assert [budget.try_overflow() for _ in range(3)] == [True, True, False]
    assert budget.levels()["traces"] == 1.0
    budget.refund_overflow()
    assert budget.try_overflow() and not budget.try_overflow()
    clock.now += 30
    assert budget.try_overflow()


def test_no_overflow_configured_never_pays() -> None:
    """negative_feedback_overflow_per_minute None: the shared buckets only."""
    budget = JudgeBudget(BudgetSettings(negative_feedback_overflow_per_minute=None), FakeClock())
    assert not budget.try_overflow()
    budget.refund_overflow()
    assert not budget.try_overflow()


def claim_all(floor: HourlyFloor, key: str) -> int:
    """Claim while the floor allows; the number of claims granted."""
    granted = 0
    while floor.available(key):
        floor.record(key)
        granted += 1
    return granted


def test_hourly_floor_is_paced_over_the_hour() -> None:
    """30 an hour: one at the start of the hour, then one more every 2 minutes, never more than 30."""
    clock = FakeClock()
    clock.now = 7200.0
    floor = HourlyFloor(30, clock)
    assert claim_all(floor, "v") == 1
    clock.now += 119
    assert claim_all(floor, "v") == 0
    clock.now += 1
    assert claim_all(floor, "v") == 1
    clock.now += 20 * 60
    assert claim_all(floor, "v") == 10 and floor.count("v") == 12
    clock.now = 7200.0 + 3599
    assert claim_all(floor, "v") == 18 and floor.count("v") == 30


def test_hourly_floor_gives_exactly_the_floor_each_hour_to_each_key() -> None:
    """Draws every 5 s for three hours: each key gets exactly 30 claims per clock hour."""
    clock = FakeClock()
    clock.now = 0.0
    floor = HourlyFloor(30, clock)
    per_hour: dict[tuple[str, int], int] = {}
    for step in range(3 * 720):
        clock.now = step * 5.0
        for key in ("a", "b"):
            if floor.available(key):
                floor.record(key)
                per_hour[(key, step // 720)] = per_hour.get((key, step // 720), 0) + 1
    assert per_hour == {(key, hour): 30 for key in ("a", "b") for hour in range(3)}


def test_hourly_floor_counts_claims_of_other_lanes() -> None:
    """Random judgements paid by the budget count too: the floor only tops up."""
    clock = FakeClock()
    clock.now = 1800.0  # half an hour in: 16 allowed
    floor = HourlyFloor(30, clock)
    for _ in range(16):
        floor.record("v")
    assert not floor.available("v")


def test_hourly_floor_caps_the_keys_it_tracks() -> None:
    """Past max_keys distinct keys in an hour, later keys share one floor; counts restart each hour."""
    clock = FakeClock()
    clock.now = 3599.0
    floor = HourlyFloor(2, clock, max_keys=3)
    granted = {key: claim_all(floor, key) for key in ("a", "b", "c", "d", "e")}
    assert granted == {"a": 2, "b": 2, "c": 2, "d": 2, "e": 0}
    clock.now += 1
    assert claim_all(floor, "d") == 1


def test_hourly_floor_of_zero_is_off() -> None:
    """per_hour 0 never grants a claim; a negative floor is a configuration mistake."""
    assert not HourlyFloor(0, FakeClock()).available("v")
    with pytest.raises(ValueError, match="per_hour"):
        HourlyFloor(-1, FakeClock())
