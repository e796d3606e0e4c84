"""The review store on real PostgreSQL: migrations, redelivery, concurrent writers; one schema per test."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from prometheus_client import CollectorRegistry

from monitor.conditional import MuteList
from monitor.exceptions import StoreError
from monitor.metrics import Metrics
from monitor.review import ReviewStore, Status, open_store
from monitor.review.migrations import LATEST_VERSION
from monitor.review.models import ReviewError
from monitor.review.promote import promote
from monitor.review.sink import ReviewSink
from tests.support.review_queue import check_queue_queries

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

QUESTION = "Mua áo mặc không vừa thì được trả trong mấy ngày?"


def _trace(trace_id: str, question: str = QUESTION) -> dict[str, Any]:
    return {
        "trace_id": trace_id,
        "question": question,
        "answer": "Bạn được trả hàng trong 30 ngày.",
        "retrieved_chunks": [
            {
                "chunk_id": "L1",
                "document_id": "doi-tra",
                "sections": ["DT-1"],
                "retrieval_score": 0.8,
                "text": "Khách được đổi trả trong 7 ngày.",
            }
        ],
        "model_id": "gpt-x",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-2026-09-25",
        "language": "vi",
    }


def _result(trace_id: str, reason: str = "numeric_unsupported", faithfulness: float = 0.5) -> dict[str, Any]:
    return {
        "trace_id": trace_id,
        "versions": {
            "model_id": "gpt-x",
            "prompt_version": "rag-answer-v4",
            "index_version": "kb-2026-09-25",
        },
        "scores": {"faithfulness": faithfulness, "answer_relevance": 0.9, "context_relevance": 1.0},
        "judge": {"name": "local", "claims": [{"text": "30 ngày", "supported": False, "chunk_ids": []}]},
        "flags": [{"reason": reason, "detail": f"{reason} for {trace_id}"}],
    }


@pytest.fixture
def store(pg_url: str) -> Iterator[ReviewStore]:
    with open_store(pg_url) as opened:
        yield opened


def _schema_tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
        return {row[0] for row in rows}


def test_migrations_from_empty_and_rerun(pg_url: str) -> None:
    """An empty schema gets every table; reopening runs no migration again."""
    with open_store(pg_url):
        pass
    assert {"review_cases", "review_flags", "review_samples", "review_schema_migrations"} <= _schema_tables(
        pg_url
    )
    with open_store(pg_url):
        pass
    with psycopg.connect(pg_url) as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM review_schema_migrations ORDER BY 1")]
    assert versions == list(range(1, LATEST_VERSION + 1))


def test_concurrent_first_migration(pg_url: str) -> None:
    """Replicas starting together on an empty schema serialize on the advisory lock; none fails."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def start() -> None:
        try:
            barrier.wait()
            with open_store(pg_url) as store:
                store.pending_count()
        except BaseException as exc:  # surfaced to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors


def test_redelivery_and_merge(store: ReviewStore) -> None:
    """Redelivered upserts keep one case; a later flag adds its reason; a label survives refreshes."""
    for _ in range(3):
        store.upsert_case(_trace("t-1"), _result("t-1"), ["numeric_unsupported"])
    store.label("t-1", "bad", expected_answer="Trong 7 ngày.", sections=["DT-1"], reviewer="lan")
    store.upsert_case(_trace("t-1"), _result("t-1", "negative_feedback"), ["negative_feedback"])
    cases = store.list_cases()
    assert [c.trace_id for c in cases] == ["t-1"]
    case = cases[0]
    assert set(case.reasons) == {"numeric_unsupported", "negative_feedback"}
    assert case.status is Status.CONFIRMED and case.label is not None and case.label.sections == ("DT-1",)
    assert case.flags[0].detail == "numeric_unsupported for t-1"
    assert store.pending_count() == 0


def test_filters_samples_and_pii(store: ReviewStore, pg_url: str) -> None:
    """Filters, sample batches and PII scrubbing behave as on SQLite."""
    store.upsert_case(_trace("a", "Đơn DH123456, gọi 0912 345 678"), _result("a"), ["numeric_unsupported"])
    trace_b = {**_trace("b"), "timestamp": datetime(2026, 9, 25, 17, 5, tzinfo=UTC)}
    store.upsert_case(trace_b, _result("b", "negative_feedback"), ["negative_feedback"])
    assert store.mark_sample("w40", ["a", "b"], pick="random") == 2
    assert store.mark_sample("w40", ["a"]) == 0
    assert [c.trace_id for c in store.list_cases(reason="negative_feedback")] == ["b"]
    assert {c.trace_id for c in store.list_cases(version="kb-2026-09-25", sample="w40")} == {"a", "b"}
    assert store.list_cases(status=Status.CONFIRMED) == []
    assert len(store.list_cases(since=datetime.now(UTC) - timedelta(hours=1))) == 2
    assert store.list_cases(since=datetime.now(UTC) + timedelta(hours=1)) == []
    case = store.get("a")
    assert case is not None and case.question == "Đơn [ORDER], gọi [PHONE]"
    with psycopg.connect(pg_url) as conn:
        raw = conn.execute("SELECT trace::text FROM review_cases WHERE trace_id = 'a'").fetchone()
    assert raw is not None and "DH123456" not in raw[0] and "0912" not in raw[0]


