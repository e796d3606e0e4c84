"""Versioned schema migrations for the review store, one statement list per backend.

Each migration runs once, in a transaction, and is recorded in ``review_schema_migrations``; running
``migrate`` again is a no-op. Replicas starting together serialize on a lock (an advisory lock in
PostgreSQL, ``BEGIN IMMEDIATE`` in SQLite). Add a migration by appending to ``MIGRATIONS``: never edit
one that has shipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from monitor.exceptions import StoreError
from monitor.review.backend import Backend, Dialect, Tx

STATUSES_SQL = "('pending', 'confirmed', 'false_alarm', 'promoted')"


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: a version number, a name, and its statements for each dialect."""

    version: int
    name: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]

    def statements(self, dialect: Dialect) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgres


def _cases(json_type: str, time_type: str) -> tuple[str, ...]:
    return (
        f"""CREATE TABLE review_cases (
            trace_id TEXT PRIMARY KEY,
            question TEXT NOT NULL,
            model_id TEXT,
            prompt_version TEXT,
            index_version TEXT,
            trace {json_type} NOT NULL,
            result {json_type} NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN {STATUSES_SQL}),
            verdict TEXT CHECK (verdict IN ('ok', 'bad')),
            expected_answer TEXT,
            expected_sections {json_type},
            note TEXT,
            reviewer TEXT,
            labelled_at {time_type},
            promoted_source TEXT,
            golden_version INTEGER,
            promoted_at {time_type},
            created_at {time_type} NOT NULL,
            updated_at {time_type} NOT NULL
        )""",
        "CREATE INDEX review_cases_status ON review_cases (status)",
        "CREATE INDEX review_cases_created ON review_cases (created_at)",
        f"""CREATE TABLE review_flags (
            trace_id TEXT NOT NULL REFERENCES review_cases (trace_id) ON DELETE CASCADE,
            reason TEXT NOT NULL,
            detail TEXT,
            first_seen {time_type} NOT NULL,
            PRIMARY KEY (trace_id, reason)
        )""",
        "CREATE INDEX review_flags_reason ON review_flags (reason)",
    )


def _samples(time_type: str) -> tuple[str, ...]:
    return (
        f"""CREATE TABLE review_samples (
            batch TEXT NOT NULL,
            trace_id TEXT NOT NULL REFERENCES review_cases (trace_id) ON DELETE CASCADE,
            pick TEXT NOT NULL,
            picked_at {time_type} NOT NULL,
            PRIMARY KEY (batch, trace_id)
        )""",
        "CREATE INDEX review_samples_trace ON review_samples (trace_id)",
    )


_FLAG_SEVERITY = (
    "ALTER TABLE review_flags ADD COLUMN severity TEXT",
    "CREATE INDEX review_flags_severity ON review_flags (severity)",
)

_NO_SEVERITY_INDEX = ("DROP INDEX IF EXISTS review_flags_severity",)


def _mutes(time_type: str) -> tuple[str, ...]:
    return (
        f"""CREATE TABLE review_mutes (
            condition TEXT NOT NULL,
            value TEXT NOT NULL,
            unit TEXT NOT NULL,
            trace_id TEXT,
            reviewer TEXT,
            note TEXT,
            created_at {time_type} NOT NULL,
            PRIMARY KEY (condition, value, unit)
        )""",
    )


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "cases and flags", _cases("TEXT", "TEXT"), _cases("JSONB", "TIMESTAMPTZ")),
    Migration(2, "weekly sample batches", _samples("TEXT"), _samples("TIMESTAMPTZ")),
    # The severity each flag was raised with (the queue's severity filter); NULL on older rows.
    Migration(3, "flag severity", _FLAG_SEVERITY, _FLAG_SEVERITY),
    # Three values: SQLite's planner took this index over the primary key for the queue's severity
    # filter and read every critical flag once per case (26 s for 10,000 cases; 0.1 s without it).
    Migration(4, "no flag severity index", _NO_SEVERITY_INDEX, _NO_SEVERITY_INDEX),
    # Conditional-value findings reviewers muted (monitor.conditional.mutes), shared by every replica.
    Migration(5, "conditional mutes", _mutes("TEXT"), _mutes("TIMESTAMPTZ")),
)
LATEST_VERSION = MIGRATIONS[-1].version

_VERSION_TABLE = {
    "sqlite": """CREATE TABLE IF NOT EXISTS review_schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)""",
    "postgres": """CREATE TABLE IF NOT EXISTS review_schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())""",
}


def migrate(backend: Backend) -> list[int]:
    """Bring the schema to ``LATEST_VERSION``; return the versions applied now (empty when up to date)."""
    with backend.transaction() as tx:
        backend.lock_schema(tx)
        tx.execute(_VERSION_TABLE[backend.dialect])
        current = applied_version(tx)
        if current > LATEST_VERSION:
            raise StoreError(
                f"{backend.description}: schema version {current} is newer than this ragmon knows "
                f"({LATEST_VERSION}); upgrade ragmon"
            )
        return [_apply(backend, tx, m) for m in MIGRATIONS if m.version > current]


def applied_version(tx: Tx) -> int:
    """The highest migration version recorded, 0 for an empty database."""
    row = tx.one("SELECT MAX(version) FROM review_schema_migrations")
    return int(row[0]) if row and row[0] is not None else 0


def _apply(backend: Backend, tx: Tx, migration: Migration) -> int:
    for statement in migration.statements(backend.dialect):
        tx.execute(statement)
    tx.execute(
        "INSERT INTO review_schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
        (migration.version, migration.name, backend.time_param(_now())),
    )
    return migration.version


def _now() -> datetime:
    return datetime.now(UTC)


_HAS_SCHEMA = {
    "sqlite": "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_schema_migrations'",
    "postgres": "SELECT 1 FROM information_schema.tables "
    "WHERE table_schema = current_schema() AND table_name = 'review_schema_migrations'",
}


def has_schema(backend: Backend) -> bool:
    """Whether ragmon has ever created its tables in this database (an empty file or schema has not)."""
    with backend.transaction() as tx:
        return tx.one(_HAS_SCHEMA[backend.dialect]) is not None
