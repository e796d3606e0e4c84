"""Dead-letter sinks: every rejected message is kept with its reason, origin, size and digest.

Records are JSON: ``{"reason", "detail", "origin", "rejected_at", "size", "sha256", "value"}``.
``value`` is the message as text with PII scrubbed like everything else ragmon writes (bytes that
are not UTF-8 are decoded with U+FFFD, and ``"utf8": false`` says so). The exact original bytes are
kept only when ``dead_letter_raw`` is set (``raw_b64``): they may hold PII, so keep that topic or file
as guarded as the source itself. For Kafka the record goes to ``<topic>.dlq`` keyed like the original
(the key pseudonymized); for files and stdin it is a line in a JSONL file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from monitor.message import Message
from monitor.pii import Scrubber

MAX_KEPT_BYTES = 512 * 1024


class DeadLetterFormat:
    """Turns a rejected message into its record; one per process, shared by the file and Kafka sinks."""

    def __init__(self, scrubber: Scrubber | None = None, keep_raw: bool = False) -> None:
        self._scrub = scrubber
        self.keep_raw = keep_raw

    def record(self, message: Message, reason: str, detail: str) -> dict[str, Any]:
        """The JSON-ready record; past ``MAX_KEPT_BYTES`` (a ``too_large`` message) only the head is kept."""
        value = message.value
        record: dict[str, Any] = {
            "reason": reason,
            "detail": self._text(detail),
            "origin": message.origin.as_dict(),
            "rejected_at": datetime.now(UTC).isoformat(),
            "size": len(value),
            "sha256": hashlib.sha256(value).hexdigest(),
        }
        if len(value) > MAX_KEPT_BYTES:
            record["truncated"] = True
            value = value[:MAX_KEPT_BYTES]
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            text = value.decode("utf-8", errors="replace")
            record["utf8"] = False
        record["value"] = self._text(text)
        if self.keep_raw:
            record["raw_b64"] = base64.b64encode(value).decode("ascii")
        return record

    def key(self, key: bytes | None) -> bytes | None:
        """The Kafka key of the record: the original's, pseudonymized unless raw bytes are kept."""
        if key is None or self.keep_raw or self._scrub is None:
            return key
        return self._scrub.pseudonymize(key.decode("utf-8", errors="replace")).encode("utf-8")

    def encode(self, message: Message, reason: str, detail: str) -> bytes:
        """The record as one line of UTF-8 JSON."""
        return json.dumps(self.record(message, reason, detail), ensure_ascii=False).encode("utf-8")

    def _text(self, text: str) -> str:
        return self._scrub.scrub(text) if self._scrub is not None else text


def dead_letter_record(message: Message, reason: str, detail: str) -> dict[str, Any]:
    """The record of one rejected message without scrubbing (tests, tools)."""
    return DeadLetterFormat().record(message, reason, detail)


class FileDeadLetterSink:
    """Appends rejected messages to a JSONL file, flushed per record so nothing is lost on a crash."""

    def __init__(self, path: Path, fmt: DeadLetterFormat | None = None) -> None:
        self.path = path
        self._format = fmt or DeadLetterFormat()
        self._lock = threading.Lock()
        self._file: IO[str] | None = None

    def send(self, message: Message, reason: str, detail: str) -> None:
        line = self._format.encode(message, reason, detail).decode("utf-8")
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
