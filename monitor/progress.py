"""A progress line for ``ragmon replay`` on a terminal: messages, traces per second, and the time left.

Shown only when stderr is a terminal (scripts and CI get the summary alone), redrawn at most twice a
second, erased when the run ends.
"""

from __future__ import annotations

import time
from typing import TextIO

REDRAW_S = 0.5


class Progress:
    """Redraws one status line; ``update`` is cheap enough to call after every poll."""

    def __init__(self, stream: TextIO, label: str = "replay") -> None:
        self._stream, self._label = stream, label
        self._started = time.monotonic()
        self._drawn = 0.0
        self._width = 0

    def update(self, messages: int, done: int, total: int | None) -> None:
        """Show ``messages`` handled; with ``total`` bytes known, the share done and the time left."""
        now = time.monotonic()
        if now - self._drawn < REDRAW_S:
            return
        self._drawn = now
        elapsed = max(now - self._started, 1e-6)
        line = f"{self._label}: {messages:,} messages, {messages / elapsed:,.0f}/s"
        if total:
            share = min(done / total, 1.0)
            left = elapsed * (1 - share) / share if share > 0 else 0.0
            line += f", {share:.0%} of {total / 1e6:,.1f} MB, about {_duration(left)} left"
        self._write(line)

    def close(self) -> None:
        """Erase the line."""
        if self._width:
            self._write("")

    def _write(self, line: str) -> None:
        self._stream.write("\r" + line.ljust(self._width))
        if not line:
            self._stream.write("\r")
        self._stream.flush()
        self._width = len(line)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
