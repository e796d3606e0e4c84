"""Benchmark fixtures: the session's Kafka-protocol broker (Tansu, or RAGMON_TEST_KAFKA)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.kafka import Broker, running_broker


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    """One broker for every benchmark of the session."""
    with running_broker() as running:
        yield running
