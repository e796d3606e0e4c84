"""Traces from a Kafka topic through a kafka-python consumer group, committed at-least-once.

Auto-commit is off. Every record handed to the pipeline is tracked; ``commit`` persists, per
partition, only the contiguous prefix of fully handled offsets. When partitions are revoked, their
done offsets are committed inside the rebalance callback, then forgotten: traces still in flight for
them are redelivered to the new owner (at-least-once; the review store is idempotent by trace id).
``pause`` stops fetching on every assigned partition, so a slow judge bounds memory instead of
buffering without limit.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import structlog
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.consumer.subscription_state import ConsumerRebalanceListener
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata

from monitor.config import KafkaSettings
from monitor.dead_letter import DeadLetterFormat
from monitor.exceptions import ConfigError, SourceError
from monitor.sources import kafka_sockets  # noqa: F401 - closes the sockets of failed connects
from monitor.sources.base import Message, Origin
from monitor.sources.offsets import OffsetTracker, Partition

log = structlog.get_logger(__name__)
DEFAULT_GROUP = "ragmon"
LAG_REFRESH_S = 5.0
DLQ_MAX_BLOCK_MS = 10_000  # a missing dead-letter topic must not freeze the loop for a minute
DLQ_MAX_REQUEST_BYTES = 2 * 1024 * 1024  # room for a capped rejected message, escaped or base64


URL_OPTIONS = frozenset({"group", "format"})


@dataclass(frozen=True, slots=True)
class KafkaURL:
    """``kafka://host:port[,host:port]/topic?group=NAME[&format=json|otlp_proto|otlp_json]``."""

    bootstrap: tuple[str, ...]
    topic: str
    group: str
    options: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, url: str, known: frozenset[str] = URL_OPTIONS) -> KafkaURL:
        """Parse and check a source URL; every mistake is a ConfigError naming ``source``."""
        parts = urlsplit(url)
        topic = parts.path.strip("/")
        if parts.scheme != "kafka" or not parts.netloc or not topic:
            raise ConfigError(f"source: expected kafka://host:port[,host:port]/topic?group=NAME, got {url!r}")
        query = parse_qs(parts.query, keep_blank_values=True)
        unknown = sorted(set(query) - known)
        if unknown:
            names, allowed = ", ".join(map(repr, unknown)), ", ".join(sorted(known))
            raise ConfigError(f"source: unknown option {names} in {url!r}; known: {allowed}")
        options = {key: values[-1] for key, values in query.items()}
        hosts = tuple(h.strip() for h in parts.netloc.split(",") if h.strip())
        for host in hosts:
            _check_host(host, url)
        return cls(hosts, topic, options.pop("group", DEFAULT_GROUP) or DEFAULT_GROUP, options)


def _check_host(host: str, url: str) -> None:
    name, sep, port = host.rpartition(":")
    if not sep or not name:
        raise ConfigError(f"source: broker {host!r} in {url!r} needs a port (host:9092)")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"source: broker port {port!r} in {url!r} is not a number from 1 to 65535")


def wait_for_brokers(bootstrap: tuple[str, ...], deadline_s: float, every_s: float = 5.0) -> None:
    """Block until one bootstrap broker accepts a TCP connection; log progress, fail after ``deadline_s``.

    kafka-python waits on its own, silently, and then reports only that it could not create a client.
    """
    started = time.monotonic()
    next_log = started
    while True:
        errors = [_probe(host) for host in bootstrap]
        if any(error is None for error in errors):
            return
        waited = time.monotonic() - started
        if waited >= deadline_s:
            detail = "; ".join(f"{host}: {error}" for host, error in zip(bootstrap, errors, strict=True))
            raise SourceError(f"Kafka broker unreachable after {deadline_s:g} s ({detail})")
        if time.monotonic() >= next_log:
            log.warning(
                "waiting_for_broker", brokers=list(bootstrap), waited_s=round(waited), error=errors[0]
            )
            next_log += every_s
        time.sleep(0.5)


def _probe(host: str) -> str | None:
    name, _, port = host.rpartition(":")
    try:
        with socket.create_connection((name.strip("[]"), int(port)), timeout=2.0):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def client_options(settings: KafkaSettings) -> dict[str, Any]:
    """Security and client options shared by the consumer and the dead-letter producer."""
    options: dict[str, Any] = {
        "client_id": settings.client_id,
        "security_protocol": settings.security_protocol,
    }
    optional = {
        "sasl_mechanism": settings.sasl_mechanism,
        "sasl_plain_username": settings.sasl_plain_username,
        "sasl_plain_password": (
            settings.sasl_plain_password.get_secret_value() if settings.sasl_plain_password else None
        ),
        "ssl_cafile": settings.ssl_cafile,
        "ssl_certfile": settings.ssl_certfile,
        "ssl_keyfile": settings.ssl_keyfile,
    }
    options.update({k: v for k, v in optional.items() if v is not None})
    if settings.security_protocol in ("SSL", "SASL_SSL"):
        options["ssl_check_hostname"] = settings.ssl_check_hostname
    return options


