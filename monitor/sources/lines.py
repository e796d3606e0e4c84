"""JSONL traces from a file (optionally tailed with ``--follow``) or from stdin: the embedded default."""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path
from typing import BinaryIO

from monitor.exceptions import SourceError
from monitor.sources.base import Message, Origin, Unpositioned

FOLLOW_SLEEP_S = 0.05
BATCH_SIZE = 500
PIPE_READ_BYTES = 1 << 16


class PipeLines:
    """Lines from a pipe without ever blocking longer than asked: stdin may stay open and silent."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._eof = False

    def readline(self, timeout_s: float) -> bytes | None:
        """The next line (with its newline); ``b""`` at end of input; None if none came within the timeout."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            if self._eof:
                line, self._buffer = self._buffer, b""
                return line
            ready, _, _ = select.select([self._fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(self._fd, PIPE_READ_BYTES)
            self._eof = not chunk
            self._buffer += chunk
        end = self._buffer.index(b"\n") + 1
        line, self._buffer = self._buffer[:end], self._buffer[end:]
        return line


class LineSource(Unpositioned):
    """Reads one message per line; blank lines are skipped, the original bytes are kept as they are."""

    def __init__(self, path: Path | None, follow: bool = False) -> None:
        self._path = path
        self._follow = follow and path is not None
        self._file: BinaryIO | None = None
        self._pipe: PipeLines | None = None
        self._line = 0
        self._partial = b""
        self._eof = False
        self._paused = False

    @property
    def name(self) -> str:
        return str(self._path) if self._path else "stdin"

    @property
    def ready(self) -> bool:
        return self._file is not None

    batch_size = BATCH_SIZE
    commit_interval_s = 1.0  # nothing to commit: a file has no position to persist

    @property
    def exhausted(self) -> bool:
        return self._eof and not self._follow

    def open(self) -> None:
        if self._path is None:
            self._file = sys.stdin.buffer
            self._pipe = PipeLines(sys.stdin.fileno())
            return
        try:
            self._file = self._path.open("rb")
        except OSError as exc:
            raise SourceError(f"cannot open trace file {self._path}: {exc.strerror}") from exc

    def poll(self, max_records: int, timeout_s: float) -> list[Message]:
        if self._file is None:
            raise SourceError("source used before open() or after close()")
        if self._paused or self.exhausted:
            time.sleep(min(timeout_s, FOLLOW_SLEEP_S))
            return []
        if self._pipe is not None:
            return self._poll_pipe(self._pipe, max_records, timeout_s)
        deadline = time.monotonic() + timeout_s
        out: list[Message] = []
        while len(out) < max_records:
            raw = self._file.readline()
            if not raw:
                if not self._follow:
                    self._finish_partial(out)
                    self._eof = True
                    break
                if out or time.monotonic() >= deadline:
                    break
                time.sleep(FOLLOW_SLEEP_S)
                continue
            self._take(raw, out)
        return out

    def _poll_pipe(self, pipe: PipeLines, max_records: int, timeout_s: float) -> list[Message]:
        """Wait up to ``timeout_s`` for the first line, then take only what is already there."""
        out: list[Message] = []
        while len(out) < max_records:
            raw = pipe.readline(0.0 if out else timeout_s)
            if raw is None:
                break
            if not raw:
                self._eof = True
                break
            self._take(raw if raw.endswith(b"\n") else raw + b"\n", out)
        return out

    def _take(self, raw: bytes, out: list[Message]) -> None:
        if not raw.endswith(b"\n") and self._follow:
            self._partial += raw  # a writer is mid-line; wait for the rest
            return
        raw, self._partial = self._partial + raw, b""
        self._line += 1
        value = raw.rstrip(b"\r\n")
        if value.strip():
            out.append(Message(value=value, origin=Origin(path=self.name, line=self._line)))

    def _finish_partial(self, out: list[Message]) -> None:
        if self._partial:
            self._take(self._partial + b"\n", out)

    def pause(self) -> None:
        self._paused = True

    def resume(self) -> None:
        self._paused = False

    def progress(self) -> tuple[int, int | None]:
        """Bytes read so far, and the file's size when it is a regular file not being followed."""
        if self._file is None or self._pipe is not None or self._path is None:
            return 0, None
        size = None if self._follow else os.fstat(self._file.fileno()).st_size
        return self._file.tell(), size

    def close(self) -> None:
        if self._file is not None and self._path is not None:
            self._file.close()
        self._file = None
        self._pipe = None
