"""The daemon against a real Kafka-protocol broker: counts, dead letters, crashes, shutdown, groups."""

from __future__ import annotations

import asyncio
import hashlib
import json
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.config import KafkaSettings, Settings
from monitor.dead_letter import DeadLetterFormat
from monitor.judge.base import JudgeInput, JudgeResult, Scores, Verdicts
from monitor.metrics import Metrics
from monitor.sources.kafka import open_kafka
from monitor.trace import Trace
from tests.integration.conftest import DaemonFactory
from tests.support.daemon import wait_until
from tests.support.kafka import FAST_GROUP, Broker, group_offsets, realistic_traces
from tests.support.pipeline import make_engine, make_pipeline, run_to_end

pytestmark = pytest.mark.integration

OK = {"outcome": "ok"}
INVALID = {"outcome": "invalid"}
TRACES = "ragmon_traces_total"
# Each bad message with the reason the daemon must give it.
# Waiting for every trace to be handled: the sampler judges every negative-feedback trace (its own lane,
# beyond the judge budget) and a random floor, so a few hundred realistic traces hold a minute or more
# of local-judge work per replica on CI's two shared cores. The waits leave room for that, not for a race.
HANDLED_S = 150

BAD_MESSAGES: list[tuple[bytes, str]] = [
    (b"{not json", "invalid_json"),
    (b"\xff\xfe\x00garbage", "not_utf8"),
    (b'["a", "list"]', "not_object"),
    (b'{"trace_id": "no-answer", "question": "q?"}', "missing_answer"),
    (b'{"type": "feedback", "rating": "negative"}', "missing_trace_id"),
    (b'{"trace_id": "t", "question": "q", "answer": "a", "latency_ms": "slow"}', "wrong_type"),
]


