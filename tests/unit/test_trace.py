"""The trace contract: seed 001's format, the aliases of peer tools, and one reason per bad-input class."""

from __future__ import annotations

import json

import pytest

from monitor.exceptions import TraceError
from monitor.trace import FeedbackEvent, Trace, parse_message

SEED_001_TRACE = {
    "trace_id": "trace-001",
    "question": "سوال کاربر",
    "normalized_query": "سوال نرمال‌شده",
    "retrieval_query": "Query نهایی",
    "retrieved_chunks": [
        {
            "chunk_id": "chunk-1",
            "document_id": "doc-1",
            "retrieval_score": 0.84,
            "rerank_score": 0.76,
            "text": "متن Chunk",
        }
    ],
    "answer": "پاسخ مدل",
    "citations": ["chunk-1"],
    "model_id": "YOUR_MODEL_ID",
    "prompt_version": "rag-answer-v4",
    "index_version": "kb-2026-07-26",
    "latency_ms": 2450,
}


def _raw(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def _reason(raw: bytes, max_bytes: int = 1024 * 1024) -> str:
    with pytest.raises(TraceError) as info:
        parse_message(raw, max_bytes)
    return info.value.reason


def test_seed_001_trace_parses_with_every_field() -> None:
    """Seed 001's trace example is the native format and keeps every field."""
    trace = parse_message(_raw(SEED_001_TRACE))
    assert isinstance(trace, Trace)
    assert trace.trace_id == "trace-001"
    assert trace.retrieved_chunks[0].retrieval_score == 0.84
    assert trace.retrieved_chunks[0].rerank_score == 0.76
    assert trace.citations == ("chunk-1",)
    assert trace.index_version == "kb-2026-07-26"
    assert trace.latency_ms == 2450


@pytest.mark.parametrize("alias", ["generated_answer", "actual_output", "output"])
def test_answer_aliases(alias: str) -> None:
    """Answer aliases used by Ragas, DeepEval and seed 001 map to ``answer``."""
    trace = parse_message(_raw({"trace_id": "t", "question": "q", alias: "the answer"}))
    assert isinstance(trace, Trace) and trace.answer == "the answer"


@pytest.mark.parametrize("alias", ["input", "query"])
def test_question_aliases(alias: str) -> None:
    """Question aliases map to ``question``."""
    trace = parse_message(_raw({"trace_id": "t", alias: "the question", "answer": "a"}))
    assert isinstance(trace, Trace) and trace.question == "the question"


@pytest.mark.parametrize("alias", ["contexts", "retrieval_context", "final_contexts"])
def test_context_aliases_accept_strings_and_objects(alias: str) -> None:
    """Context aliases accept lists of strings and of chunk objects."""
    trace = parse_message(
        _raw(
            {
                "trace_id": "t",
                "question": "q",
                "answer": "a",
                alias: [
                    "plain text",
                    {"chunk_id": "c2", "text": "object text", "metadata": {"sections": ["DT-1"]}},
                ],
            }
        )
    )
    assert isinstance(trace, Trace)
    assert [c.text for c in trace.retrieved_chunks] == ["plain text", "object text"]
    assert trace.retrieved_chunks[1].sections == ("DT-1",)


def test_unknown_fields_are_kept_in_metadata() -> None:
    """Unknown fields are never rejected: they land in ``metadata``."""
    trace = parse_message(
        _raw({"trace_id": "t", "question": "q", "answer": "a", "tenant": "acme", "metadata": {"x": 1}})
    )
    assert isinstance(trace, Trace)
    assert trace.metadata == {"tenant": "acme", "x": 1}


def test_feedback_event_normalizes_ratings() -> None:
    """A late feedback event is recognised and thumbs-down spellings become ``negative``."""
    event = parse_message(
        _raw({"type": "feedback", "trace_id": "t", "rating": "thumbs_down", "reason": "wrong"})
    )
    assert isinstance(event, FeedbackEvent)
    assert event.rating == "negative" and event.feedback.reason == "wrong"


def test_too_large() -> None:
    """A message over the size cap is rejected before it is decoded."""
    assert _reason(b"{" + b" " * 2000 + b"}", max_bytes=1024) == "too_large"


def test_not_utf8() -> None:
    """Bytes that are not UTF-8 have their own reason."""
    assert _reason(b'{"trace_id": "t", "question": "\xff", "answer": "a"}') == "not_utf8"


def test_invalid_json() -> None:
    """Truncated JSON is invalid_json."""
    assert _reason(b'{"trace_id": "t", "question": ') == "invalid_json"


@pytest.mark.parametrize("raw", [b"[1, 2]", b'"text"', b"42", b"null"])
def test_not_object(raw: bytes) -> None:
    """A JSON value that is not an object is not_object."""
    assert _reason(raw) == "not_object"


@pytest.mark.parametrize("field", ["question", "answer"])
def test_missing_required_field(field: str) -> None:
    """Each required field has its own missing_* reason."""
    obj = {"trace_id": "t", "question": "q", "answer": "a"}
    del obj[field]
    assert _reason(_raw(obj)) == f"missing_{field}"


@pytest.mark.parametrize("trace_id", [None, ""])
def test_a_trace_without_an_id_gets_one_from_its_content(trace_id: str | None) -> None:
    """No id is never a drop: ``peer-`` + 16 hex of the content, the same for the same content."""
    obj: dict[str, object] = {"question": "q", "answer": "a", "contexts": ["c"]}
    if trace_id is not None:
        obj["trace_id"] = trace_id
    first, again = parse_message(_raw(obj)), parse_message(_raw({**obj}))
    other = parse_message(_raw({**obj, "answer": "b"}))
    assert isinstance(first, Trace) and isinstance(again, Trace) and isinstance(other, Trace)
    assert first.trace_id == again.trace_id != other.trace_id
    assert len(first.trace_id) == len("peer-") + 16 and first.trace_id.startswith("peer-")


def test_a_feedback_event_without_a_trace_id_is_rejected() -> None:
    """Feedback must name the trace it is about: missing_trace_id."""
    assert _reason(_raw({"type": "feedback", "rating": "negative"})) == "missing_trace_id"


@pytest.mark.parametrize(
    "patch",
    [
        {"question": 42},
        {"retrieved_chunks": "not a list"},
        {"latency_ms": "slow"},
        {"citations": [{"id": 1}]},
        {"feedback": {"rating": "meh"}},
    ],
)
def test_wrong_types(patch: dict[str, object]) -> None:
    """Fields of the wrong type are wrong_type, with the field named in the detail."""
    obj = {"trace_id": "t", "question": "q", "answer": "a", **patch}
    with pytest.raises(TraceError) as info:
        parse_message(_raw(obj))
    assert info.value.reason == "wrong_type"
    assert next(iter(patch)) in info.value.detail


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_finite_scores(literal: bytes) -> None:
    """NaN and infinite scores are rejected as non_finite_score."""
    raw = (
        b'{"trace_id": "t", "question": "q", "answer": "a", "retrieved_chunks": [{"retrieval_score": '
        + literal
        + b"}]}"
    )
    assert _reason(raw) == "non_finite_score"


def test_deeply_nested_json_is_nested_too_deep_not_a_crash() -> None:
    """A pathological nesting depth is rejected with its own reason, never a RecursionError."""
    assert _reason(b"[" * 100_000 + b"]" * 100_000) == "nested_too_deep"
