"""Commits cover only the contiguous prefix of handled offsets per partition."""

from __future__ import annotations

from monitor.sources.offsets import OffsetTracker

P0, P1 = ("t", 0), ("t", 1)


def test_out_of_order_completion_commits_only_the_contiguous_prefix() -> None:
    """A slow trace holds back the commit of later, already finished ones."""
    tracker = OffsetTracker()
    for offset in range(10, 15):
        tracker.started(P0, offset)
    for offset in (11, 12, 14):
        tracker.done(P0, offset)
    assert tracker.to_commit() == {}
    tracker.done(P0, 10)
    assert tracker.to_commit() == {P0: 13}
    tracker.committed({P0: 13})
    assert tracker.to_commit() == {}
    tracker.done(P0, 13)
    assert tracker.to_commit() == {P0: 15}
    assert tracker.in_flight() == 0


def test_partitions_are_independent_and_forgettable() -> None:
    """Revoked partitions are dropped; late acks for them are ignored."""
    tracker = OffsetTracker()
    tracker.started(P0, 0)
    tracker.started(P1, 5)
    tracker.done(P1, 5)
    assert tracker.to_commit() == {P1: 6}
    assert tracker.to_commit({P0}) == {}
    tracker.forget({P0})
    tracker.done(P0, 0)
    assert tracker.to_commit() == {P1: 6}
