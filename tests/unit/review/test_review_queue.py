"""The queue queries behind ``ragmon review serve`` on SQLite (the PostgreSQL run is an integration test)."""

from __future__ import annotations

from datetime import datetime

from review_builders import FakeClock

from monitor.review import ReviewStore
from tests.support.review_queue import check_queue_queries


def test_queue_queries(store: ReviewStore, clock: FakeClock) -> None:
    """Version, severity and time filters, offset pages, counts per reason and versions, on SQLite."""

    def advance() -> datetime:
        clock.advance(minutes=1)
        return clock.now

    check_queue_queries(store, advance)
