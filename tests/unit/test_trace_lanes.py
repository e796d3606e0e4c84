"""The two lanes into a trace agree: whatever the canonical lane accepts, the lenient lane reads the same.

The canonical lane (msgspec straight into ``Trace``) is only a shortcut; the lenient lane (decode,
adapt, pydantic) is the contract. A message the shortcut takes must come out equal, field by field,
to what the contract makes of it, and a message it declines must still be read (or refused) by the
contract exactly as before. Checked on the bundled sample, the hostile corpus, peer tools' files and
generated traces full of the edge cases each lane handles on its own.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.decode import decode_json
from monitor.exceptions import TraceError
from monitor.trace import (
    DEFAULT_MAX_MESSAGE_BYTES,
    Chunk,
    Trace,
    canonical_trace,
    parse_message,
    validate_message,
)
from tests.support.corpus import build_corpus
from tests.support.kafka import realistic_traces

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "monitor" / "data" / "sample_traces.jsonl"
PEERS = ROOT / "tests" / "data" / "peers"


def lenient(raw: bytes) -> Any:
    """What the contract makes of the bytes: a trace, a feedback event, or the TraceError's reason."""
    if len(raw) > DEFAULT_MAX_MESSAGE_BYTES:
        return ("refused", "too_large")  # parse_message's cap, before either lane
    try:
        return validate_message(decode_json(raw))
    except TraceError as exc:
        return ("refused", exc.reason)


def assert_lanes_agree(raw: bytes) -> bool:
    """Assert the shortcut agrees with the contract on ``raw``; True when the shortcut took it."""
    slow = lenient(raw)
    fast = canonical_trace(raw) if len(raw) <= DEFAULT_MAX_MESSAGE_BYTES else None
    if fast is not None:
        assert isinstance(slow, Trace), f"canonical lane accepted what the contract refuses: {slow}"
        assert fast == slow
        assert msgspec.json.encode(fast) == msgspec.json.encode(slow)
    try:
        parsed: Any = parse_message(raw)
    except TraceError as exc:
        parsed = ("refused", exc.reason)
    assert parsed == slow
    return fast is not None


def test_the_sample_and_realistic_traffic_take_the_canonical_lane() -> None:
    """The native traces ragmon ships and benchmarks are read by the shortcut (else it saves nothing)."""
    lines = [line for line in SAMPLE.read_bytes().splitlines() if line.strip()]
    taken = [assert_lanes_agree(line) for line in lines]
    assert sum(taken) >= len(lines) // 2
    realistic = [json.dumps(t, ensure_ascii=False).encode() for t in realistic_traces(50)]
    assert all(assert_lanes_agree(raw) for raw in realistic)


def test_the_hostile_corpus_reads_the_same_through_either_lane() -> None:
    corpus = build_corpus(seed=3)
    assert len(corpus) >= 300
    for raw in corpus:
        assert_lanes_agree(raw)


def test_peer_tool_files_take_the_lenient_lane() -> None:
    """Ragas, DeepEval, Langfuse rows use aliases and peer keys: never the shortcut, and still read."""
    files = sorted(PEERS.glob("*.jsonl"))
    assert files
    for path in files:
        for line in path.read_bytes().splitlines():
            if line.strip():
                assert not assert_lanes_agree(line), f"{path.name}: a peer row took the canonical lane"


BASE: dict[str, Any] = {"trace_id": "t-1", "question": "Đổi trả mấy ngày?", "answer": "Trong 7 ngày."}


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"tenant": "acme"}, "an unknown field goes to metadata"),
        ({"user_input": "q"}, "a peer alias"),
        ({"feedback": {"rating": "thumbs_down"}}, "a rating synonym"),
        ({"feedback": {"rating": "negative", "source": "app"}}, "an unknown feedback field"),
        ({"retrieved_chunks": ["bare text"]}, "a bare-text chunk"),
        ({"retrieved_chunks": [{"text": "x", "metadata": {"sections": ["DT-1"]}}]}, "sections in metadata"),
        ({"retrieved_chunks": [{"text": "x", "url": "https://kb"}]}, "an unknown chunk field"),
        ({"reference_contexts": ["ctx"]}, "a peer key"),
        ({"metadata": {"order": 123456789012345678901234567890}}, "an integer beyond 64 bits"),
        ({"usage": {"prompt_tokens": -(2**63) - 1}}, "an integer below 64 bits"),
        ({"trace_id": 42}, "a numeric id"),
        ({"trace_id": ""}, "an empty id: a content id"),
        ({"latency_ms": -1}, "a negative latency is refused"),
        ({"retrieved_chunks": [{"text": "x", "retrieval_score": 1e400}]}, "an infinite score is refused"),
        ({"timestamp": "2026-09-25 09:07"}, "a timestamp msgspec does not read"),
        ({"timestamp": "2026-09-25T17:05:00.1234567Z"}, "nanoseconds: msgspec rounds, pydantic truncates"),
        ({"timestamp": "2026-09-25T17:05:00.9999999+07:00"}, "nanoseconds rounding into the next second"),
    ],
)
def test_what_the_canonical_lane_declines(fields: dict[str, Any], why: str) -> None:
    raw = json.dumps({**BASE, **fields}).encode()
    assert canonical_trace(raw) is None, why
    assert_lanes_agree(raw)


