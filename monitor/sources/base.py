"""The source contract: what the pipeline needs from Kafka, a file or stdin.

A source is driven from one thread (kafka-python consumers are not thread-safe); only ``ack`` may be
called from another thread. ``ack`` marks a message fully handled; ``commit`` persists the contiguous
prefix of handled messages per partition, so a crash never skips an unhandled trace (at-least-once).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from monitor.message import Message, Origin

__all__ = ["DeadLetterSink", "Message", "Origin", "Source", "Unpositioned"]


class Source(Protocol):
    """A stream of raw messages with acknowledgements and commits."""

    @property
    def name(self) -> str: ...

    @property
    def ready(self) -> bool:
        """True once the source is open and (for Kafka) has partitions assigned."""
        ...

    @property
    def batch_size(self) -> int:
        """The most messages one poll hands over (kafka: ``max_poll_records``)."""
        ...

    @property
    def commit_interval_s(self) -> float:
        """How often the loop commits the handled prefix."""
        ...

    @property
    def exhausted(self) -> bool:
        """True when a finite source (a file not followed) has nothing more to give."""
        ...

    def open(self) -> None: ...

    def poll(self, max_records: int, timeout_s: float) -> list[Message]: ...

    def ack(self, *messages: Message) -> None:
        """Mark messages (as ``poll`` returned them) fully handled; thread-safe. The loop acks a poll's
        cheap traces together, so a source takes its lock once per batch, not once per trace."""
        ...

    def commit(self) -> None:
        """Persist the handled prefix; a no-op where there is nothing to persist."""
        ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def lag(self) -> Mapping[tuple[str, int], int]:
        """Messages behind the end, per (topic, partition), from the fetch position; empty where unknown."""
        ...

    def committed_lag(self) -> Mapping[tuple[str, int], int]:
        """Messages behind the end from the committed position: the window a crash would replay."""
        ...

    def progress(self) -> tuple[int, int | None]:
        """Bytes read and the total when known (a file): for a progress line, not for correctness."""
        ...

    def close(self) -> None: ...


class Unpositioned:
    """What a source without offsets to persist (a file, a document, an HTTP receiver) does for them:
    nothing to acknowledge or commit, and no lag to report."""

    def ack(self, *messages: Message) -> None:
        return None

    def commit(self) -> None:
        return None

    def lag(self) -> Mapping[tuple[str, int], int]:
        return {}

    def committed_lag(self) -> Mapping[tuple[str, int], int]:
        return {}


class DeadLetterSink(Protocol):
    """Where rejected messages go, with their reason, origin and original bytes."""

    def send(self, message: Message, reason: str, detail: str) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...