def test_two_writers_threads(pg_url: str) -> None:
    """Three threads with their own connections upsert overlapping ids: each case once, all reasons merged."""
    ids = [f"t-{i:03d}" for i in range(90)]
    plans = {"w1": ids[:60], "w2": ids[30:], "w3": ids[::-1]}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(plans))

    def write(name: str) -> None:
        try:
            with open_store(pg_url) as own:
                barrier.wait()
                for trace_id in plans[name]:
                    own.upsert_case(_trace(trace_id), _result(trace_id, f"reason_{name}"), [f"reason_{name}"])
        except BaseException as exc:  # surfaced to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(name,)) for name in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert not errors
    with open_store(pg_url) as check:
        cases = {c.trace_id: c for c in check.list_cases()}
    assert sorted(cases) == ids
    for trace_id, case in cases.items():
        expected = {f"reason_{name}" for name, plan in plans.items() if trace_id in plan}
        assert set(case.reasons) == expected
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT COUNT(*), COUNT(DISTINCT trace_id) FROM review_cases").fetchone()
    assert row == (90, 90)


_WRITER = """
import sys
from monitor.review import open_store
url, name = sys.argv[1], sys.argv[2]
with open_store(url) as store:
    for i in range(40):
        tid = f"p-{i:03d}"
        trace = {"trace_id": tid, "question": "q " + tid, "answer": "a"}
        store.upsert_case(trace, {"trace_id": tid, "flags": []}, ["reason_" + name])
"""


def test_two_writer_processes(pg_url: str) -> None:
    """Two processes upserting the same ids at once leave each case once, with both reasons."""
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, pg_url, name]) for name in ("a", "b")]
    assert [proc.wait(timeout=90) for proc in procs] == [0, 0]
    with open_store(pg_url) as check:
        cases = check.list_cases()
    assert len(cases) == 40
    assert all(set(case.reasons) == {"reason_a", "reason_b"} for case in cases)


def test_promotion_from_postgres(store: ReviewStore, tmp_path: Path) -> None:
    """A case confirmed in PostgreSQL promotes into the golden file and is marked promoted."""
    store.upsert_case(
        _trace("t-9", "Tai nghe lỗi đổi trong bao lâu?"), _result("t-9"), ["numeric_unsupported"]
    )
    store.label("t-9", "bad", expected_answer="Đổi máy mới trong 7 ngày.", sections=["DT-1"])
    golden = tmp_path / "golden.json"
    done = promote(store, ["t-9"], golden, source="su-co-2026-09-28")
    assert done.version == 1
    case = store.get("t-9")
    assert case is not None and case.status is Status.PROMOTED and case.promotion is not None
    assert case.promotion.source == "su-co-2026-09-28"


def test_unreachable_database() -> None:
    """A PostgreSQL URL nobody listens on is a StoreError naming host, port and database, not the password."""
    with pytest.raises(StoreError, match="127.0.0.1:1/test") as info:
        open_store("postgresql://postgres:s3cret@127.0.0.1:1/test?connect_timeout=2")
    assert "s3cret" not in str(info.value)


def test_closed_store_refuses(pg_url: str) -> None:
    """Using a closed PostgreSQL store raises StoreError."""
    store = open_store(pg_url)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_cases()


def test_queue_queries_on_postgres(pg_url: str) -> None:
    """The web queue's filters, pages and counts give the same answers on PostgreSQL as on SQLite."""
    moments = [datetime(2026, 9, 28, 9, 0, tzinfo=UTC)]

    def advance() -> datetime:
        moments.append(moments[-1] + timedelta(minutes=1))
        return moments[-1]

    with open_store(pg_url, clock=lambda: moments[-1]) as store:
        check_queue_queries(store, advance)


def test_mutes_are_shared_by_replicas(pg_url: str) -> None:
    """A mute made through one replica's store reaches another's check at its next reload; a finding a
    confirmed case raised is refused; unmute lifts it everywhere."""
    general = [{"text": "7 ngày", "value": 7, "unit": "day"}]
    finding = {"text": "30 ngày", "value": 30, "unit": "day", "condition": "thành viên BanHang Plus",
               "general": general, "severity": "critical"}  # fmt: skip
    with open_store(pg_url) as one, open_store(pg_url) as other:
        for trace_id in ("wrong", "asked-by-a-member"):
            result = {**_result(trace_id, "unqualified_condition"), "conditional": [finding]}
            one.upsert_case(_trace(trace_id), result, ["unqualified_condition"])
        mutes = MuteList()
        sink = ReviewSink(other, Metrics(CollectorRegistry()), {}, mutes=mutes)
        try:
            assert len(one.mute("asked-by-a-member", reviewer="lan")) == 1
            sink.reload_mutes()
            assert len(mutes) == 1 and [m.reviewer for m in other.mutes()] == ["lan"]
            one.unmute("asked-by-a-member")
            one.label("wrong", "bad")
            with pytest.raises(ReviewError, match="confirmed case 'wrong'"):
                other.mute("asked-by-a-member")
            sink.reload_mutes()
            assert len(mutes) == 0
        finally:
            sink.wait_idle()
