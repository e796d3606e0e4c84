"""AssembledSource: native records pass as they came, containers are split, acks reach the raw message."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path

from monitor.assembly import Assembled, RecordReader
from monitor.config import load_settings
from monitor.message import Message, Origin
from monitor.sources import open_source
from monitor.sources.assembled import AssembledSource
from monitor.trace import Trace, canonical_trace
from tests.support.pipeline import make_engine, make_pipeline, run_to_end


class Inner:
    """A source that hands out prepared polls and remembers what was acked."""

    name = "inner"
    ready = True
    exhausted = False
    batch_size = 500
    commit_interval_s = 1.0

    def __init__(self, polls: list[list[Message]]) -> None:
        self.polls = polls
        self.acked: list[Message] = []
        self.polled = 0

    def open(self) -> None:
        return None

    def poll(self, max_records: int, timeout_s: float) -> list[Message]:
        self.polled += 1
        return self.polls.pop(0) if self.polls else []

    def ack(self, *messages: Message) -> None:
        self.acked.extend(messages)

    def commit(self) -> None:
        return None

    def pause(self) -> None:
        return None

    def resume(self) -> None:
        return None

    def lag(self) -> Mapping[tuple[str, int], int]:
        return {}

    def committed_lag(self) -> Mapping[tuple[str, int], int]:
        return {}

    def progress(self) -> tuple[int, int | None]:
        return 0, None

    def close(self) -> None:
        return None


def native(offset: int) -> Message:
    record = {"trace_id": f"t{offset}", "question": "q", "answer": "a"}
    return Message(json.dumps(record).encode(), Origin("topic", 0, offset))


def test_a_poll_of_native_records_is_handed_on_with_their_traces_and_acked_straight_through() -> None:
    """The common poll: the same bytes, origins and keys, in order, each with the trace the canonical
    lane reads from its bytes; their acks go to the inner source as they are."""
    polled = [native(0), native(1), native(2)]
    source = AssembledSource(Inner([polled]), RecordReader())
    out = source.poll(10, 0.1)
    assert [(m.value, m.origin, m.key) for m in out] == [(m.value, m.origin, m.key) for m in polled]
    assert [m.decoded for m in out] == [canonical_trace(m.value) for m in polled]
    assert all(isinstance(m.decoded, Trace) for m in out)
    source.ack(out[2], out[0])
    assert source.inner.acked == [out[2], out[0]]  # type: ignore[attr-defined]


def test_only_what_the_canonical_lane_reads_is_handed_on_decoded() -> None:
    """A record in a shape only the lenient lane reads (an alias, a bare-text chunk) and a feedback event
    pass as they came, undecoded; a Langfuse observation is no native record (it waits for its trace)."""
    lenient = Message(json.dumps({"id": "t1", "input": "q", "output": "a"}).encode(), Origin("topic", 0, 1))
    chunks = {"trace_id": "t2", "question": "q", "answer": "a", "retrieved_chunks": ["bare text"]}
    bare = Message(json.dumps(chunks).encode(), Origin("topic", 0, 2))
    event = Message(
        json.dumps({"type": "feedback", "trace_id": "t0", "rating": "down"}).encode(), Origin("topic", 0, 3)
    )
    observation = {"traceId": "lf-1", "id": "o1", "type": "GENERATION", "input": "q", "output": "a"}
    reader = RecordReader()
    for message in (lenient, bare, event):
        handed = reader.native(message)
        assert handed is message and handed.decoded is None
    assert reader.native(Message(json.dumps(observation).encode(), Origin("topic", 0, 4))) is None
    assert reader.native(Message(b"\x1f\x8b\x08 gzip", Origin("topic", 0, 5))) is None


def test_a_decoded_record_over_the_message_cap_is_still_too_large(tmp_path: Path) -> None:
    """The reader decodes up to the default cap; the loop refuses a message over its own, lower, cap."""
    record = {"trace_id": "big", "question": "q", "answer": "a" * 1500}
    small = {"trace_id": "small", "question": "q", "answer": "a"}
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(record) + "\n" + json.dumps(small) + "\n", encoding="utf-8")
    dlq = tmp_path / "dlq.jsonl"
    settings = load_settings(
        overrides={"source": str(src), "dlq": str(dlq), "max_message_bytes": 1024}, environ={}
    )
    pipeline = make_pipeline()
    opened = open_source(settings)
    summary = asyncio.run(run_to_end(make_engine(settings, pipeline, opened.source, opened.dead_letter)))
    assert summary.traces == 1 and summary.invalid["too_large"] == 1
    assert [json.loads(line)["reason"] for line in dlq.read_text().splitlines()] == ["too_large"]


def test_an_array_among_native_records_is_split_and_its_message_acked_once_all_its_records_are() -> None:
    """A JSON array of two records beside a native one: three messages; the array's raw message is
    acked only when both of its records are (at-least-once), the native one at once."""
    array = Message(
        json.dumps(
            [
                {"trace_id": "a1", "question": "q", "answer": "a"},
                {"trace_id": "a2", "question": "q", "answer": "a"},
            ]
        ).encode(),
        Origin("topic", 0, 7),
    )
    first = native(6)
    inner = Inner([[first, array]])
    source = AssembledSource(inner, RecordReader())
    out = source.poll(10, 0.1)
    assert [json.loads(m.value)["trace_id"] for m in out] == ["t6", "a1", "a2"]
    source.ack(out[0], out[1])
    assert [m.origin.offset for m in inner.acked] == [first.origin.offset]
    source.ack(out[2])
    assert [m.origin.offset for m in inner.acked] == [6, 7] and inner.acked[1] is array
    source.ack(native(9))  # once nothing assembled is waiting, acks go straight through again
    assert inner.acked[-1].origin.offset == 9


def test_more_records_than_a_poll_takes_wait_in_the_backlog() -> None:
    """An array that yields more records than ``max_records``: the rest come with the next polls,
    before the inner source is asked again."""
    records = [{"trace_id": f"r{i}", "question": "q", "answer": "a"} for i in range(5)]
    inner = Inner([[Message(json.dumps(records).encode(), Origin("topic", 0, 0))]])
    source = AssembledSource(inner, RecordReader())
    taken = [source.poll(2, 0.1), source.poll(2, 0.1), source.poll(2, 0.1)]
    assert [len(batch) for batch in taken] == [2, 2, 1] and inner.polled == 1


def test_the_reader_hook_hears_every_raw_message_even_in_a_native_poll() -> None:
    """``on_read`` (the OTLP receiver answers its client there) hears each raw message and what it yielded."""
    heard: list[tuple[Message, list[Assembled]]] = []
    polled = [native(0), native(1)]
    source = AssembledSource(Inner([polled]), RecordReader(), on_read=lambda m, y: heard.append((m, y)))
    out = source.poll(10, 0.1)
    assert [m.value for m in out] == [m.value for m in polled]
    assert [m for m, _ in heard] == polled and [y[0].message for _, y in heard] == out
