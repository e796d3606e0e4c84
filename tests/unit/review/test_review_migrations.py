"""Schema migrations on SQLite: from empty, re-run as a no-op, step by step, and refusing a newer schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from monitor.exceptions import StoreError
from monitor.review import open_store
from monitor.review.migrations import LATEST_VERSION, MIGRATIONS, migrate
from monitor.review.sqlite import SqliteBackend


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as raw:
        return {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_migrate_empty_database(tmp_path: Path) -> None:
    """An empty file gets every migration, recorded by version; running again applies nothing."""
    path = tmp_path / "m.db"
    backend = SqliteBackend(str(path))
    try:
        assert migrate(backend) == [m.version for m in MIGRATIONS]
        assert migrate(backend) == []
    finally:
        backend.close()
    assert {"review_cases", "review_flags", "review_samples", "review_schema_migrations"} <= _tables(path)
    with sqlite3.connect(path) as raw:
        versions = [row[0] for row in raw.execute("SELECT version FROM review_schema_migrations ORDER BY 1")]
    assert versions == list(range(1, LATEST_VERSION + 1))


def test_open_store_twice_keeps_data(tmp_path: Path) -> None:
    """Reopening an up-to-date store re-runs migrations as a no-op and keeps its cases."""
    url = str(tmp_path / "m.db")
    with open_store(url) as store:
        store.upsert_case(
            {"trace_id": "t", "question": "q", "answer": "a"}, {"trace_id": "t"}, ["judge_error"]
        )
    with open_store(url) as store:
        assert [c.trace_id for c in store.list_cases()] == ["t"]


def test_migrates_from_an_older_version(tmp_path: Path) -> None:
    """A database at version 1 gets only the later migrations."""
    path = tmp_path / "m.db"
    with sqlite3.connect(path) as raw:
        raw.execute(
            "CREATE TABLE review_schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)"
        )
        for statement in MIGRATIONS[0].sqlite:
            raw.execute(statement)
        raw.execute("INSERT INTO review_schema_migrations VALUES (1, 'cases and flags', '2026-09-01')")
    backend = SqliteBackend(str(path))
    try:
        assert migrate(backend) == [m.version for m in MIGRATIONS[1:]]
    finally:
        backend.close()
    assert "review_samples" in _tables(path)


def test_refuses_newer_schema(tmp_path: Path) -> None:
    """A database migrated by a newer ragmon is refused rather than misread."""
    path = tmp_path / "m.db"
    with open_store(str(path)):
        pass
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO review_schema_migrations VALUES (?, 'future', '2027-01-01')", (LATEST_VERSION + 1,)
        )
    with pytest.raises(StoreError, match="newer"):
        open_store(str(path))


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    """A migration that fails leaves no half-made schema behind: it runs in one transaction."""
    path = tmp_path / "m.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE review_samples (x INTEGER)")  # clashes with migration 2
    with pytest.raises(StoreError, match="already exists"):
        open_store(str(path))
    assert _tables(path) == {"review_samples"}
