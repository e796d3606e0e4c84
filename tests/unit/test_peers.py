"""Artifacts written by Ragas, DeepEval, Langfuse and the OpenTelemetry SDK, read as ragmon traces.

The fixtures in tests/data/peers/ were written by the tools' own packages (``generate.py``, versions
in ``versions.json``); ``expected.json`` lists what each must yield. Every file goes through the real
source catalog (``open_source``), as ``ragmon replay FILE`` reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from monitor.assembly import RecordReader
from monitor.exceptions import TraceError
from monitor.message import Message, Origin
from monitor.peers import content_id
from monitor.trace import Trace, parse_message
from tests.support.sources import read_messages, read_traces

PEERS = Path(__file__).resolve().parents[1] / "data" / "peers"
EXPECTED: dict[str, list[dict[str, Any]]] = json.loads((PEERS / "expected.json").read_text(encoding="utf-8"))
# CSV is not a trace shape ragmon reads (lists are Python reprs there); every other artifact is.
FILES = sorted(name for name in EXPECTED if not name.endswith(".csv") and "+" not in name)


def _view(trace: Trace) -> dict[str, Any]:
    return {
        "question": trace.question,
        "answer": trace.answer,
        "contexts": [chunk.text for chunk in trace.retrieved_chunks],
    }


def _expected_view(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in ("question", "answer", "contexts")}


@pytest.mark.parametrize("name", FILES)
def test_every_peer_artifact_maps_question_answer_and_chunks(name: str) -> None:
    """Each record of each artifact arrives whole: question, answer, chunks in rank order, reference."""
    traces = read_traces(PEERS / name)
    expected = EXPECTED[name]
    assert len(traces) == len(expected)
    if expected[0]["trace_id"] is not None:  # spans and observations: their own ids, any order
        by_id = {t.trace_id: t for t in traces}
        assert set(by_id) == {e["trace_id"] for e in expected}
        pairs = [(by_id[e["trace_id"]], e) for e in expected]
    else:
        pairs = list(zip(traces, expected, strict=True))
    for trace, record in pairs:
        assert _view(trace) == _expected_view(record)
        assert trace.reference_answer == record["reference"]
        if record["trace_id"] is None:
            assert trace.trace_id.startswith("peer-")


def test_spans_of_one_trace_split_over_two_requests_are_one_trace(tmp_path: Path) -> None:
    """The Collector may send a trace's spans in two requests: they are gathered by trace id."""
    joined = tmp_path / "split.jsonl"
    (record,) = EXPECTED["otlp_split_1.pb+otlp_split_2.pb"]
    reader = RecordReader()
    first = reader.read(Message((PEERS / "otlp_split_1.pb").read_bytes(), Origin(path="1")))
    assert first == []  # children first: the root span is in the second request
    (built,) = reader.read(Message((PEERS / "otlp_split_2.pb").read_bytes(), Origin(path="2")))
    assert len(built.parts) == 2
    assert reader.release(built.parts) == list(built.parts)  # both requests are done with it
    joined.write_bytes(built.message.value + b"\n")
    (trace,) = read_traces(joined)
    assert trace.trace_id == record["trace_id"]
    assert _view(trace) == _expected_view(record)


def test_ids_from_content_are_stable_and_documented() -> None:
    """The same Ragas sample read from two artifacts gets the same id; another sample another."""
    one = read_traces(PEERS / "ragas_evaluation_dataset.jsonl")
    two = read_traces(PEERS / "ragas_to_pandas_records_indent2.json")
    assert [t.trace_id for t in one] == [t.trace_id for t in two]
    assert len({t.trace_id for t in one}) == 3
    record: dict[str, Any] = {
        "question": one[0].question,
        "answer": one[0].answer,
        "retrieved_chunks": [{"text": c.text} for c in one[0].retrieved_chunks],
        "reference_answer": one[0].reference_answer,
    }
    assert content_id(record) == one[0].trace_id


def test_deepeval_pipe_joined_contexts_split_into_chunks() -> None:
    """save_as("jsonl") joins retrieval_context with "|": read back as separate chunks, markers gone."""
    traces = read_traces(PEERS / "deepeval_dataset_goldens.jsonl")
    assert [len(t.retrieved_chunks) for t in traces] == [2, 1, 2]
    assert not any("deepeval_source=" in c.text for t in traces for c in t.retrieved_chunks)


def test_a_pretty_printed_array_is_one_document_with_numbered_records() -> None:
    """A 2-space JSON array is split into records whose origin is the file and the record's index."""
    messages = read_messages(PEERS / "ragas_to_pandas_records_indent2.json")
    assert [m.origin.line for m in messages] == [1, 2, 3]
    assert all(m.origin.path and m.origin.path.endswith("indent2.json") for m in messages)


def test_a_broken_element_in_an_array_is_dead_lettered_alone(tmp_path: Path) -> None:
    """One bad record in an array costs that record, not the file."""
    path = tmp_path / "mixed.json"
    path.write_text(
        json.dumps(
            [{"question": "q1", "answer": "a1"}, {"question": "q2"}, {"question": "q3", "answer": "a3"}],
            indent=2,
        ),
        encoding="utf-8",
    )
    outcomes = []
    for message in read_messages(path):
        try:
            outcomes.append(type(parse_message(message.value)).__name__)
        except TraceError as exc:
            outcomes.append(exc.reason)
    assert outcomes == ["Trace", "missing_answer", "Trace"]


def test_span_attributes_carry_prompt_and_index_versions() -> None:
    """OpenInference's prompt template version and ``metadata`` JSON, or ragmon.* attributes, give the
    trace its version labels, so live MRR by index version works for OTLP traffic too."""
    from monitor.otlp import Span, trace_from_spans

    root = Span(
        "ab" * 16, "cd" * 8, "", "rag", 1, {"input.value": "q?", "output.value": "a.",
                                            "metadata": '{"index_version": "kb-7", "user": "u1"}'},
    )  # fmt: skip
    llm = Span("ab" * 16, "ef" * 8, "cd" * 8, "llm", 2, {"llm.prompt_template.version": "answer-v4"})
    record = trace_from_spans([llm, root])
    assert record["prompt_version"] == "answer-v4" and record["index_version"] == "kb-7"
    tagged = Span("ab" * 16, "cd" * 8, "", "rag", 1, {"input.value": "q?", "output.value": "a.",
                                                    "ragmon.index_version": "kb-8"})  # fmt: skip
    assert trace_from_spans([tagged])["index_version"] == "kb-8"
    assert "prompt_version" not in trace_from_spans([tagged])
