"""A whole file as one message: a JSON array, a pretty-printed JSON document, an OTLP request file.

Ragas's records JSON, DeepEval's ``save_as("json")``, a Langfuse export and a saved OTLP request are
one document each, not one record per line. ``is_document`` tells such a file from JSONL by its first
bytes; ``DocumentSource`` hands the whole file over once, and ``monitor.assembly`` splits it into
records (with their index as the line number).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from monitor.exceptions import SourceError
from monitor.sources.base import Message, Origin, Unpositioned

SNIFF_BYTES = 4096
MAX_DOCUMENT_BYTES = 1 << 30


def is_document(path: Path) -> bool:
    """Whether a file is one document rather than JSONL.

    A document is binary (gzip, protobuf), or its first non-blank line opens an array (``[``) or is
    a lone ``{`` (pretty-printed); a ``.json`` file whose first line is not a whole JSON object too.
    A JSONL file whose first line is broken stays JSONL: its bad line is dead-lettered, not the file.
    """
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False  # the line source reports the error when it opens the file
    if head.startswith(b"\x1f\x8b") or path.suffix in (".pb", ".protobuf"):
        return True
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    first = text.split(b"\n", 1)[0].strip()
    if first.startswith(b"[") or first == b"{":
        return True
    return path.suffix == ".json" and first.startswith(b"{") and not _closes(first)


def _closes(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


class DocumentSource(Unpositioned):
    """Yields the file's bytes as one message, then is exhausted."""

    batch_size = 1
    commit_interval_s = 1.0

    def __init__(self, path: Path) -> None:
        self._path = path
        self._size: int | None = None
        self._done = False
        self._opened = False

    @property
    def name(self) -> str:
        return str(self._path)

    @property
    def ready(self) -> bool:
        return self._opened

    @property
    def exhausted(self) -> bool:
        return self._done

    def open(self) -> None:
        try:
            self._size = os.stat(self._path).st_size
        except OSError as exc:
            raise SourceError(f"cannot open trace file {self._path}: {exc.strerror}") from exc
        if self._size > MAX_DOCUMENT_BYTES:
            raise SourceError(
                f"{self._path} is one JSON/OTLP document of {self._size} bytes, over {MAX_DOCUMENT_BYTES}: "
                "write it as JSONL (one record per line) instead"
            )
        self._opened = True

    def poll(self, max_records: int, timeout_s: float) -> list[Message]:
        if not self._opened:
            raise SourceError("source used before open() or after close()")
        if self._done:
            return []
        try:
            value = self._path.read_bytes()
        except OSError as exc:
            raise SourceError(f"cannot read trace file {self._path}: {exc.strerror}") from exc
        self._done = True
        return [Message(value=value, origin=Origin(path=self.name))]

    def pause(self) -> None:
        return None

    def resume(self) -> None:
        return None

    def progress(self) -> tuple[int, int | None]:
        return (self._size or 0) if self._done else 0, self._size

    def close(self) -> None:
        self._opened = False
