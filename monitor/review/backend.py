"""What the review store needs from a database: transactions, and JSON and timestamp conversion.

``ReviewStore`` writes its SQL once, with ``?`` placeholders; each backend (SQLite, PostgreSQL) runs
it in its own dialect and is the one place where its driver's exceptions become ``StoreError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgres"]
Row = tuple[Any, ...]


class Tx(Protocol):
    """One open transaction; statements use ``?`` placeholders whatever the backend."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Backend(Protocol):
    """A connected database holding the review tables."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def description(self) -> str: ...

    def transaction(self) -> AbstractContextManager[Tx]:
        """A transaction that commits on success and rolls back on error; driver errors become StoreError."""
        ...

    def lock_schema(self, tx: Tx) -> None:
        """Serialize migrations between processes for the rest of ``tx``."""
        ...

    def json_param(self, value: Any) -> Any: ...

    def json_value(self, value: Any) -> Any: ...

    def time_param(self, value: datetime) -> Any: ...

    def time_value(self, value: Any) -> datetime: ...

    def close(self) -> None: ...
