"""The SQLite review store: idempotent upserts, merged reasons, filters, labels, samples, PII, lifecycle."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from review_builders import FakeClock, ResultFactory, TraceFactory

from monitor.exceptions import StoreError
from monitor.review import CaseNotFound, ReviewError, ReviewStore, Status, open_store
from monitor.review.store import DEFAULT_STORE_PATH, parse_store_url


def test_upsert_then_get(store: ReviewStore, make_trace: TraceFactory, make_result: ResultFactory) -> None:
    """A stored case comes back with its trace, result, reasons, versions and a pending status."""
    store.upsert_case(make_trace("t-1"), make_result("t-1"), ["numeric_unsupported", "low_faithfulness"])
    case = store.get("t-1")
    assert case is not None
    assert case.status is Status.PENDING
    assert case.reasons == ("low_faithfulness", "numeric_unsupported")  # first seen, then by name
    assert case.flags[1].detail == "numeric_unsupported detail"
    assert case.versions == {
        "model_id": "gpt-x",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-2026-09-25",
    }
    assert case.scores["faithfulness"] == 0.5
    assert case.judge["claims"][0]["supported"] is False
    assert case.trace["retrieved_chunks"][0]["sections"] == ["DT-3"]
    assert store.get("missing") is None


def test_redelivery_never_duplicates(
    store: ReviewStore, clock: FakeClock, make_trace: TraceFactory, make_result: ResultFactory
) -> None:
    """Upserting the same trace again (at-least-once redelivery) leaves one case, created once."""
    for _ in range(3):
        store.upsert_case(make_trace("t-1"), make_result("t-1"), ["numeric_unsupported"])
        clock.advance(minutes=1)
    cases = store.list_cases()
    assert [c.trace_id for c in cases] == ["t-1"]
    assert cases[0].reasons == ("numeric_unsupported",)
    assert cases[0].updated_at - cases[0].created_at == timedelta(minutes=2)


def test_later_flag_merges_reasons_and_keeps_label(
    store: ReviewStore, make_trace: TraceFactory, make_result: ResultFactory
) -> None:
    """A later flag adds its reason; the reviewer's label and status survive the refresh."""
    store.upsert_case(make_trace("t-1"), make_result("t-1"), ["numeric_unsupported"])
    store.label("t-1", "bad", expected_answer="Trong 7 ngày.")
    store.upsert_case(
        make_trace("t-1"), make_result("t-1", reasons=("negative_feedback",)), ["negative_feedback"]
    )
    case = store.get("t-1")
    assert case is not None
    assert set(case.reasons) == {"numeric_unsupported", "negative_feedback"}
    assert case.status is Status.CONFIRMED
    assert case.label is not None and case.label.expected_answer == "Trong 7 ngày."


def test_pii_scrubbed_before_writing(
    store_url: str, store: ReviewStore, make_trace: TraceFactory, make_result: ResultFactory
) -> None:
    """No phone, email or order code reaches the database file; the trace id is kept as is."""
    trace = make_trace(
        "t-pii", question="Đơn DH123456 của em, sđt 0912 345 678, mail a.b@gmail.com, trả mấy ngày?"
    )
    result = make_result("t-pii")
    result["flags"] = [{"reason": "negative_feedback", "detail": "khách gọi 0912345678"}]
    store.upsert_case(trace, result, ["negative_feedback"])
    store.label(
        "t-pii", "bad", expected_answer="Gọi lại 0987654321 báo 7 ngày", note="thẻ 4111 1111 1111 1111"
    )
    with sqlite3.connect(store_url) as raw:
        dump = "\n".join(str(row) for row in raw.iterdump())
    for secret in ("DH123456", "0912 345 678", "0912345678", "a.b@gmail.com", "0987654321", "4111 1111"):
        assert secret not in dump
    case = store.get("t-pii")
    assert case is not None
    assert case.question == "Đơn [ORDER] của em, sđt [PHONE], mail [EMAIL], trả mấy ngày?"
    assert case.flags[0].detail == "khách gọi [PHONE]"
    assert case.label is not None and case.label.expected_answer == "Gọi lại [PHONE] báo 7 ngày"


def test_list_filters(store: ReviewStore, clock: FakeClock, add_case: Callable[..., str]) -> None:
    """Filters by reason, status, any version, since, sample and limit each narrow the list."""
    add_case("old", reasons=("numeric_unsupported",))
    clock.advance(days=3)
    add_case("fb", reasons=("negative_feedback",), index_version="kb-2026-07-26")
    add_case("both", reasons=("negative_feedback", "low_faithfulness"), prompt_version="rag-answer-v5")
    store.label("old", "ok")
    store.mark_sample("w40", ["both"])

    def ids(**kw: Any) -> set[str]:
        return {c.trace_id for c in store.list_cases(**kw)}

    assert ids() == {"old", "fb", "both"}
    assert ids(reason="negative_feedback") == {"fb", "both"}
    assert ids(status=Status.FALSE_ALARM) == {"old"}
    assert ids(status=Status.PENDING) == {"fb", "both"}
    assert ids(version="kb-2026-09-25") == {"old", "both"}
    assert ids(version="rag-answer-v5") == {"both"}
    assert ids(version="gpt-x") == {"old", "fb", "both"}
    assert ids(since=clock.now - timedelta(days=1)) == {"fb", "both"}
    assert ids(sample="w40") == {"both"}
    assert ids(labelled=True) == {"old"}
    assert len(store.list_cases(limit=2)) == 2