class _Rebalance(ConsumerRebalanceListener):  # type: ignore[misc]  # kafka-python ships no types
    def __init__(self, source: KafkaSource) -> None:
        self._source = source

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self._source._on_revoked(revoked)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self._source._on_assigned(assigned)


def open_kafka(
    spec: str, settings: KafkaSettings, fmt: DeadLetterFormat
) -> tuple[KafkaSource, KafkaDeadLetterSink]:
    """The source of a ``kafka://`` URL and its ``<topic><dlq_suffix>`` dead-letter producer."""
    url = KafkaURL.parse(spec)
    wait_for_brokers(url.bootstrap, settings.connect_timeout_s)
    source = KafkaSource(url, settings)
    dead_letter = KafkaDeadLetterSink(url.bootstrap, url.topic + settings.dlq_suffix, settings, fmt)
    source.before_commit = dead_letter.flush
    return source, dead_letter


class KafkaSource:
    """A consumer-group member; all methods but ``ack`` run on the one consumer thread."""

    def __init__(self, url: KafkaURL, settings: KafkaSettings) -> None:
        self._url = url
        self._settings = settings
        self._consumer: Any = None
        self._tracker = OffsetTracker()
        self._assigned: set[TopicPartition] = set()
        self._paused = False
        self._lag: dict[tuple[str, int], int] = {}
        self._committed_lag: dict[tuple[str, int], int] = {}
        self._lag_at = 0.0
        self._lock = threading.Lock()
        self.before_commit: Callable[[], None] | None = None  # flushes the dead-letter producer

    @property
    def name(self) -> str:
        return f"kafka:{self._url.topic}"

    @property
    def ready(self) -> bool:
        return self._consumer is not None and bool(self._assigned)

    @property
    def exhausted(self) -> bool:
        return False

    @property
    def batch_size(self) -> int:
        return self._settings.max_poll_records

    @property
    def commit_interval_s(self) -> float:
        return self._settings.commit_interval_s

    @property
    def tracker(self) -> OffsetTracker:
        return self._tracker

    def open(self) -> None:
        s = self._settings
        try:
            self._consumer = KafkaConsumer(
                bootstrap_servers=list(self._url.bootstrap),
                group_id=self._url.group,
                enable_auto_commit=False,
                auto_offset_reset=s.auto_offset_reset,
                max_poll_records=s.max_poll_records,
                session_timeout_ms=s.session_timeout_ms,
                heartbeat_interval_ms=s.heartbeat_interval_ms,
                max_poll_interval_ms=s.max_poll_interval_ms,
                **client_options(s),
            )
            self._consumer.subscribe([self._url.topic], listener=_Rebalance(self))
        except KafkaError as exc:
            raise SourceError(f"cannot connect to Kafka at {','.join(self._url.bootstrap)}: {exc}") from exc

    def poll(self, max_records: int, timeout_s: float) -> list[Message]:
        consumer = self._require()
        try:
            batches = consumer.poll(timeout_ms=int(timeout_s * 1000), max_records=max_records)
        except KafkaError as exc:
            log.warning("kafka_poll_failed", error=str(exc))
            return []
        out: list[Message] = []
        for tp, records in batches.items():
            topic, partition = tp.topic, tp.partition
            self._tracker.started_many((topic, partition), [record.offset for record in records])
            out += [
                Message(
                    record.value if record.value is not None else b"",
                    Origin(topic, partition, record.offset),
                    record.key,
                )
                for record in records
            ]
        return out

    def ack(self, *messages: Message) -> None:
        self._tracker.done_many(
            ((o.topic, o.partition), o.offset)
            for o in (message.origin for message in messages)
            if o.topic is not None and o.partition is not None and o.offset is not None
        )

    def commit(self) -> None:
        self._commit(self._tracker.to_commit())

    def _commit(self, positions: Mapping[Partition, int]) -> None:
        if not positions:
            return
        if self.before_commit is not None:
            self.before_commit()
        offsets = {TopicPartition(t, p): OffsetAndMetadata(o, "", -1) for (t, p), o in positions.items()}
        try:
            self._require().commit(offsets)
        except KafkaError as exc:
            log.warning("kafka_commit_failed", error=str(exc), partitions=len(offsets))
            return
        self._tracker.committed(dict(positions))

    def pause(self) -> None:
        with self._lock:
            self._paused = True
            if self._assigned:
                self._require().pause(*self._assigned)

    def resume(self) -> None:
        with self._lock:
            self._paused = False
            if self._assigned:
                self._require().resume(*self._assigned)

    def lag(self) -> Mapping[tuple[str, int], int]:
        """Messages behind the end, from the fetch position; refreshed at most every few seconds.

        The last fetch's high watermark wins when it is further: some brokers (Tansu 0.6) list a
        partition's end as its last batch's base offset + 1.
        """
        self._refresh_lag()
        return self._lag

    def progress(self) -> tuple[int, int | None]:
        return 0, None  # a topic has no end; the lag gauges say how far behind the group is

    def committed_lag(self) -> Mapping[tuple[str, int], int]:
        """Messages behind the end from the committed offset: what a crash now would make us read again."""
        self._refresh_lag()
        return self._committed_lag

    def _refresh_lag(self) -> None:
        now = time.monotonic()
        if now - self._lag_at < LAG_REFRESH_S or not self._assigned:
            return
        self._lag_at = now
        consumer = self._require()
        replay = self._tracker.replay_point()
        lag, committed_lag = {}, {}
        try:
            ends = consumer.end_offsets(list(self._assigned))
            for tp, listed in ends.items():
                key = (tp.topic, tp.partition)
                end = max(listed, int(consumer.highwater(tp) or 0))
                position = int(consumer.position(tp))
                lag[key] = max(0, end - position)
                committed_lag[key] = max(0, end - replay.get(key, position))
        except Exception as exc:  # noqa: BLE001 - a gauge never stops the consumer (e.g. a partition
            # revoked by a rebalance since the last poll: IllegalStateError; a topic gone: KeyError)
            log.warning("kafka_lag_failed", error=f"{type(exc).__name__}: {exc}")
            return
        self._lag, self._committed_lag = lag, committed_lag

    def close(self) -> None:
        if self._consumer is None:
            return
        try:
            self.commit()
        except SourceError as exc:  # unconfirmed dead letters: the offsets stay for redelivery
            log.error("final_commit_skipped", error=str(exc))
        finally:
            self._consumer.close(autocommit=False)
            self._consumer = None

    def _on_revoked(self, revoked: set[TopicPartition]) -> None:
        parts = {(tp.topic, tp.partition) for tp in revoked}
        self._commit(self._tracker.to_commit(parts))
        self._tracker.forget(parts)
        self._assigned -= set(revoked)
        self._lag = {k: v for k, v in self._lag.items() if k not in parts}
        self._committed_lag = {k: v for k, v in self._committed_lag.items() if k not in parts}
        log.info("partitions_revoked", partitions=sorted(parts))

    def _on_assigned(self, assigned: set[TopicPartition]) -> None:
        self._assigned |= set(assigned)
        if self._paused and assigned:
            self._require().pause(*assigned)
        log.info("partitions_assigned", partitions=sorted((tp.topic, tp.partition) for tp in assigned))

    def _require(self) -> Any:
        if self._consumer is None:
            raise SourceError("Kafka source used before open() or after close()")
        return self._consumer


