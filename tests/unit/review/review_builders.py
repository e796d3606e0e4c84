"""Builders for traces and result records, and a fake clock, shared by the review tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

START = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)

TraceFactory = Callable[..., dict[str, Any]]
ResultFactory = Callable[..., dict[str, Any]]


class FakeClock:
    """A clock the test moves by hand, so created_at and --since filters are exact."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def build_trace(
    trace_id: str, question: str = "Mua áo mặc không vừa thì được trả trong mấy ngày?", **extra: Any
) -> dict[str, Any]:
    """A seed-000-style trace: the chunk-800 answer that said 30 days."""
    trace: dict[str, Any] = {
        "trace_id": trace_id,
        "question": question,
        "answer": "Bạn được trả hàng trong 30 ngày.",
        "retrieved_chunks": [
            {
                "chunk_id": "L2",
                "document_id": "doi-tra",
                "sections": ["DT-3"],
                "retrieval_score": 0.84,
                "rerank_score": 0.76,
                "text": "Thành viên BanHang Plus được đổi trả hàng thời trang trong 30 ngày.",
            },
            {
                "chunk_id": "L1",
                "document_id": "doi-tra",
                "sections": ["DT-1"],
                "retrieval_score": 0.80,
                "text": "Khách được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng.",
            },
        ],
        "citations": ["L2"],
        "model_id": "gpt-x",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-2026-09-25",
        "language": "vi",
        "category": "returns",
    }
    trace.update(extra)
    return trace


def build_result(
    trace_id: str,
    faithfulness: float | None = 0.5,
    reasons: tuple[str, ...] = ("numeric_unsupported",),
    **scores: float | None,
) -> dict[str, Any]:
    """A result record per DESIGN with the given scores and flags."""
    return {
        "trace_id": trace_id,
        "versions": {
            "model_id": "gpt-x",
            "prompt_version": "rag-answer-v4",
            "index_version": "kb-2026-09-25",
        },
        "signals": {"top_score": 0.84},
        "numeric": {
            "unsupported": [{"value": "30", "unit": "ngày"}],
            "missing": [],
            "conflicting_context": False,
        },
        "golden": {
            "id": "q01",
            "similarity": 0.93,
            "first_hit_rank": 2,
            "reciprocal_rank": 0.5,
            "recall_at_k": 1.0,
        },
        "sampled": ["golden_match"],
        "scores": {
            "faithfulness": faithfulness,
            "answer_relevance": scores.get("answer_relevance", 0.9),
            "context_relevance": scores.get("context_relevance", 0.5),
            "context_precision": 0.5,
        },
        "judge": {
            "name": "local",
            "prompt_version": "judge-v1",
            "claims": [{"text": "Trả hàng trong 30 ngày", "supported": False, "chunk_ids": ["L2"]}],
            "chunk_useful": [True, False],
            "noncommittal": [False],
            "calls": 1,
            "tokens": 0,
            "error": None,
        },
        "flags": [{"reason": r, "detail": f"{r} detail"} for r in reasons],
    }
