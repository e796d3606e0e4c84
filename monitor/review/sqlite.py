"""The SQLite backend: the embedded default, one file, safe for several threads and processes.

Writes take the database lock up front (``BEGIN IMMEDIATE``) and wait up to ``busy_timeout`` for it,
so two writers never interleave a read-then-write; WAL mode lets readers run beside a writer.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from monitor.exceptions import StoreError, StoreRejected, StoreUnavailable
from monitor.review.backend import Row, Tx

MEMORY = ":memory:"
# Errors caused by the data of one write (a value SQLite cannot bind or encode), not by the database:
# retrying the same write fails again. Every other sqlite3.Error (locked, disk I/O, full) may pass.
_CONTENT_ERRORS = (
    sqlite3.DataError,
    sqlite3.IntegrityError,
    sqlite3.InterfaceError,
    sqlite3.ProgrammingError,
    UnicodeError,
    OverflowError,
)
DEFAULT_BUSY_TIMEOUT = 10.0


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self._conn.execute(sql, tuple(params)).rowcount

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row = self._conn.execute(sql, tuple(params)).fetchone()
        return tuple(row) if row is not None else None

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(row) for row in self._conn.execute(sql, tuple(params)).fetchall()]


class SqliteBackend:
    """A review store in one SQLite file (or ``:memory:``, for tests of a single process)."""

    dialect: Literal["sqlite"] = "sqlite"

    def __init__(self, path: str, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.description = f"SQLite review store {path}"
        if path != MEMORY and not Path(path).parent.is_dir():
            raise StoreError(f"{self.description}: directory {Path(path).parent} does not exist")
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA foreign_keys = ON")
            if path != MEMORY:
                self._use_wal(busy_timeout)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"cannot open {self.description}: {exc}") from exc

    def _use_wal(self, busy_timeout: float) -> None:
        """Switch to WAL once per file. The switch takes a lock without waiting on the busy timeout,
        so a second writer opening the file meanwhile retries here instead of failing."""
        deadline = time.monotonic() + busy_timeout
        while self._conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """Run the body under the write lock; commit on success, roll back on any error."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield _SqliteTx(self._conn)
                except BaseException:
                    self._rollback()
                    raise
                self._conn.execute("COMMIT")
            except _CONTENT_ERRORS as exc:
                self._rollback()
                raise StoreRejected(f"{self.description}: {type(exc).__name__}: {exc}") from exc
            except sqlite3.Error as exc:
                self._rollback()
                raise StoreUnavailable(f"{self.description}: {exc}") from exc

    def _rollback(self) -> None:
        if self._conn.in_transaction:  # a failed statement or COMMIT (disk full) leaves it open
            self._conn.execute("ROLLBACK")

    def lock_schema(self, tx: Tx) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already holds the database's write lock."""

    def json_param(self, value: Any) -> Any:
        return json.dumps(value, ensure_ascii=False, default=str)

    def json_value(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def time_param(self, value: datetime) -> Any:
        # Fixed-width UTC text sorts like the instants it names, so range filters compare strings.
        return value.astimezone(UTC).isoformat(timespec="microseconds")

    def time_value(self, value: Any) -> datetime:
        return datetime.fromisoformat(value) if isinstance(value, str) else value

    def close(self) -> None:
        with self._lock:
            self._conn.close()