def test_label_sets_status(store: ReviewStore, add_case: Callable[..., str]) -> None:
    """bad -> confirmed, ok -> false_alarm, with the reviewer's fields kept; pending count follows."""
    add_case("a")
    add_case("b")
    add_case("c")
    assert store.pending_count() == 3
    bad = store.label("a", "bad", expected_answer="7 ngày", sections=["DT-1"], note="sai số", reviewer="lan")
    ok = store.label("b", "ok", reviewer="minh")
    assert bad.status is Status.CONFIRMED and ok.status is Status.FALSE_ALARM
    assert bad.label is not None
    assert (bad.label.sections, bad.label.note, bad.label.reviewer) == (("DT-1",), "sai số", "lan")
    assert store.pending_count() == 1


def test_label_refusals(store: ReviewStore, add_case: Callable[..., str]) -> None:
    """Labelling an unknown case, with an unknown verdict, or after promotion is refused."""
    add_case("a")
    with pytest.raises(CaseNotFound):
        store.label("nope", "bad")
    with pytest.raises(ReviewError, match="verdict"):
        store.label("a", "maybe")  # type: ignore[arg-type]  # the CLI restricts choices; the API checks too
    store.label("a", "bad", expected_answer="7 ngày")
    store.mark_promoted("a", "su-co-2026-09-28", 2)
    with pytest.raises(ReviewError, match="already promoted"):
        store.label("a", "ok")


def test_mark_sample_is_idempotent(store: ReviewStore, add_case: Callable[..., str]) -> None:
    """Marking a batch counts new picks only, ignores unknown ids, and shows on the case."""
    add_case("a")
    add_case("b")
    assert store.mark_sample("w40", ["a", "b", "ghost"]) == 2
    assert store.mark_sample("w40", ["a"]) == 0
    case = store.get("a")
    assert case is not None and case.samples == ("w40",)


def test_closed_store_refuses(store_url: str) -> None:
    """Any call after close raises StoreError instead of touching a closed connection."""
    store = open_store(store_url)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.pending_count()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (None, ("sqlite", DEFAULT_STORE_PATH)),
        ("review.db", ("sqlite", "review.db")),
        ("sqlite:///data/review.db", ("sqlite", "data/review.db")),
        ("sqlite:////var/lib/review.db", ("sqlite", "/var/lib/review.db")),
        ("postgresql://u@db:5432/ragmon", ("postgres", "postgresql://u@db:5432/ragmon")),
    ],
)
def test_parse_store_url(url: str | None, expected: tuple[str, str]) -> None:
    """Paths and sqlite:/// URLs select SQLite, postgresql:// selects PostgreSQL."""
    assert parse_store_url(url) == expected


@pytest.mark.parametrize("url", ["mysql://x/y", "", "sqlite://relative.db"])
def test_bad_store_url(url: str) -> None:
    """An unsupported or malformed URL is a StoreError that names the accepted forms."""
    with pytest.raises(StoreError, match="sqlite:///"):
        open_store(url)


def test_unopenable_sqlite(tmp_path: Path) -> None:
    """A missing directory or a file that is not a database is a clear StoreError."""
    with pytest.raises(StoreError, match="does not exist"):
        open_store(str(tmp_path / "no" / "such" / "review.db"))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database, just some text that is long enough" * 20)
    with pytest.raises(StoreError, match="not a database"):
        open_store(str(junk))


def test_default_store_in_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no URL the store is ragmon-review.db in the working directory."""
    monkeypatch.chdir(tmp_path)
    with open_store(None) as store:
        assert store.pending_count() == 0
    assert (tmp_path / DEFAULT_STORE_PATH).exists()


def test_two_writers_overlapping_ids(
    store_url: str, make_trace: TraceFactory, make_result: ResultFactory
) -> None:
    """Two threads, each with its own connection, upsert overlapping ids: no case lost, none doubled."""
    ids = [f"t-{i:03d}" for i in range(60)]
    plans = {"w1": ids[:40], "w2": ids[20:]}
    errors: list[BaseException] = []

    def write(name: str) -> None:
        try:
            with open_store(store_url) as own:
                for trace_id in plans[name]:
                    own.upsert_case(make_trace(trace_id), make_result(trace_id), [f"reason_{name}"])
        except BaseException as exc:  # surfaced to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(name,)) for name in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    with open_store(store_url) as check:
        cases = {c.trace_id: c for c in check.list_cases()}
    assert sorted(cases) == ids
    assert set(cases["t-030"].reasons) == {"reason_w1", "reason_w2"}
    assert cases["t-000"].reasons == ("reason_w1",) and cases["t-059"].reasons == ("reason_w2",)


def test_case_json_shape(store: ReviewStore, add_case: Callable[..., str]) -> None:
    """to_json is JSON-serializable and carries trace_id, reasons, status and the result record."""
    add_case("a", reasons=("negative_feedback",))
    case = store.get("a")
    assert case is not None
    data = json.loads(json.dumps(case.to_json()))
    assert (
        data["trace_id"] == "a" and data["reasons"] == ["negative_feedback"] and data["status"] == "pending"
    )
    assert data["result"]["golden"]["id"] == "q01"


def test_non_json_values_stored_as_text(
    store: ReviewStore, make_trace: TraceFactory, make_result: ResultFactory
) -> None:
    """A datetime left in a trace (model_dump without mode="json") is stored as text, not a failed write."""
    stamp = datetime(2026, 9, 25, 17, 5, tzinfo=UTC)
    store.upsert_case(make_trace("t-dt", timestamp=stamp), make_result("t-dt"), ["judge_error"])
    case = store.get("t-dt")
    assert case is not None and case.trace["timestamp"] == str(stamp)
