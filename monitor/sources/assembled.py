"""A source wrapper that reads container formats: JSON arrays, OTLP requests, Langfuse observations.

``AssembledSource`` wraps any source and passes what it reads through a ``RecordReader``
(``monitor.assembly``): native records pass through, arrays are split, spans and observations are
gathered into traces. A raw message is acknowledged to the wrapped source only once every trace built
from it is handled, so Kafka commits stay at-least-once when a trace's spans span several records.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping

from monitor.assembly import Assembled, RecordReader
from monitor.message import Message
from monitor.sources.base import Source


class AssembledSource:
    """``inner``'s messages, read through ``reader``; every other call goes to ``inner``.

    ``on_read`` hears each raw message with what it yielded (the OTLP receiver answers its client
    then). A document that yields more records than one poll takes waits in a backlog.
    """

    def __init__(
        self,
        inner: Source,
        reader: RecordReader,
        on_read: Callable[[Message, list[Assembled]], None] | None = None,
    ) -> None:
        self.inner = inner
        self.reader = reader
        self.on_read = on_read
        self._parts: dict[int, tuple[Message, ...]] = {}  # id(built message) -> its raw messages
        self._backlog: deque[Message] = deque()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def ready(self) -> bool:
        return self.inner.ready

    @property
    def exhausted(self) -> bool:
        return self.inner.exhausted and not self.reader.pending and not self._backlog

    @property
    def batch_size(self) -> int:
        return self.inner.batch_size

    @property
    def commit_interval_s(self) -> float:
        return self.inner.commit_interval_s

    def open(self) -> None:
        self.inner.open()

    def poll(self, max_records: int, timeout_s: float) -> list[Message]:
        if not self._backlog:
            polled = self.inner.poll(max_records, timeout_s)
            reader = self.reader
            handed = list(map(reader.native, polled))
            common = self.on_read is None and not reader.pending and len(polled) <= max_records
            if common and None not in handed:
                return handed  # type: ignore[return-value]  # the common poll: native records only
            built: list[Assembled] = []
            for raw, native in zip(polled, handed, strict=True):
                yielded = [Assembled(native, (native,))] if native is not None else reader.read_other(raw)
                if self.on_read is not None:
                    self.on_read(raw, yielded)
                built.extend(yielded)
            built.extend(self.reader.flush() if self.inner.exhausted else self.reader.due())
            self._backlog.extend(self._track(b) for b in built)
        take = min(max_records, len(self._backlog))
        return [self._backlog.popleft() for _ in range(take)]

    def _track(self, built: Assembled) -> Message:
        parts = built.parts
        if len(parts) != 1 or parts[0] is not built.message:
            with self._lock:
                self._parts[id(built.message)] = built.parts
        return built.message

    def ack(self, *messages: Message) -> None:
        if not self._parts:  # nothing was built from several messages: each message is its own
            self.inner.ack(*messages)
            return
        done: list[Message] = []
        with self._lock:
            for message in messages:
                parts = self._parts.pop(id(message), None) if self._parts else None
                if parts is None:
                    done.append(message)
                else:
                    done.extend(self.reader.release(parts))
        self.inner.ack(*done)

    def commit(self) -> None:
        self.inner.commit()

    def pause(self) -> None:
        self.inner.pause()

    def resume(self) -> None:
        self.inner.resume()

    def lag(self) -> Mapping[tuple[str, int], int]:
        return self.inner.lag()

    def committed_lag(self) -> Mapping[tuple[str, int], int]:
        return self.inner.committed_lag()

    def progress(self) -> tuple[int, int | None]:
        return self.inner.progress()

    def close(self) -> None:
        self.inner.close()
