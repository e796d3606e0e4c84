"""Where result records go besides metrics: a JSONL results file, the review store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from monitor.pii import Scrubber
from monitor.trace import Trace


class ResultsFile:
    """One result record per trace and line (``--results OUT.jsonl``), PII scrubbed like everything stored.

    The daemon appends (a restart keeps what was written; at-least-once redelivery may repeat a
    trace); a replay starts the file afresh, as a report of that run. Late-feedback re-runs are left
    out: the file keeps the record of the trace's first handling.
    """

    every_trace = True

    def __init__(self, path: Path, scrubber: Scrubber | None = None, append: bool = True) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._scrub = scrubber
        self._file: IO[str] | None = path.open("a" if append else "w", encoding="utf-8", buffering=1)

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None:
        if late:
            return
        if self._file is None:
            raise ValueError(f"results file {self.path} used after close")
        clean = self._scrub.scrub_obj(record) if self._scrub is not None else record
        self._file.write(json.dumps(clean, ensure_ascii=False, default=str) + "\n")

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
