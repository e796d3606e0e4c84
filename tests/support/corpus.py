"""A corpus of malformed and hostile messages, interleaved with good traces (issue: poison messages).

Every kind of bad input the decode path and the stages must survive: oversized numbers, deep nesting,
NUL and lone surrogates in every text field, duplicate keys, byte order marks, control characters,
truncated JSON, NaN and Infinity, nulls and wrong types in every field, 5 MB strings, 10,000 chunks,
1 MB chunk texts, invalid UTF-8. Each message is one line of bytes (no raw newline inside), so the
same corpus feeds a JSONL replay and a Kafka topic. ``build_corpus()`` is deterministic.
"""

from __future__ import annotations

import json
import random
from typing import Any

GOOD_CHUNKS = [
    {
        "chunk_id": "c01",
        "sections": ["DT-1"],
        "retrieval_score": 0.84,
        "text": "Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm.",
    },
    {
        "chunk_id": "c03",
        "sections": ["DT-3"],
        "retrieval_score": 0.71,
        "text": "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày.",
    },
]
TEXT_FIELDS = ("trace_id", "question", "answer", "conversation_id", "model_id", "index_version")
NUMBER_FIELDS = ("latency_ms",)
CHUNK_TEXT_FIELDS = ("chunk_id", "text", "document_id")
CHUNK_NUMBER_FIELDS = ("retrieval_score", "rerank_score")
ALL_FIELDS = (
    *TEXT_FIELDS,
    *NUMBER_FIELDS,
    "retrieved_chunks",
    "citations",
    "feedback",
    "usage",
    "timestamp",
    "metadata",
    "language",
    "prompt_version",
)


def good_trace(n: int, answer: str = "Bạn có 30 ngày để đổi trả áo.") -> dict[str, Any]:
    """A valid trace (its answer states the conditional 30 ngày: it is flagged, so it reaches the store)."""
    return {
        "trace_id": f"corpus-{n:04d}",
        "timestamp": "2026-09-25T17:05:00Z",
        "question": "Mua áo mặc không vừa thì được trả trong mấy ngày?",
        "retrieved_chunks": GOOD_CHUNKS,
        "answer": answer,
        "citations": ["c03"],
        "model_id": "gen-model",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-chunk800",
        "latency_ms": 1200,
        "language": "vi",
    }


