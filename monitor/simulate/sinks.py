"""Where generated traffic goes: a JSONL file or stdout, or a Kafka topic keyed by trace id."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, TextIO
from urllib.parse import urlsplit

from monitor.exceptions import ConfigError, SourceError


class Sink(Protocol):
    """Where generated messages go."""

    def send(self, message: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


class JsonlSink:
    """One JSON object per line to a file or stdout."""

    def __init__(self, stream: TextIO, owned: bool) -> None:
        self._stream = stream
        self._owned = owned

    @classmethod
    def open(cls, target: str) -> JsonlSink:
        """``-`` is stdout; anything else is a file path (created or truncated)."""
        if target == "-":
            return cls(sys.stdout, owned=False)
        try:
            return cls(Path(target).open("w", encoding="utf-8"), owned=True)
        except OSError as exc:
            raise ConfigError(f"cannot write {target}: {exc.strerror}") from exc

    def send(self, message: Mapping[str, Any]) -> None:
        self._stream.write(json.dumps(message, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self._stream.flush()
        if self._owned:
            self._stream.close()


class KafkaSink:
    """Produces each message to a topic keyed by trace id, so feedback follows its trace."""

    def __init__(self, url: str) -> None:
        self.bootstrap, self.topic = parse_kafka_url(url)
        from kafka import KafkaProducer
        from kafka.errors import KafkaError

        self._error: type[Exception] = KafkaError
        try:
            self._producer = KafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=5)
        except KafkaError as exc:
            raise SourceError(f"cannot connect to Kafka at {','.join(self.bootstrap)}: {exc}") from exc

    def send(self, message: Mapping[str, Any]) -> None:
        key = str(message.get("trace_id", "")).encode()
        value = json.dumps(message, ensure_ascii=False).encode()
        try:
            self._producer.send(self.topic, key=key, value=value)
        except self._error as exc:
            raise SourceError(f"cannot produce to Kafka topic {self.topic}: {exc}") from exc

    def close(self) -> None:
        try:
            self._producer.flush()
        except self._error as exc:
            raise SourceError(f"cannot flush to Kafka topic {self.topic}: {exc}") from exc
        finally:
            self._producer.close()


def parse_kafka_url(url: str) -> tuple[list[str], str]:
    """``kafka://host:port[,host:port]/topic`` -> (bootstrap servers, topic)."""
    parts = urlsplit(url)
    topic = parts.path.strip("/")
    if parts.scheme != "kafka" or not parts.netloc or not topic:
        raise ConfigError(f"--kafka must look like kafka://host:port/topic, not {url!r}")
    return parts.netloc.split(","), topic


def emit(messages: Iterable[Mapping[str, Any]], sink: Sink, rate: float = 0.0) -> int:
    """Send every message, pacing traces at ``rate`` per second (0 = as fast as possible)."""
    started = time.monotonic()
    sent = traces = 0
    for message in messages:
        if rate > 0 and message.get("type") != "feedback":
            time.sleep(max(0.0, started + traces / rate - time.monotonic()))
            traces += 1
        sink.send(message)
        sent += 1
    return sent
