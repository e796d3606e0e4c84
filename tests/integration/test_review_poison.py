"""Poison cases on both review stores: content a database refuses never blocks the cases behind it.

NUL and lone surrogates are replaced before they reach a database; a case a database refuses anyway
(here: a trigger) is set aside and counted; an outage (a locked file, a killed connection) keeps the
queue and retries it. The same tests run on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest
from prometheus_client import CollectorRegistry

from monitor.metrics import Metrics
from monitor.review import open_store
from monitor.review.sink import ReviewSink
from monitor.review.sqlite import SqliteBackend
from monitor.review.store import ReviewStore
from monitor.trace import Trace, validate_trace
from tests.support.daemon import ragmon_executable

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

CHUNK = {"chunk_id": "c01", "sections": ["DT-1"], "text": "Khách được đổi trả trong 7 ngày."}


def _trace(trace_id: str, **fields: Any) -> Trace:
    base: dict[str, Any] = {
        "trace_id": trace_id,
        "question": "Áo trả trong mấy ngày?",
        "answer": "Bạn có 45 ngày để đổi trả.",
        "retrieved_chunks": [CHUNK],
    }
    return validate_trace({**base, **fields})


def _record(trace: Trace) -> dict[str, Any]:
    return {
        "trace_id": trace.trace_id,
        "versions": {"model_id": None, "prompt_version": None, "index_version": None},
        "judge": None,
        "flags": [{"reason": "numeric_unsupported", "detail": "answer says 45 ngày", "severity": "critical"}],
    }


def _sink(store: ReviewStore) -> tuple[ReviewSink, CollectorRegistry]:
    registry = CollectorRegistry()
    return ReviewSink(store, Metrics(registry), {"faithfulness": 0.8}), registry


def _write(sink: ReviewSink, trace: Trace) -> None:
    sink.write(trace, _record(trace), flagged=True, late=False)
    sink.wait_idle()  # the sink writes on its own thread


POISON = [
    _trace("poison-nul-question", question="Áo\x00 trả trong mấy ngày?"),
    _trace("poison-nul-answer", answer="45\x00 ngày"),
    _trace("poison-nul-chunk", retrieved_chunks=[{**CHUNK, "text": "7 ngày\x00"}]),
    _trace("poison-nul-\x00-id"),
    _trace("poison-surrogate", question="\ud800 áo", metadata={"k\udfff": "v\ud801"}),
]


def test_poison_then_twenty_flagged_are_all_stored(store_url: str) -> None:
    """NUL and lone surrogates are replaced with U+FFFD; all 20 cases after them are stored too."""
    with open_store(store_url) as store:
        sink, registry = _sink(store)
        for trace in POISON:
            _write(sink, trace)
        for n in range(20):
            _write(sink, _trace(f"after-{n:02d}"))
        assert sink.unstored == 0 and sink.rejected == 0
        assert len([c for c in store.list_cases() if c.trace_id.startswith("after-")]) == 20
        assert len(store.list_cases()) == 25
        assert store.require("poison-nul-question").trace["question"] == "Áo\ufffd trả trong mấy ngày?"
        assert store.require("poison-nul-\ufffd-id").trace["answer"] == "Bạn có 45 ngày để đổi trả."
        stored = json.dumps(store.require("poison-surrogate").trace, ensure_ascii=False)
        assert "\ufffd áo" in stored and "v\ufffd" in stored
        stored.encode("utf-8")  # no lone surrogate left anywhere
        assert registry.get_sample_value("ragmon_review_upserts_total", {"outcome": "ok"}) == 25


def _refuse_poison(store_url: str) -> None:
    """A trigger that refuses one case's content, as a database constraint would."""
    if store_url.startswith("postgresql"):
        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "IF NEW.trace_id = 'refused' THEN "
                "RAISE EXCEPTION 'refused' USING ERRCODE = 'check_violation'; "
                "END IF; RETURN NEW; END $$"
            )
            conn.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON review_cases FOR EACH ROW EXECUTE FUNCTION refuse()"
            )
        return
    with sqlite3.connect(store_url) as conn:
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON review_cases WHEN NEW.trace_id = 'refused' "
            "BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )


def test_a_refused_case_is_set_aside_and_the_queue_goes_on(store_url: str) -> None:
    """A case the database refuses for its content is counted and dropped; the 20 after it are stored."""
    with open_store(store_url):
        pass
    _refuse_poison(store_url)
    with open_store(store_url) as store:
        sink, registry = _sink(store)
        _write(sink, _trace("refused"))
        for n in range(20):
            _write(sink, _trace(f"after-{n:02d}"))
        assert sink.rejected == 1 and sink.unstored == 0
        assert len(store.list_cases()) == 20
        assert registry.get_sample_value("ragmon_review_upserts_total", {"outcome": "rejected"}) == 1


def test_sqlite_lock_is_an_outage_and_the_cases_wait(tmp_path: Path) -> None:
    """A locked SQLite file is an outage: the cases stay queued, and are all written once it is free."""
    path = str(tmp_path / "review.db")
    with open_store(path):
        pass
    store = ReviewStore(SqliteBackend(path, busy_timeout=0.05))
    sink, registry = _sink(store)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    for n in range(3):
        _write(sink, _trace(f"locked-{n}"))
    assert sink.unstored == 3 and sink.rejected == 0
    holder.execute("ROLLBACK")
    holder.close()
    _write(sink, _trace("free"))
    assert sink.unstored == 0
    assert len(store.list_cases()) == 4
    assert registry.get_sample_value("ragmon_review_upserts_total", {"outcome": "error"}) == 3
    store.close()


def test_postgres_lost_connection_is_an_outage_and_reconnects(pg_url: str) -> None:
    """A killed PostgreSQL connection fails one write (kept in the queue); the next write reconnects."""
    with open_store(pg_url) as store:
        sink, _ = _sink(store)
        _write(sink, _trace("before"))
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND application_name = '' AND query LIKE '%review_%'"
            )
        _write(sink, _trace("during"))
        _write(sink, _trace("after"))
        assert sink.unstored == 0 and sink.rejected == 0
        assert {c.trace_id for c in store.list_cases()} == {"before", "during", "after"}


def test_replay_stores_every_flagged_trace_after_poison(store_url: str, tmp_path: Path) -> None:
    """End to end: poison traces (NUL, lone surrogate escapes) then 20 flagged traces, all stored."""
    lines = [
        json.dumps(
            {"trace_id": "p1", "question": "q\u0000", "answer": "45 ngày", "retrieved_chunks": [CHUNK]}
        ),
        json.dumps(
            {"trace_id": "p2", "question": "q\ud800", "answer": "45 ngày", "retrieved_chunks": [CHUNK]}
        ),
        *(
            json.dumps(
                {
                    "trace_id": f"t{n}",
                    "question": "Áo trả mấy ngày?",
                    "answer": "45 ngày",
                    "retrieved_chunks": [CHUNK],
                }
            )
            for n in range(20)
        ),
    ]
    traces = tmp_path / "poison.jsonl"
    traces.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(
        [
            ragmon_executable(),
            "replay",
            str(traces),
            "--store",
            store_url,
            "--format",
            "json",
            "--dlq",
            str(tmp_path / "dlq.jsonl"),
            "--log-level",
            "error",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["traces"] == 22 and summary["review_rejected"] == 0 and summary["review_unstored"] == 0
    with open_store(store_url) as store:
        ids = {case.trace_id for case in store.list_cases()}
    assert ids == {"p1", "p2", *(f"t{n}" for n in range(20))}
