"""The PostgreSQL backend: one queue shared by every replica (psycopg 3).

Upserts rely on ``INSERT ... ON CONFLICT``, which PostgreSQL makes atomic under concurrency, so
replicas redelivering the same trace never duplicate it. A broken connection is reopened on the
next transaction, so a database restart costs the daemon one failed write, not its store.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Literal

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb

from monitor.exceptions import StoreError, StoreRejected, StoreUnavailable
from monitor.review.backend import Row, Tx

DEFAULT_CONNECT_TIMEOUT = 5


STATEMENT_TIMEOUT_MS = 10_000
# Errors caused by the data of one write (an untranslatable character, a value out of range, a broken
# constraint): the same write fails again. Every other psycopg.Error (connection refused or lost,
# statement timeout, shutdown) may pass, so the write is retried.
_CONTENT_ERRORS = (
    psycopg.DataError,
    psycopg.IntegrityError,
    psycopg.ProgrammingError,
    UnicodeError,
    OverflowError,
)


class _PostgresTx:
    def __init__(self, cursor: psycopg.Cursor[Any]) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._cursor.execute(_dialect(sql), tuple(params))
        return int(self._cursor.rowcount)

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        self._cursor.execute(_dialect(sql), tuple(params))
        row = self._cursor.fetchone()
        return tuple(row) if row is not None else None

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        self._cursor.execute(_dialect(sql), tuple(params))
        return [tuple(row) for row in self._cursor.fetchall()]


def _dumps(value: Any) -> str:
    # default=str: a datetime or UUID left in a record is stored as text rather than failing the write.
    return json.dumps(value, ensure_ascii=False, default=str)


def _message(exc: BaseException) -> str:
    """The error's first line and SQLSTATE: never its DETAIL or CONTEXT, which quote the row's data."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) or (str(exc).splitlines() or [""])[0]
    state = getattr(diag, "sqlstate", None)
    return f"{type(exc).__name__}: {primary}" + (f" (SQLSTATE {state})" if state else "")


def _dialect(sql: str) -> str:
    # The store's SQL never contains a literal '?' or '%', so this rewrite is exact.
    return sql.replace("?", "%s")


def describe(url: str) -> str:
    """``user@host:port/db`` for messages and logs; never the password."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise StoreError(f"invalid PostgreSQL URL: {exc}") from exc
    user = f"{info['user']}@" if info.get("user") else ""
    return f"{user}{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


class PostgresBackend:
    """A review store in a PostgreSQL database; put ``options=-csearch_path=NAME`` in the URL for a schema."""

    dialect: Literal["postgres"] = "postgres"

    def __init__(self, url: str, connect_timeout: int = DEFAULT_CONNECT_TIMEOUT) -> None:
        self.description = f"PostgreSQL review store {describe(url)}"
        self._url = url
        self._timeout = connect_timeout
        self._lock = threading.RLock()
        self._conn = self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        extra: dict[str, Any] = {} if "connect_timeout" in self._url else {"connect_timeout": self._timeout}
        # A half-open connection or a stuck statement must fail fast, not freeze the daemon's loop.
        extra.setdefault("keepalives", 1)
        extra.setdefault("keepalives_idle", 30)
        extra.setdefault("keepalives_interval", 10)
        extra.setdefault("keepalives_count", 3)
        options = str(conninfo_to_dict(self._url).get("options") or "")
        if "statement_timeout" not in options:  # keep the URL's own options (a search_path, say)
            extra["options"] = f"{options} -c statement_timeout={STATEMENT_TIMEOUT_MS}".strip()
        try:
            return psycopg.connect(self._url, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"cannot connect to {self.description}: {_message(exc)}") from exc

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """Run the body in one transaction; commit on success, roll back on any error."""
        with self._lock:
            if self._conn.broken:
                self._conn = self._connect()
            try:
                with self._conn.transaction(), self._conn.cursor() as cursor:
                    yield _PostgresTx(cursor)
            except _CONTENT_ERRORS as exc:
                raise StoreRejected(f"{self.description}: {_message(exc)}") from exc
            except psycopg.Error as exc:
                raise StoreUnavailable(f"{self.description}: {_message(exc)}") from exc

    def lock_schema(self, tx: Tx) -> None:
        """Hold a transaction-scoped advisory lock keyed by schema, so replicas migrate one at a time."""
        tx.one("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.ragmon_review_migrations'))")

    def json_param(self, value: Any) -> Any:
        return Jsonb(value, dumps=_dumps)

    def json_value(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def time_param(self, value: datetime) -> Any:
        return value

    def time_value(self, value: Any) -> datetime:
        return value  # type: ignore[no-any-return]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
