"""One scenario for the queue queries of the web app, run on SQLite (unit) and PostgreSQL (integration)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from monitor.review import CaseFilter, ReviewStore


def _case(trace_id: str, index: str, flags: list[tuple[str, str]]) -> tuple[dict[str, Any], dict[str, Any]]:
    trace = {
        "trace_id": trace_id,
        "question": f"q {trace_id}",
        "answer": "30 ngày",
        "model_id": "m-1",
        "prompt_version": "p-1",
        "index_version": index,
    }
    result = {
        "trace_id": trace_id,
        "flags": [{"reason": r, "detail": f"{r} of {trace_id}", "severity": s} for r, s in flags],
    }
    return trace, result


def check_queue_queries(store: ReviewStore, advance: Callable[[], datetime]) -> None:
    """Per-version, severity and time-range filters, pages, counts per reason, distinct versions."""
    stored: list[datetime] = []
    plan = [
        ("a", "kb-old", [("numeric_unsupported", "critical")]),
        ("b", "kb-new", [("numeric_out_of_source", "critical"), ("low_faithfulness", "warning")]),
        ("c", "kb-new", [("negative_feedback", "warning")]),
        ("d", "kb-new", [("numeric_out_of_source", "critical")]),
    ]
    for trace_id, index, flags in plan:
        stored.append(advance())
        trace, result = _case(trace_id, index, flags)
        store.upsert_case(trace, result, [r for r, _ in flags])

    def ids(**filters: Any) -> list[str]:
        return [c.trace_id for c in store.list_cases(CaseFilter(**filters))]

    assert ids() == ["d", "c", "b", "a"]
    assert ids(index_version="kb-new") == ["d", "c", "b"]
    assert ids(index_version="kb-new", reason="numeric_out_of_source") == ["d", "b"]
    assert ids(model_id="m-1", prompt_version="p-1") == ["d", "c", "b", "a"]
    assert ids(model_id="m-2") == []
    assert ids(severity="warning") == ["c", "b"]
    assert ids(since=stored[1], until=stored[3]) == ["c", "b"]
    assert (
        ids(limit=2) == ["d", "c"] and ids(limit=2, offset=2) == ["b", "a"] and ids(limit=2, offset=4) == []
    )
    assert store.count_cases(CaseFilter(index_version="kb-new", limit=1)) == 3
    assert store.reason_counts(CaseFilter(index_version="kb-new")) == {
        "numeric_out_of_source": 2,
        "low_faithfulness": 1,
        "negative_feedback": 1,
    }
    assert store.versions() == {
        "model_id": ["m-1"],
        "prompt_version": ["p-1"],
        "index_version": ["kb-new", "kb-old"],
    }
    severities = {f.reason: f.severity for f in store.require("b").flags}
    assert severities == {"numeric_out_of_source": "critical", "low_faithfulness": "warning"}
    assert {f["severity"] for f in store.require("b").to_json()["flags"]} == {"critical", "warning"}
