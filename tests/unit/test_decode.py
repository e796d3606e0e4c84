"""The decode boundary: each escape of the JSON decoders is decided on purpose (monitor.decode's table)."""

from __future__ import annotations

import msgspec
import pytest

from monitor.decode import MAX_DEPTH, decode_json
from monitor.exceptions import TraceError
from monitor.trace import Trace, parse_message

BASE = b'{"trace_id": "t", "question": "q", "answer": '
FULL = b'{"trace_id": "t", "question": "q", "answer": "a", '


def _reason(raw: bytes) -> str:
    with pytest.raises(TraceError) as info:
        parse_message(raw)
    return info.value.reason


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (BASE + b"1" * 4301 + b"}", "number_too_large"),
        (
            FULL + b'"n": -' + b"9" * 5000 + b"}",
            "number_too_large",
        ),
        (FULL + b'"n": 1' + b"0" * 400 + b"}", "number_too_large"),
        (
            FULL + b'"m": ' + b"[" * 65 + b"]" * 65 + b"}",
            "nested_too_deep",
        ),
        (b"[" * 5000 + b"]" * 5000, "nested_too_deep"),
        (BASE + b'"x\ty"}', "invalid_json"),
        (BASE + b'"x\x01y"}', "invalid_json"),
        (BASE + b'"unterminated', "invalid_json"),
        (b'{"trace_id": "t", "question": "\xc3\x28", "answer": "a"}', "not_utf8"),
        (b"\xef\xbb\xbf\xef\xbb\xbf{}", "invalid_json"),
        (b"", "invalid_json"),
    ],
)
def test_refused_with_a_precise_reason(raw: bytes, reason: str) -> None:
    """Oversized numbers, deep nesting, control characters and bad UTF-8 each get their own reason."""
    assert _reason(raw) == reason


def test_integer_of_4300_digits_still_decodes() -> None:
    """The limit is the interpreter's own: 4,300 digits are a (float-valued) number, not an error."""
    trace = parse_message(b'{"trace_id": "t", "question": "q", "answer": "a", "n": 1' + b"0" * 300 + b"}")
    assert isinstance(trace, Trace) and trace.metadata["n"] == pytest.approx(1e300)


def test_byte_order_mark_is_stripped() -> None:
    """A UTF-8 BOM before the JSON (Windows tools write one) is accepted."""
    trace = parse_message(b'\xef\xbb\xbf{"trace_id": "t", "question": "q", "answer": "a"}')
    assert isinstance(trace, Trace) and trace.answer == "a"


def test_lone_surrogates_become_replacement_characters() -> None:
    """A lone surrogate escape is valid JSON but no character: it becomes U+FFFD, in values and keys."""
    trace = parse_message(b'{"trace_id": "t", "question": "q\\ud800", "answer": "a\\udfff", "k\\ud801": 1}')
    assert isinstance(trace, Trace)
    assert trace.question == "q\ufffd" and trace.answer == "a\ufffd"
    assert trace.metadata == {"k\ufffd": 1}
    msgspec.json.encode(trace)  # encodable everywhere downstream


def test_surrogate_pairs_are_kept() -> None:
    """A proper surrogate pair is one character (an emoji) and is kept."""
    trace = parse_message(b'{"trace_id": "t", "question": "\\ud83d\\ude00", "answer": "a"}')
    assert isinstance(trace, Trace) and trace.question == "\U0001f600"


def test_nul_is_kept() -> None:
    """``\\u0000`` is a character: it is kept here, and replaced only by stores that cannot hold it."""
    trace = parse_message(b'{"trace_id": "t", "question": "q\\u0000", "answer": "a"}')
    assert isinstance(trace, Trace) and trace.question == "q\x00"


def test_duplicate_keys_keep_the_last_value() -> None:
    """A key given twice keeps its last value, as most JSON parsers do."""
    trace = parse_message(b'{"trace_id": "t", "question": "first", "question": "last", "answer": "a"}')
    assert isinstance(trace, Trace) and trace.question == "last"


def test_non_finite_outside_scores_is_kept_in_memory() -> None:
    """NaN in a free-form field is not a score: the trace is accepted (outputs write it as null)."""
    trace = parse_message(b'{"trace_id": "t", "question": "q", "answer": "a", "usage": {"cost": NaN}}')
    assert isinstance(trace, Trace)


def test_nesting_at_the_limit_is_accepted() -> None:
    """Exactly MAX_DEPTH levels decode."""
    value = decode_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
    assert isinstance(value, list)


@pytest.mark.parametrize(
    "field", ["question", "answer", "trace_id", "retrieved_chunks", "feedback", "citations"]
)
def test_null_in_any_field_is_a_trace_error(field: str) -> None:
    """A null where a value is expected is a dead letter (or the field's default), never an exception."""
    raw = b'{"trace_id": "t", "question": "q", "answer": "a", "' + field.encode() + b'": null}'
    try:
        parse_message(raw)
    except TraceError as exc:
        assert exc.reason in ("wrong_type", "missing_trace_id", "missing_question", "missing_answer")
