"""Per-partition tracking of handled offsets, so commits only ever cover fully handled traces.

Traces are handled concurrently (a judged trace finishes after later cheap ones), so the committable
position of a partition is the first offset that is not yet done: the contiguous done prefix.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Partition = tuple[str, int]


@dataclass(slots=True)
class _PartitionState:
    pending: deque[int] = field(default_factory=deque)
    done: set[int] = field(default_factory=set)
    committable: int | None = None  # next offset to commit (last contiguous done + 1)
    committed: int | None = None
    first: int | None = None  # the first offset handed out: the replay point before any commit


class OffsetTracker:
    """Thread-safe: ``started`` and ``commit`` run on the consumer thread, ``done`` on any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[Partition, _PartitionState] = {}

    def started(self, partition: Partition, offset: int) -> None:
        """Record that ``offset`` was handed to the pipeline (offsets arrive in order per partition)."""
        self.started_many(partition, (offset,))

    def started_many(self, partition: Partition, offsets: Sequence[int]) -> None:
        """``started`` for a poll's offsets of one partition, in order, under one lock."""
        if not offsets:
            return
        with self._lock:
            state = self._parts.setdefault(partition, _PartitionState())
            state.pending.extend(offsets)
            if state.first is None:
                state.first = offsets[0]

    def done(self, partition: Partition, offset: int) -> None:
        """Mark ``offset`` fully handled; unknown partitions (revoked meanwhile) are ignored."""
        self.done_many(((partition, offset),))

    def done_many(self, handled: Iterable[tuple[Partition, int]]) -> None:
        """``done`` for many (partition, offset) pairs under one lock."""
        with self._lock:
            for partition, offset in handled:
                state = self._parts.get(partition)
                if state is None or not state.pending or offset < state.pending[0]:
                    continue  # revoked meanwhile, or an old ack from before a revoke and reassign
                state.done.add(offset)
                pending, done = state.pending, state.done
                while pending and pending[0] in done:
                    head = pending.popleft()
                    done.discard(head)
                    state.committable = head + 1

    def to_commit(self, partitions: set[Partition] | None = None) -> dict[Partition, int]:
        """Positions that advanced since the last commit, optionally limited to some partitions."""
        with self._lock:
            return {
                p: s.committable
                for p, s in self._parts.items()
                if s.committable is not None
                and s.committable != s.committed
                and (partitions is None or p in partitions)
            }

    def committed(self, positions: dict[Partition, int]) -> None:
        """Record a successful commit of ``positions``."""
        with self._lock:
            for p, offset in positions.items():
                if p in self._parts:
                    self._parts[p].committed = offset

    def forget(self, partitions: set[Partition]) -> None:
        """Drop revoked partitions; in-flight traces of theirs will be redelivered to the new owner."""
        with self._lock:
            for p in partitions:
                self._parts.pop(p, None)

    def position(self) -> dict[Partition, int]:
        """Per partition, the offset after the last one handed out (how far reading got)."""
        out: dict[Partition, int] = {}
        with self._lock:
            for p, s in self._parts.items():
                if s.pending:
                    out[p] = s.pending[-1] + 1
                elif s.committable is not None:
                    out[p] = s.committable
        return out

    def replay_point(self) -> dict[Partition, int]:
        """Per partition, where a restart would resume: the last commit, else the first offset read."""
        out: dict[Partition, int] = {}
        with self._lock:
            for p, s in self._parts.items():
                point = s.committed if s.committed is not None else s.first
                if point is not None:
                    out[p] = point
        return out

    def in_flight(self) -> int:
        """Offsets handed out and not yet done."""
        with self._lock:
            return sum(len(s.pending) for s in self._parts.values())
