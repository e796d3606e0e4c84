"""Cheap per-trace signals."""

from __future__ import annotations

from monitor.signals import compute_signals
from monitor.trace import Trace, validate_trace


def _trace(**kw: object) -> Trace:
    return validate_trace({"trace_id": "t", "question": "q", "answer": "an answer", **kw})


def test_retrieval_stats_and_citations() -> None:
    """Top and mean scores, chunk count, and citations naming chunks that were not retrieved."""
    s = compute_signals(
        _trace(
            retrieved_chunks=[
                {"chunk_id": "c1", "retrieval_score": 0.9},
                {"chunk_id": "c2", "retrieval_score": 0.5},
            ],
            citations=["c1", "c9"],
            latency_ms=1200,
            feedback={"rating": "down"},
        )
    )
    assert s.chunk_count == 2 and not s.empty_retrieval
    assert s.top_score == 0.9 and s.mean_score == 0.7
    assert s.citations_present and s.invalid_citations == ("c9",)
    assert s.answer_chars == len("an answer") and s.latency_ms == 1200
    assert s.feedback == "negative"


def test_rank_citations_are_valid_within_range() -> None:
    """Citations may be 1-based ranks; a rank past the last chunk is invalid."""
    s = compute_signals(_trace(retrieved_chunks=["a", "b"], citations=["1", "[2]", "3"]))
    assert s.invalid_citations == ("3",)


def test_empty_retrieval_has_no_scores() -> None:
    """No chunks: empty retrieval, scores undefined rather than zero."""
    s = compute_signals(_trace())
    assert s.empty_retrieval and s.top_score is None and s.mean_score is None
    assert not s.citations_present and s.invalid_citations == ()
