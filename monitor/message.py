"""A raw message and where it came from: what every source yields and every sink of bad input keeps.

The bottom of the layers: sources, the loop, dead-letter sinks and logging all speak in these terms.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Origin(msgspec.Struct, frozen=True):
    """Where a message came from: a Kafka topic/partition/offset, or a file and line number."""

    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    path: str | None = None
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The non-empty fields, for logs, results and the dead-letter sink."""
        return {
            k: v
            for k, v in (
                ("topic", self.topic),
                ("partition", self.partition),
                ("offset", self.offset),
                ("path", self.path),
                ("line", self.line),
            )
            if v is not None
        }


class Message(msgspec.Struct, frozen=True):
    """One raw message and its origin; ``key`` is the Kafka key when there is one.

    A source that decodes a container format itself (OTLP spans, a JSON array) and finds a part it
    cannot use hands it on with ``rejected`` = (reason, detail): the loop dead-letters it as it is.
    ``encoding`` is set by a source that knows what the bytes are (the OTLP receiver reads the
    content type): ``otlp_proto`` or ``otlp_json``; otherwise the reader tells by the bytes.
    ``decoded`` is the trace the record reader already read from ``value`` through the canonical lane
    (``monitor.trace.canonical_trace``), so that the loop does not decode it again.
    """

    value: bytes
    origin: Origin
    key: bytes | None = None
    rejected: tuple[str, str] | None = None
    encoding: str | None = None
    decoded: Any = None
