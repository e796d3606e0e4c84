"""What the review pages show: queue URLs and filters, and numbers in a case against its chunks."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest

from monitor.numeric import NumericRules
from monitor.review.models import Case, Status
from monitor.web.views import BadQuery, QueueQuery, case_view, parse_cost, parse_sections

NOW = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def rules() -> NumericRules:
    return NumericRules.load()


def _case(answer: str, chunks: list[dict[str, Any]], result: dict[str, Any] | None = None) -> Case:
    trace = {
        "trace_id": "t",
        "question": "q",
        "answer": answer,
        "retrieved_chunks": chunks,
        "citations": ["L1"],
    }
    return Case("t", trace, result or {}, (), Status.PENDING, NOW, NOW)


def test_runbook_url_reads_into_a_filter() -> None:
    """/cases?reason=...&index_version=... filters by both; paging turns into limit and offset."""
    q = QueueQuery.parse({"reason": "numeric_out_of_source", "index_version": "kb-1", "page": "3", "x": "y"})
    where = q.to_filter(NOW)
    assert (where.reason, where.index_version, where.limit, where.offset) == (
        "numeric_out_of_source",
        "kb-1",
        25,
        50,
    )
    assert q.active == {"reason": "numeric_out_of_source", "index_version": "kb-1"}


def test_links_keep_filters_and_reset_the_page() -> None:
    """A changed filter goes back to page 1; defaults are left out of the URL."""
    q = QueueQuery.parse({"reason": "a", "page": "2"})
    assert q.link(reason="b") == "/cases?reason=b"
    assert q.link(page=3) == "/cases?reason=a&page=3"
    assert QueueQuery().link() == "/cases"


def test_time_range_accepts_spans_and_dates_and_names_a_bad_one() -> None:
    """since=24h is relative to now, until= an ISO moment; a bad value names its parameter."""
    where = QueueQuery.parse({"since": "24h", "until": "2026-09-28T08:00"}).to_filter(NOW)
    assert where.since == NOW - timedelta(hours=24)
    assert where.until == datetime(2026, 9, 28, 8, 0, tzinfo=UTC)
    with pytest.raises(BadQuery, match="since"):
        QueueQuery.parse({"since": "yesterday"}).to_filter(NOW)
    with pytest.raises(BadQuery, match="severity"):
        QueueQuery.parse({"severity": "urgent"}).to_filter(NOW)


def test_bad_paging_falls_back_to_defaults() -> None:
    """Non-numbers and out-of-range pages never fail the queue."""
    q = QueueQuery.parse({"page": "-4", "per_page": "100000"})
    assert (q.page, q.per_page) == (1, 200)
    assert QueueQuery.parse({"page": "two"}).page == 1


def test_numbers_are_marked_against_the_chunks_that_state_them(rules: NumericRules) -> None:
    """Seed 000: "30 ngày" is stated by chunk 1 only, "5 ngày làm việc" by none; chunk text is marked too."""
    chunks = [
        {"chunk_id": "L2", "sections": ["DT-3"], "text": "Thành viên Plus được đổi trả trong 30 ngày."},
        {"chunk_id": "L1", "sections": ["DT-1"], "text": "Khách được đổi trả trong 7 ngày."},
    ]
    view = case_view(_case("Bạn có 30 ngày; hoàn tiền trong 5 ngày làm việc.", chunks), rules)
    marked = [(s.text, s.kind, s.chunks) for s in view.answer if s.kind]
    assert marked == [("30 ngày", "supported", (1,)), ("5 ngày làm việc", "unsupported", ())]
    assert "".join(s.text for s in view.answer) == "Bạn có 30 ngày; hoàn tiền trong 5 ngày làm việc."
    assert [s.text for s in view.unsupported] == ["5 ngày làm việc"]
    assert [s.text for s in view.chunks[0].segments if s.kind] == ["30 ngày"]
    assert not [s for s in view.chunks[1].segments if s.kind]
    assert view.chunks[0].sections == ("DT-3",) and view.chunks[1].cited


def test_a_number_outside_the_golden_sections_is_marked_apart(rules: NumericRules) -> None:
    """Stated by a retrieved chunk but flagged out of source by the golden check: its own mark."""
    result = {"golden": {"id": "q01", "first_hit_rank": 2, "numeric": {"out_of_source": ["30 ngày"]}}}
    chunks = [{"text": "Thành viên Plus được đổi trả trong 30 ngày, khách thường 7 ngày."}]
    view = case_view(_case("Bạn có 30 ngày, không phải 7 ngày.", chunks, result), rules)
    marked = [(s.text, s.kind) for s in view.answer if s.kind]
    assert marked == [("30 ngày", "out_of_source"), ("7 ngày", "supported")]
    assert view.golden_numeric == {"out_of_source": ["30 ngày"]}


def test_form_helpers() -> None:
    """Sections split on commas and spaces; costs must be non-negative numbers."""
    assert parse_sections("DT-1, DT-3 DT-1") == ["DT-1", "DT-3"]
    assert parse_cost("2.5", 5.0) == 2.5 and parse_cost("-1", 5.0) == 5.0 and parse_cost("nan", 5.0) == 5.0
    assert parse_cost("x", 1.0) == 1.0 and parse_cost(None, 1.0) == 1.0


def test_alert_queue_links_open_a_filtered_queue() -> None:
    """Every alert's queue annotation is a /cases URL of known filters, reasons and severities."""
    import yaml

    from monitor.flags import FLAG_REASONS
    from monitor.web.views import SEVERITIES

    rules = Path(__file__).resolve().parents[3] / "deploy" / "prometheus" / "rules" / "ragmon-alerts.yml"
    alerts = [r for g in yaml.safe_load(rules.read_text())["groups"] for r in g["rules"] if "alert" in r]
    links = {a["alert"]: a["annotations"]["queue"] for a in alerts if "queue" in a["annotations"]}
    assert {"RagmonFaithfulnessLow", "RagmonGoldenMRRLow", "RagmonNumericFindingSpike"} <= set(links)
    for alert, link in links.items():
        filled = re.sub(r"\{\{ \$labels\.(\w+) \| urlquery \}\}", r"v-\1", link)
        assert "{{" not in filled, alert
        path, _, query = filled.partition("?")
        params = dict(parse_qsl(query, strict_parsing=True))
        q = QueueQuery.parse(params)
        assert path == "/cases" and q.active == params, alert
        assert q.reason in ("", *FLAG_REASONS) and q.severity in ("", *SEVERITIES), alert
        q.to_filter(NOW)
