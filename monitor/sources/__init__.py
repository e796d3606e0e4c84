"""The source catalog: where traces come from, by the scheme of ``--source``.

``SOURCES`` maps a scheme to the function that opens it with its dead-letter sink: ``kafka://`` (a
consumer group), ``file:`` or a path (JSONL, optionally followed), ``-`` (stdin), ``sample`` (the bundled
sample traces). Every source yields ``Message``s holding one native JSON record each (a source that
reads another format converts it); the loop never knows which source it reads. Adding a source is a
module, one line here, and its test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path
from urllib.parse import urlsplit

from monitor.config import Settings
from monitor.dead_letter import DeadLetterFormat, FileDeadLetterSink
from monitor.exceptions import ConfigError
from monitor.message import Message, Origin
from monitor.sources.base import DeadLetterSink, Source
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


def _kafka(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    from monitor.sources.kafka import open_kafka

    return Opened(*open_kafka(spec, settings.kafka, fmt))


def _file(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    path = Path(spec.removeprefix("file://").removeprefix("file:"))
    return Opened(LineSource(path, follow=settings.follow), _dlq_file(settings, fmt))


def _stdin(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    return Opened(LineSource(None), _dlq_file(settings, fmt))


def _sample(spec: str, settings: Settings, fmt: DeadLetterFormat) -> Opened:
    return Opened(LineSource(sample_path()), _dlq_file(settings, fmt))


SOURCES: dict[str, Opener] = {"kafka": _kafka, "file": _file, "stdin": _stdin, "sample": _sample}


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