@pytest.mark.timeout(240)
def test_every_produced_trace_is_counted_once(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """N traces on 3 partitions show up as N in ragmon_traces_total{outcome="ok"} and in the results."""
    topic = topic_factory(3)
    traces = realistic_traces(300)
    broker.produce_traces(topic, traces)
    daemon = daemon_factory(broker.url(topic, group))
    daemon.wait_metric(TRACES, len(traces), HANDLED_S, **OK)
    assert daemon.metric(TRACES, **INVALID) == 0
    assert daemon.status("/readyz") == 200
    assert daemon.stop() == 0
    # every trace handled; a set, since a rebalance on a loaded machine may redeliver (at-least-once)
    assert set(daemon.trace_ids()) == {t["trace_id"] for t in traces}


@pytest.mark.timeout(240)
def test_bad_messages_go_to_the_dead_letter_topic_with_reason_and_bytes(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """Bad messages land in <topic>.dlq with their reason and original bytes; no good trace is lost."""
    topic = topic_factory(2)
    good = realistic_traces(100)
    values = [json.dumps(t, ensure_ascii=False).encode() for t in good]
    for i, (raw, _) in enumerate(BAD_MESSAGES):  # interleave the bad ones among the good ones
        values.insert(10 + 15 * i, raw)
    broker.produce(topic, values, (f"k{i}".encode() for i in range(len(values))))
    daemon = daemon_factory(broker.url(topic, group))
    daemon.wait_metric(TRACES, len(good), HANDLED_S, **OK)
    daemon.wait_metric(TRACES, len(BAD_MESSAGES), 10, **INVALID)
    wait_until(
        lambda: len(broker.read_all(f"{topic}.dlq")) >= len(BAD_MESSAGES), 15, "dead letters on the topic"
    )
    assert daemon.stop() == 0

    letters = [json.loads(v) for _, v in broker.read_all(f"{topic}.dlq")]
    by_digest = {letter["sha256"]: letter for letter in letters}  # a redelivered one repeats its digest
    assert set(by_digest) == {hashlib.sha256(raw).hexdigest() for raw, _ in BAD_MESSAGES}
    for raw, reason in BAD_MESSAGES:
        letter = by_digest[hashlib.sha256(raw).hexdigest()]
        assert letter["reason"] == reason and letter["detail"] and letter["size"] == len(raw)
        assert letter["origin"]["topic"] == topic
    assert by_digest[hashlib.sha256(b"\xff\xfe\x00garbage").hexdigest()]["utf8"] is False
    assert sorted(set(daemon.trace_ids())) == sorted(t["trace_id"] for t in good)


@pytest.mark.timeout(240)
def test_committed_lag_shows_what_a_crash_would_replay(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """With commits far apart, the fetched lag falls to 0 while the committed lag still counts the
    handled-but-uncommitted traces; after the next commit it falls too."""
    topic = topic_factory(1)
    broker.produce_traces(topic, realistic_traces(200))
    daemon = daemon_factory(broker.url(topic, group), env={"RAGMON_KAFKA__COMMIT_INTERVAL_S": "12"})
    daemon.wait_metric(TRACES, 200, HANDLED_S, **OK)
    labels = {"topic": topic, "partition": "0"}
    wait_until(lambda: daemon.metric("ragmon_consumer_committed_lag", **labels) >= 150, 20, "committed lag")
    assert daemon.metric("ragmon_consumer_lag", **labels) <= 1
    wait_until(
        lambda: daemon.metric("ragmon_consumer_committed_lag", **labels) <= 1, 40, "lag after a commit"
    )
    assert daemon.stop() == 0


@pytest.mark.timeout(300)
def test_sigkill_mid_stream_then_restart_handles_every_trace_at_least_once(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """A SIGKILL mid-stream loses nothing: after a restart every trace id is in the results.

    The stream goes on after the kill (most traces are produced only then), so the kill is mid-stream
    however fast the first daemon was.
    """
    topic = topic_factory(3)
    traces = realistic_traces(3000)
    broker.produce_traces(topic, traces[:600])
    first = daemon_factory(broker.url(topic, group), "first")
    wait_until(lambda: _committed_total(broker, topic, group) > 0, 60, "a first commit")
    first.kill()
    handled_before = len(set(first.trace_ids()))
    assert 0 < handled_before <= 600
    broker.produce_traces(topic, traces[600:])

    second = daemon_factory(broker.url(topic, group), "second")
    wanted = {t["trace_id"] for t in traces}
    wait_until(
        lambda: wanted <= set(first.trace_ids()) | set(second.trace_ids()), 90, "every trace handled", 0.5
    )
    assert second.stop() == 0
    ids = first.trace_ids() + second.trace_ids()
    assert set(ids) == wanted
    assert len(second.trace_ids()) < len(traces), "the restart re-read the topic from the start"


@pytest.mark.timeout(240)
def test_sigterm_commits_every_handled_offset(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """After SIGTERM the group's committed offsets equal the end offsets of every partition."""
    topic = topic_factory(3)
    broker.produce_traces(topic, realistic_traces(500))
    broker.produce(topic, [b"{broken"])  # a dead-lettered message is handled too
    daemon = daemon_factory(broker.url(topic, group))
    daemon.wait_metric(TRACES, 500, HANDLED_S, **OK)
    daemon.wait_metric(TRACES, 1, 10, **INVALID)
    assert daemon.stop(signal.SIGTERM) == 0
    ends = broker.end_offsets(topic)
    assert sum(ends.values()) == 501
    assert broker.committed_offsets(topic, group) == ends


@pytest.mark.timeout(300)
def test_two_daemons_in_one_group_split_partitions_and_handle_everything(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """Two replicas in one group each own some partitions and together handle every trace."""
    topic = topic_factory(4)
    a = daemon_factory(broker.url(topic, group), "a")
    b = daemon_factory(broker.url(topic, group), "b")
    wait_until(
        lambda: a.status("/readyz") == 200 and b.status("/readyz") == 200, 60, "both replicas assigned"
    )
    traces = realistic_traces(800)
    broker.produce_traces(topic, traces)
    wanted = {t["trace_id"] for t in traces}
    wait_until(
        lambda: wanted <= set(a.trace_ids()) | set(b.trace_ids()), HANDLED_S, "every trace handled", 0.5
    )
    parts_a, parts_b = _partitions(a.records()), _partitions(b.records())
    assert a.stop() == 0
    assert b.stop() == 0
    assert parts_a and parts_b, "one replica got every partition"
    assert parts_a.isdisjoint(parts_b)
    assert parts_a | parts_b == {0, 1, 2, 3}


def _partitions(records: list[dict[str, object]]) -> set[int]:
    return {int(r["origin"]["partition"]) for r in records}  # type: ignore[index]


def _committed_total(broker: Broker, topic: str, group: str) -> int:
    return sum(o or 0 for o in broker.committed_offsets(topic, group).values())


class SlowJudge:
    """A judge that only waits: the slow downstream the backpressure test needs (not a judge test)."""

    name = "slow-fake"
    prompt_version = "none"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    async def judge(self, item: JudgeInput) -> JudgeResult:
        await asyncio.sleep(self.delay_s)
        return JudgeResult(
            self.name, self.prompt_version, Verdicts((), (), (), ()), Scores(None, None, None, None)
        )

    async def aclose(self) -> None:
        return None


class CountingSink:
    """Counts finished traces."""

    every_trace = True

    def __init__(self) -> None:
        self.count = 0

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None:
        self.count += 1


@dataclass
class Window:
    """One observation of the loop: read-but-unfinished traces, reading position vs committed offset."""

    inflight: int
    ahead: int
    paused: float


MAX_INFLIGHT = 20
MAX_POLL_RECORDS = 50


@pytest.mark.timeout(240)
def test_slow_downstream_pauses_partitions_instead_of_buffering(
    broker: Broker, topic_factory: Callable[[int], str], group: str
) -> None:
    """A slow judge: in-flight stays within max_inflight, the source pauses, reading stays near the commit."""
    topic = topic_factory(1)
    traces = realistic_traces(300)
    broker.produce_traces(topic, traces)
    windows, finished = asyncio.run(_observe_slow_engine(broker, topic, group, len(traces)))
    assert finished == len(traces)
    assert max(w.inflight for w in windows) <= MAX_INFLIGHT
    assert max(w.paused for w in windows) == 1
    assert max(w.ahead for w in windows) <= MAX_INFLIGHT + MAX_POLL_RECORDS
    assert broker.committed_offsets(topic, group) == broker.end_offsets(topic)


async def _observe_slow_engine(
    broker: Broker, topic: str, group: str, total: int
) -> tuple[list[Window], int]:
    settings = Settings(
        source=broker.url(topic, group),
        max_inflight=MAX_INFLIGHT,
        kafka=KafkaSettings(
            max_poll_records=MAX_POLL_RECORDS,
            commit_interval_s=0.2,
            **FAST_GROUP,
        ),
    )
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    sink = CountingSink()
    pipeline = make_pipeline(
        metrics, judge=SlowJudge(0.2), sample_all=True, judge_concurrency=MAX_INFLIGHT, sinks=[sink]
    )
    source, dlq = open_kafka(settings.source, settings.kafka, DeadLetterFormat())
    engine = make_engine(settings, pipeline, source, dlq)
    stop = asyncio.Event()
    running = asyncio.create_task(run_to_end(engine, stop))
    admin = broker.admin()
    windows: list[Window] = []
    try:
        deadline = time.monotonic() + 60
        while sink.count < total and time.monotonic() < deadline and not running.done():
            committed = (await asyncio.to_thread(group_offsets, admin, group)).get((topic, 0), 0)
            position = source.tracker.position().get((topic, 0), 0)
            paused = registry.get_sample_value("ragmon_source_paused") or 0.0
            windows.append(Window(position - sink.count, position - committed, paused))
            await asyncio.sleep(0.02)
    finally:
        stop.set()
        await running
        admin.close()
    return windows, sink.count
