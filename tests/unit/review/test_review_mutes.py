"""Mutes in the review store: from a case's findings, refused over a confirmed one, listed, lifted."""

from __future__ import annotations

import asyncio
import sqlite3
from decimal import Decimal
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.cli import main
from monitor.conditional import ConditionalFinding, ConditionalReport, MuteList
from monitor.metrics import Metrics
from monitor.review import ReviewStore
from monitor.review.models import ReviewError
from monitor.review.sink import ReviewSink

FINDING = {"text": "30 ngày", "value": 30, "unit": "day", "condition": "Thành viên BanHang Plus",
           "general": [{"text": "7 ngày", "value": 7, "unit": "day"}], "severity": "critical"}  # fmt: skip


def _add(
    store: ReviewStore, make_trace: Any, make_result: Any, trace_id: str, *findings: dict[str, Any]
) -> None:
    result = make_result(trace_id, 0.5, ("unqualified_condition",))
    result["conditional"] = list(findings)
    store.upsert_case(make_trace(trace_id), result, ["unqualified_condition"])


def test_mute_lists_and_unmutes(store: ReviewStore, make_trace: Any, make_result: Any) -> None:
    other = {**FINDING, "text": "5 ngày", "value": 5}
    _add(store, make_trace, make_result, "t-1", FINDING, other)
    muted = store.mute("t-1", reviewer="lan", note="call 0912 345 678 if unsure")
    assert [(str(m.value), m.unit) for m in muted] == [("30", "day"), ("5", "day")]
    store.mute("t-1")  # again: no duplicate
    listed = store.mutes()
    assert [(m.mute.condition, m.trace_id, m.reviewer) for m in listed] == [
        ("Thành viên BanHang Plus", "t-1", "lan")
    ] * 2
    assert "0912 345 678" not in (listed[0].note or "")  # scrubbed like every stored note
    assert listed[0].to_json()["value"] in {"30", "5"}
    assert store.unmute("t-1") == muted and store.mutes() == []


def test_refused_over_a_confirmed_case(store: ReviewStore, make_trace: Any, make_result: Any) -> None:
    """A finding that caught a wrong answer is not muted by another case's false alarm, unless forced."""
    _add(store, make_trace, make_result, "wrong", FINDING)
    store.label("wrong", "bad")
    _add(store, make_trace, make_result, "asked-by-a-member", {**FINDING, "value": 30.0})
    with pytest.raises(ReviewError, match="confirmed case 'wrong' raised the same finding"):
        store.mute("asked-by-a-member")
    assert store.mutes() == []
    assert len(store.mute("asked-by-a-member", force=True)) == 1


def test_a_case_without_findings(store: ReviewStore, make_trace: Any, make_result: Any) -> None:
    store.upsert_case(
        make_trace("t-2"), make_result("t-2", 0.5, ("numeric_unsupported",)), ["numeric_unsupported"]
    )
    with pytest.raises(ReviewError, match="no unqualified_condition finding"):
        store.mute("t-2")
    _add(store, make_trace, make_result, "t-3", {"condition": "x"})  # a malformed entry is skipped
    with pytest.raises(ReviewError, match="no unqualified_condition finding"):
        store.mute("t-3")


def test_an_unreachable_store_keeps_the_last_mutes(
    store: ReviewStore, make_trace: Any, make_result: Any
) -> None:
    mutes = MuteList()
    sink = ReviewSink(store, Metrics(CollectorRegistry()), {}, mutes=mutes)
    try:
        _add(store, make_trace, make_result, "t-1", FINDING)
        store.mute("t-1")
        sink.reload_mutes()
        assert len(mutes) == 1
        store.close()
        sink.reload_mutes()
        assert len(mutes) == 1
    finally:
        sink.wait_idle()


