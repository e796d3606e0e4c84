"""Dead-letter sinks: every rejected message is kept with its reason, origin and original bytes.

Records are JSON: ``{"reason", "detail", "origin", "value"}`` with ``value`` the original text, or
``value_b64`` when the bytes are not UTF-8. For Kafka the record goes to ``<topic>.dlq`` keyed like the
original; for files and stdin it is a line in a JSONL file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from monitor.sources.base import Message

MAX_KEPT_BYTES = 512 * 1024


def dead_letter_record(message: Message, reason: str, detail: str) -> dict[str, Any]:
    """The JSON-ready record for one rejected message; bytes are kept exactly up to ``MAX_KEPT_BYTES``.

    Past that (a ``too_large`` message), the first ``MAX_KEPT_BYTES`` are kept with the full size and a
    sha256 of the whole, so the record itself fits in a Kafka message.
    """
    value = message.value
    record: dict[str, Any] = {
        "reason": reason,
        "detail": detail,
        "origin": message.origin.as_dict(),
        "rejected_at": datetime.now(UTC).isoformat(),
    }
    if len(value) > MAX_KEPT_BYTES:
        record.update(size=len(value), sha256=hashlib.sha256(value).hexdigest(), truncated=True)
        value = value[:MAX_KEPT_BYTES]
    try:
        record["value"] = value.decode("utf-8")
    except UnicodeDecodeError:
        record["value_b64"] = base64.b64encode(value).decode("ascii")
    return record


class FileDeadLetterSink:
    """Appends rejected messages to a JSONL file, flushed per record so nothing is lost on a crash."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._file: IO[str] | None = None

    def send(self, message: Message, reason: str, detail: str) -> None:
        line = json.dumps(dead_letter_record(message, reason, detail), ensure_ascii=False)
        with self._lock:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            self._file.write(line + "\n")
            self._file.flush()

    def flush(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