def test_unknown_chunk_fields_are_kept_in_the_chunk_metadata() -> None:
    raw = json.dumps(
        {**BASE, "retrieved_chunks": [{"text": "x", "url": "https://kb/1", "metadata": {"lang": "vi"}}]}
    ).encode()
    (chunk,) = validate_message(decode_json(raw)).retrieved_chunks  # type: ignore[union-attr]
    assert chunk == Chunk(text="x", metadata={"url": "https://kb/1", "lang": "vi"})


def test_a_message_the_lenient_lane_must_repair_is_still_accepted() -> None:
    """A byte order mark and a lone surrogate: msgspec refuses both, the contract accepts both."""
    raw = b"\xef\xbb\xbf" + json.dumps({**BASE, "answer": "a\ud800b"}).encode()
    assert canonical_trace(raw) is None
    trace = parse_message(raw)
    assert isinstance(trace, Trace) and trace.answer == "a\ufffdb"


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    _text,
)
_json = st.recursive(
    _scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_zones = st.sampled_from([UTC, timezone(timedelta(hours=7)), timezone(timedelta(hours=-3, minutes=-30))])
_stamp = st.one_of(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1), timezones=_zones).map(
        lambda d: d.isoformat().replace("+00:00", "Z")
    ),
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)).map(datetime.isoformat),
    st.tuples(
        st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)), st.integers(0, 999)
    ).map(
        lambda p: p[0].strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{p[1]:03d}Z"  # nanoseconds (Go, Java, OTel)
    ),
    _text,
    st.integers(min_value=0, max_value=2**33),
)
_number = st.one_of(st.none(), st.integers(min_value=-5, max_value=10**6), st.floats(allow_nan=False), _text)
_chunk = st.fixed_dictionaries(
    {},
    optional={
        "chunk_id": st.one_of(st.none(), _text),
        "text": st.one_of(_text, st.none()),
        "sections": st.one_of(st.lists(_text, max_size=2), _text),
        "retrieval_score": _number,
        "rerank_score": _number,
        "metadata": st.dictionaries(st.sampled_from(["sections", "lang"]), _json, max_size=2),
        "url": _text,
    },
)
_trace = st.fixed_dictionaries(
    {"trace_id": st.one_of(_text, st.integers()), "question": _text, "answer": st.one_of(_text, st.none())},
    optional={
        "timestamp": _stamp,
        "retrieved_chunks": st.lists(st.one_of(_chunk, _text), max_size=3),
        "citations": st.lists(_text, max_size=2),
        "latency_ms": _number,
        "usage": st.dictionaries(_text, _json, max_size=3),
        "metadata": st.dictionaries(_text, _json, max_size=3),
        "feedback": st.fixed_dictionaries(
            {"rating": st.sampled_from(["positive", "negative", "neutral", "up", "-1", 1])},
            optional={"reason": st.one_of(st.none(), _text), "source": _text},
        ),
        "model_id": st.one_of(st.none(), _text),
        "reference_answer": st.one_of(st.none(), _text),
        "tenant": _json,
    },
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_trace)
def test_generated_traces_read_the_same_through_either_lane(data: dict[str, Any]) -> None:
    assert_lanes_agree(json.dumps(data, ensure_ascii=False).encode())
    assert_lanes_agree(json.dumps(data).encode())  # \\u escapes instead of UTF-8


def test_an_escaped_timestamp_key_takes_the_lenient_lane() -> None:
    raw = json.dumps({**BASE, "timestamp": "2026-09-25T17:05:00Z"}).replace("timestamp", "timest\\u0061mp")
    assert canonical_trace(raw.encode()) is None
    assert_lanes_agree(raw.encode())


def _nested(depth: int, tail: bytes = b"") -> bytes:
    """A native trace whose ``metadata`` holds a list nested so that the message is ``depth`` deep."""
    inner = depth - 2  # the trace and its metadata object are the first two levels
    head = json.dumps({**BASE, "metadata": {"x": 0}}).encode()[: -len(b"0}}")]
    return head + b"[" * inner + b"]" * inner + b"}}" + tail


@pytest.mark.parametrize("depth", [63, 64, 65, 66, 200, 5000])
def test_nesting_reads_the_same_through_either_lane_at_any_depth(depth: int) -> None:
    """The shortcut takes a trace nested up to the limit and declines deeper ones (no bracket count)."""
    raw = _nested(depth)
    assert assert_lanes_agree(raw) == (depth <= 64)


def test_a_deep_message_that_is_bad_otherwise_keeps_the_contract_reason() -> None:
    """Nesting deeper than msgspec recurses, then a byte that is not UTF-8: the lenient lane decides."""
    raw = _nested(5000)[:-2000] + b"\xff"
    assert canonical_trace(raw) is None
    assert_lanes_agree(raw)


def test_many_chunks_take_the_canonical_lane() -> None:
    """Forty chunks open over sixty-four brackets without being deep: the shortcut still reads them."""
    chunks = [{"chunk_id": f"c{i}", "sections": ["S"], "text": "t"} for i in range(40)]
    assert assert_lanes_agree(json.dumps({**BASE, "retrieved_chunks": chunks}).encode())
