"""Lag gauges across a rebalance: a partition revoked since the last poll is not a crash."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from kafka import TopicPartition

from monitor.config import KafkaSettings
from monitor.sources import kafka as kafka_source
from monitor.sources.kafka import KafkaSource, KafkaURL
from tests.support.kafka import FAST_GROUP, Broker, realistic_traces
from tests.support.quiet_kafka import KafkaConsumer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def test_lag_skips_a_refresh_when_a_partition_was_revoked_under_it(
    broker: Broker, topic_factory: Callable[[int], str], group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second member takes a partition away; the source still lists it (the window between a
    rebalance and the gauge's refresh), and kafka-python raises IllegalStateError for its position.
    The refresh is skipped with a warning and the last figures stay; nothing is raised."""
    topic = topic_factory(2)
    broker.produce_traces(topic, realistic_traces(20))
    source = KafkaSource(KafkaURL.parse(broker.url(topic, group)), KafkaSettings(**FAST_GROUP))
    monkeypatch.setattr(kafka_source, "LAG_REFRESH_S", 0.0)
    source.open()
    other = None
    try:
        deadline = time.monotonic() + 60
        while len(source._assigned) < 2 and time.monotonic() < deadline:  # noqa: SLF001
            source.poll(500, 0.5)
        assert set(source.lag()) == {(topic, 0), (topic, 1)}
        other = KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, group_id=group, **FAST_GROUP)
        while len(source._assigned) != 1 and time.monotonic() < deadline:  # noqa: SLF001
            source.poll(500, 0.5)
            other.poll(timeout_ms=200)
        assert len(source._assigned) == 1  # noqa: SLF001
        revoked = ({TopicPartition(topic, 0), TopicPartition(topic, 1)} - source._assigned).pop()  # noqa: SLF001
        source._assigned.add(revoked)  # noqa: SLF001 - the stale view a rebalance leaves for a moment
        kept = dict(source._lag)  # noqa: SLF001 - the figures of the last good refresh
        assert source.lag() == kept  # the refresh failed on the revoked partition: kept, not raised
        assert source.committed_lag() == dict(source._committed_lag)  # noqa: SLF001
        source._assigned.discard(revoked)  # noqa: SLF001 - the listener catches up
        assert set(source.lag()) == {(revoked.topic, 1 - revoked.partition)}
    finally:
        if other is not None:
            other.close()
        source.close()
