"""Trace sources: Kafka consumer groups, JSONL files (optionally followed), stdin, the bundled sample."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

from monitor.config import Settings
from monitor.dead_letter import DeadLetterFormat, FileDeadLetterSink
from monitor.sources.base import DeadLetterSink, Message, Origin, Source
from monitor.sources.lines import LineSource

__all__ = ["DeadLetterSink", "Message", "Origin", "Source", "open_source", "sample_path"]
SAMPLE = "sample"
DEFAULT_DLQ_FILE = Path("ragmon-dlq.jsonl")


def sample_path() -> Path:
    """The sample traces shipped in the package (several languages, some bad lines on purpose)."""
    with as_file(files("monitor") / "data" / "sample_traces.jsonl") as path:
        return Path(path)


def open_source(settings: Settings, fmt: DeadLetterFormat | None = None) -> tuple[Source, DeadLetterSink]:
    """The source named by ``settings.source`` and its dead-letter sink (not yet opened)."""
    spec = settings.source
    if spec.startswith("kafka://"):
        from monitor.sources.kafka import KafkaDeadLetterSink, KafkaSource, KafkaURL, wait_for_brokers

        url = KafkaURL.parse(spec)
        wait_for_brokers(url.bootstrap, settings.kafka.connect_timeout_s)
        kafka = KafkaSource(url, settings.kafka)
        dlq = KafkaDeadLetterSink(url.bootstrap, url.topic + settings.kafka.dlq_suffix, settings.kafka, fmt)
        kafka.before_commit = dlq.flush
        return kafka, dlq
    dlq_path = Path(settings.dlq) if settings.dlq else DEFAULT_DLQ_FILE
    if spec == "-":
        return LineSource(None), FileDeadLetterSink(dlq_path, fmt)
    path = sample_path() if spec == SAMPLE else Path(spec.removeprefix("file:"))
    return LineSource(path, follow=settings.follow), FileDeadLetterSink(dlq_path, fmt)
