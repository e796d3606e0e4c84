"""Cheap signals computed on every trace in microseconds: retrieval stats, citations, feedback, latency."""

from __future__ import annotations

import msgspec

from monitor.trace import Trace


class Signals(msgspec.Struct, frozen=True):
    """What a trace shows without any model: the inputs to sampling, flags and the cheap metrics."""

    chunk_count: int
    empty_retrieval: bool
    top_score: float | None
    mean_score: float | None
    citations_present: bool
    invalid_citations: tuple[str, ...]
    answer_chars: int
    latency_ms: float | None
    feedback: str | None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form for the result record."""
        return {
            "chunk_count": self.chunk_count,
            "empty_retrieval": self.empty_retrieval,
            "top_score": self.top_score,
            "mean_score": self.mean_score,
            "citations_present": self.citations_present,
            "invalid_citations": list(self.invalid_citations),
            "answer_chars": self.answer_chars,
            "latency_ms": self.latency_ms,
            "feedback": self.feedback,
        }


def compute_signals(trace: Trace) -> Signals:
    """Measure one trace; citations may name chunk ids or 1-based ranks ("2", "#2", "[2]")."""
    chunks = trace.retrieved_chunks
    scores = [score for c in chunks if (score := c.retrieval_score) is not None]
    return Signals(
        chunk_count=len(chunks),
        empty_retrieval=not chunks,
        top_score=max(scores) if scores else None,
        mean_score=sum(scores) / len(scores) if scores else None,
        citations_present=bool(trace.citations),
        invalid_citations=_invalid_citations(trace),
        answer_chars=len(trace.answer),
        latency_ms=trace.latency_ms,
        feedback=trace.feedback.rating if trace.feedback else None,
    )


def _invalid_citations(trace: Trace) -> tuple[str, ...]:
    citations = trace.citations
    if not citations:
        return ()
    chunks = trace.retrieved_chunks
    ids = [c.chunk_id for c in chunks]  # a handful: a list scan beats building a set per trace
    unknown = [c for c in citations if c not in ids]
    if not unknown:
        return ()  # most answers cite what they retrieved
    return tuple(c for c in unknown if not _is_rank(c, len(chunks)))


def _is_rank(citation: str, count: int) -> bool:
    digits = citation.strip("[]#() ")
    return digits.isdigit() and 1 <= int(digits) <= count