def test_show_mute_mutes_unmute_from_the_cli(
    store: ReviewStore, store_url: str, make_trace: Any, make_result: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`review show` lists the findings a mute would take; `mute`, `mutes` and `unmute` say what they did;
    an unknown case is one line and exit 1."""
    _add(store, make_trace, make_result, "t-1", FINDING)

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["review", "--store", store_url, *args])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = run("show", "t-1")
    assert (
        code == 0 and "30 ngày bound to 'Thành viên BanHang Plus' (critical; the general case: 7 ngày)" in out
    )
    assert run("mute", "t-1", "--reviewer", "lan")[:2] == (
        0,
        "muted: 30 day bound to 'Thành viên BanHang Plus'\n",
    )
    code, out, _ = run("mutes")
    assert code == 0 and "30 day bound to 'Thành viên BanHang Plus'  (from t-1 by lan)" in out
    assert run("unmute", "t-1")[:2] == (0, "unmuted: 30 day bound to 'Thành viên BanHang Plus'\n")
    assert run("mutes", "--format", "json")[1].strip() == "[]"
    code, _, err = run("mute", "nope")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "nope" in err


def test_a_mute_matches_the_live_finding_whose_phrase_the_store_scrubbed(
    store: ReviewStore, make_trace: Any, make_result: Any
) -> None:
    """The stored case says "If you email [EMAIL]"; the live finding keeps the address: the check
    compares the phrase as the store would write it."""
    raw = "If you email returns@shop.example"
    _add(store, make_trace, make_result, "t-1", {**FINDING, "condition": raw})
    (muted,) = store.mute("t-1")
    assert "returns@shop.example" not in muted.condition
    mutes = MuteList([record.mute for record in store.mutes()])
    live = ConditionalReport((ConditionalFinding("30 ngày", Decimal(30), "day", raw),))
    assert mutes.apply(live).findings == live.findings  # compared raw: no match
    mutes.store_as(store.stored_text)
    assert mutes.apply(live).findings == () and len(mutes.apply(live).muted) == 1


def test_a_malformed_stored_mute_is_skipped(
    store: ReviewStore, store_url: str, make_trace: Any, make_result: Any
) -> None:
    _add(store, make_trace, make_result, "t-1", FINDING)
    store.mute("t-1")
    with sqlite3.connect(store_url) as db:
        db.execute(
            "INSERT INTO review_mutes VALUES ('x', 'abc', 'day', NULL, NULL, NULL, ?)",
            ("2026-09-28T09:00:00+00:00",),
        )
    assert [str(m.mute.value) for m in store.mutes()] == ["30"]


def test_mutes_reload_on_a_timer_without_flagged_traffic(
    store: ReviewStore, make_trace: Any, make_result: Any
) -> None:
    """A quiet replica sees a new mute, then its lifting, within the refresh period."""
    mutes = MuteList()
    sink = ReviewSink(store, Metrics(CollectorRegistry()), {}, mutes=mutes)
    _add(store, make_trace, make_result, "t-1", FINDING)

    async def scenario() -> tuple[int, int]:
        fresh = asyncio.get_running_loop().create_task(sink.keep_mutes_fresh(0.01))
        store.mute("t-1")
        seen = await _until(lambda: len(mutes) == 1)
        store.unmute("t-1")
        lifted = await _until(lambda: len(mutes) == 0)
        await sink.aclose()
        await asyncio.wait_for(fresh, 5)
        return seen, lifted

    seen, lifted = asyncio.run(scenario())
    assert seen >= 0 and lifted >= 0  # both within 5 s at a 10 ms period


async def _until(done: Any) -> int:
    for tick in range(500):
        if done():
            return tick
        await asyncio.sleep(0.01)
    return -1


def test_unmuting_what_was_never_muted_says_so(
    store: ReviewStore, store_url: str, make_trace: Any, make_result: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _add(store, make_trace, make_result, "t-1", FINDING)
    assert main(["review", "--store", store_url, "unmute", "t-1"]) == 0
    assert capsys.readouterr().out == "t-1: none of its findings was muted\n"