class KafkaDeadLetterSink:
    """Produces rejected messages to ``<topic><suffix>``, keyed like the original.

    ``flush`` runs before every commit and raises ``SourceError`` while any record is not confirmed by
    the broker (failed sends are retried at each flush), so an offset is never committed past a
    rejected message that is not safely in the dead-letter topic.
    """

    def __init__(
        self,
        bootstrap: tuple[str, ...],
        topic: str,
        settings: KafkaSettings,
        fmt: DeadLetterFormat | None = None,
    ) -> None:
        self.topic = topic
        self._format = fmt or DeadLetterFormat()
        self._sent: list[tuple[Any, bytes | None, bytes]] = []
        try:
            self._producer = KafkaProducer(
                bootstrap_servers=list(bootstrap),
                acks="all",
                max_block_ms=DLQ_MAX_BLOCK_MS,
                max_request_size=DLQ_MAX_REQUEST_BYTES,
                **client_options(settings),
            )
        except KafkaError as exc:
            raise SourceError(f"cannot create the dead-letter producer: {exc}") from exc

    def send(self, message: Message, reason: str, detail: str) -> None:
        self._send(self._format.key(message.key), self._format.encode(message, reason, detail))

    def _send(self, key: bytes | None, value: bytes) -> None:
        try:
            future = self._producer.send(self.topic, key=key, value=value)
        except KafkaError as exc:
            raise SourceError(f"dead-letter send to {self.topic} failed: {exc}") from exc
        self._sent.append((future, key, value))

    def flush(self) -> None:
        self._producer.flush()
        failed = [(key, value) for future, key, value in self._sent if future.failed()]
        self._sent = []
        for key, value in failed:
            self._send(key, value)  # retried; confirmed (or failed again) by the next flush
        if failed:
            raise SourceError(f"{len(failed)} dead-letter record(s) to {self.topic} not confirmed; retrying")

    def close(self) -> None:
        self._producer.flush()
        self._producer.close()
