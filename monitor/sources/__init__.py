"""The source catalog: where traces come from, by the scheme of ``--source``.

``SOURCES`` maps a scheme to the function that opens it with its dead-letter sink: ``kafka://`` (a
consumer group; ``format=json|otlp_proto|otlp_json``), ``otlp://`` (an OTLP/HTTP receiver), ``file:``
or a path (JSONL, optionally followed; or one JSON/OTLP document), ``-`` (stdin), ``sample`` (the
bundled sample traces). Every source is read through ``monitor.assembly``: native records pass
through, arrays and documents are split, OTLP spans and Langfuse observations are gathered into
traces. The loop never knows which source it reads. Adding a source is a module, one line here, and
its test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path
from urllib.parse import urlsplit

from monitor.assembly import FORMATS, Format, RecordReader
from monitor.config import Settings
from monitor.dead_letter import DeadLetterFormat, FileDeadLetterSink
from monitor.exceptions import ConfigError
from monitor.message import Message, Origin
from monitor.sources.assembled import AssembledSource
from monitor.sources.base import DeadLetterSink, Source
from monitor.sources.document import DocumentSource, is_document
from monitor.sources.lines import LineSource

__all__ = ["SOURCES", "DeadLetterSink", "Message", "Opened", "Origin", "Source", "open_source", "sample_path"]
SAMPLE = "sample"
DEFAULT_DLQ_FILE = Path("ragmon-dlq.jsonl")


@dataclass(frozen=True, slots=True)
class Opened:
    """A source and the dead-letter sink for what it yields (neither opened yet)."""

    source: Source
    dead_letter: DeadLetterSink


Opener = Callable[[str, Settings, DeadLetterFormat], Opened]


def sample_path() -> Path:
    """The sample traces shipped in the package (several languages, some bad lines on purpose)."""
    with as_file(files("monitor") / "data" / "sample_traces.jsonl") as path:
        return Path(path)


def _dlq_file(settings: Settings, fmt: DeadLetterFormat) -> FileDeadLetterSink:
    return FileDeadLetterSink(Path(settings.dlq) if settings.dlq else DEFAULT_DLQ_FILE, fmt)


def _assembled(source: Source, settings: Settings, fmt: Format = "auto") -> AssembledSource:
    return AssembledSource(source, RecordReader(fmt, settings.otlp.settle_s))


def _kafka(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    from monitor.sources.kafka import KafkaURL, open_kafka

    encoding = KafkaURL.parse(spec).options.get("format", "auto")
    if encoding not in FORMATS:
        raise ConfigError(f"source: format={encoding!r} in {spec!r}; known: {', '.join(FORMATS)}")
    source, dead_letter = open_kafka(spec, settings.kafka, fmt)
    return Opened(_assembled(source, settings, encoding), dead_letter)


def _otlp(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    from monitor.sources.otlp_http import OtlpHttpSource, parse_address

    host, port = parse_address(spec)
    receiver = OtlpHttpSource(host, port, settings.otlp)
    source = AssembledSource(receiver, RecordReader("auto", settings.otlp.settle_s), on_read=receiver.answer)
    return Opened(source, _dlq_file(settings, fmt))


def _file(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    path = Path(spec.removeprefix("file://").removeprefix("file:"))
    document = not settings.follow and is_document(path)
    lines: Source = DocumentSource(path) if document else LineSource(path, settings.follow)
    return Opened(_assembled(lines, settings), _dlq_file(settings, fmt))


def _stdin(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    return Opened(_assembled(LineSource(None), settings), _dlq_file(settings, fmt))


def _sample(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    return Opened(_assembled(LineSource(sample_path()), settings), _dlq_file(settings, fmt))


SOURCES: dict[str, Opener] = {
    "kafka": _kafka,
    "otlp": _otlp,
    "file": _file,
    "stdin": _stdin,
    "sample": _sample,
}


def scheme(spec: str) -> str:
    """The catalog key of a ``--source``: its URL scheme, ``stdin`` for ``-``, ``file`` for a path."""
    if spec == "-":
        return "stdin"
    if spec == SAMPLE:
        return SAMPLE
    if spec.startswith("file:"):
        return "file"
    return urlsplit(spec).scheme if "://" in spec else "file"


def open_source(settings: Settings, fmt: DeadLetterFormat | None = None) -> Opened:
    """The source named by ``settings.source`` and its dead-letter sink (not yet opened)."""
    kind = scheme(settings.source)
    opener = SOURCES.get(kind)
    if opener is None:
        known = ", ".join(f"{k}://" if k not in ("file", "stdin", "sample") else k for k in SOURCES)
        raise ConfigError(f"source: unknown kind {kind!r} in {settings.source!r}; known: {known}")
    return opener(settings.source, settings, fmt or DeadLetterFormat())