def _line(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def _escaped(obj: Any) -> bytes:
    """JSON with every non-ASCII character escaped, so ``\\u0000`` and ``\\ud800`` stay escapes."""
    return json.dumps(obj, ensure_ascii=True).encode("ascii")


def _with_raw(n: int, field: str, raw_value: bytes) -> bytes:
    """A good trace whose ``field`` is replaced by ``raw_value`` spliced in as JSON text."""
    base = good_trace(n)
    base[field] = "__SPLICE__"
    return _line(base).replace(b'"__SPLICE__"', raw_value)


def _with_chunk_raw(n: int, field: str, raw_value: bytes) -> bytes:
    base = good_trace(n)
    base["retrieved_chunks"] = [{**GOOD_CHUNKS[0], field: "__SPLICE__"}, GOOD_CHUNKS[1]]
    return _line(base).replace(b'"__SPLICE__"', raw_value)


def _number_kinds() -> list[bytes]:
    return [b"1" * 4301, b"-" + b"9" * 5000, b"1" + b"0" * 400, b"1e400", b"NaN", b"Infinity", b"-Infinity"]


def _text_kinds() -> list[str]:
    return ["a\x00b", "\ud800", "x\udfffy", "\x00", "\ud83d", "ok\ud800\x00"]


def build_corpus(seed: int = 0) -> list[bytes]:
    """At least 300 messages: every hostile kind, with good traces between them."""
    rng = random.Random(seed)
    bad: list[bytes] = []
    n = 1000
    for field in TEXT_FIELDS:
        for text in _text_kinds():
            n += 1
            bad.append(_escaped({**good_trace(n), field: text}))
    for field in CHUNK_TEXT_FIELDS:
        for text in _text_kinds():
            n += 1
            bad.append(_escaped({**good_trace(n), "retrieved_chunks": [{**GOOD_CHUNKS[0], field: text}]}))
    for field in NUMBER_FIELDS:
        for raw in _number_kinds():
            n += 1
            bad.append(_with_raw(n, field, raw))
    for field in CHUNK_NUMBER_FIELDS:
        for raw in _number_kinds():
            n += 1
            bad.append(_with_chunk_raw(n, field, raw))
    for raw in _number_kinds():
        n += 1
        bad.append(_with_raw(n, "metadata", b'{"big": ' + raw + b"}"))
    for depth in (10, 64, 65, 200, 900, 990, 5000):
        n += 1
        bad.append(_with_raw(n, "metadata", b'{"deep": ' + b"[" * depth + b"]" * depth + b"}"))
        n += 1
        bad.append(_with_raw(n, "question", b"{" * 0 + b"[" * depth + b"]" * depth))
    for field in ALL_FIELDS:
        n += 1
        bad.append(_with_raw(n, field, b"null"))
        for wrong in (b"123", b"true", b"[1, 2]", b'{"x": 1}', b'"text"', b"-0.5", b"[]", b"{}"):
            n += 1
            bad.append(_with_raw(n, field, wrong))
    for _ in range(15):
        n += 1
        line = _line(good_trace(n))
        bad.append(line[: rng.randrange(1, len(line) - 1)])
    n += 1
    bad.append(_line(good_trace(n))[:-1] + b',"question": "dup"}')  # duplicate key: the last one wins
    n += 1
    bad.append(b"\xef\xbb\xbf" + _line(good_trace(n)))
    n += 1
    bad.append(_line(good_trace(n)).replace(b"Mua", b"Mua\tx\x01", 1))  # raw control characters
    n += 1
    bad.append(_line(good_trace(n)).replace("áo".encode(), b"\xc3\x28", 1))  # invalid UTF-8
    n += 1
    bad.append(b"\xff\xfe\x00garbage")
    bad.extend([b"[]", b"42", b'"a string"', b"null", b"true", b"{}", b"{not json"])
    bad.extend(_line(event) for event in _bad_feedback())
    n += 1
    bad.append(_line({**good_trace(n), "answer": "x" * (5 * 1024 * 1024)}))  # 5 MB string: too_large
    n += 1
    bad.append(_line({**good_trace(n), "retrieved_chunks": [{"text": "y" * (1024 * 1024)}]}))  # 1 MB chunk
    n += 1
    many = [{"chunk_id": f"k{i}", "text": f"đoạn {i}: 7 ngày", "retrieval_score": 0.5} for i in range(10_000)]
    bad.append(_line({**good_trace(n), "retrieved_chunks": many}))  # 10,000 chunks (under the byte cap)
    return _interleave(bad, rng)


def _bad_feedback() -> list[dict[str, Any]]:
    return [
        {"type": "feedback"},
        {"type": "feedback", "trace_id": "corpus-0001"},
        {"type": "feedback", "trace_id": "corpus-0001", "rating": "maybe"},
        {"type": "feedback", "trace_id": "corpus-0001", "rating": None},
        {"type": "feedback", "trace_id": "", "rating": "negative"},
        {"type": "feedback", "trace_id": "corpus-0001", "rating": ["negative"]},
    ]


def _interleave(bad: list[bytes], rng: random.Random) -> list[bytes]:
    """A good trace after every few bad messages: one bad message must never block the next ones."""
    out: list[bytes] = []
    for index, message in enumerate(bad):
        out.append(message)
        if index % 5 == 4:
            out.append(_line(good_trace(len(out))))
    assert all(b"\n" not in m for m in out), "a corpus message holds a raw newline"  # noqa: S101
    return out
