"""OTLP on Kafka, as the OpenTelemetry Collector's kafka exporter writes it, on the real broker.

The exporter's default encoding is ``otlp_proto``: one ``ExportTraceServiceRequest`` per message. A
trace's spans may come in several messages (``partition_traces_by_id: true`` keeps them on one
partition); ragmon gathers them by trace id, and commits a message only once every trace drawing on
it is handled, so a crash between the parts replays them together (at-least-once).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToJson
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from tests.integration.conftest import DaemonFactory
from tests.support.kafka import Broker
from tests.support.otel import genai_trace, openinference_trace, otlp_request, recorded

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

OK = {"outcome": "ok"}
PEERS = Path(__file__).resolve().parents[1] / "data" / "peers"
SLOW_SETTLE = {"RAGMON_OTLP__SETTLE_S": "600"}  # a trace is handed on by its root span, not by time


def test_a_trace_split_over_messages_survives_a_crash_between_them(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """Children in message 0, a whole trace in 1, the root in 2: the commit waits for the root, a
    kill -9 before it arrives replays message 0, and the restarted member assembles the trace."""
    topic = topic_factory(1)
    split_id, split_spans = recorded(openinference_trace)
    whole_id, whole_spans = recorded(genai_trace)
    children = [s for s in split_spans if s.parent is not None]
    roots = [s for s in split_spans if s.parent is None]
    url = broker.url(topic, group) + "&format=otlp_proto"

    first = daemon_factory(url, "first", True, env=SLOW_SETTLE)
    broker.produce(topic, [otlp_request(children), otlp_request(whole_spans)])
    first.wait_metric("ragmon_traces_total", 1, 60, **OK)
    time.sleep(1.5)  # several commit intervals: the handled message 1 must not be committed past 0
    assert broker.committed_offsets(topic, group)[0] in (None, 0)
    assert first.trace_ids() == [whole_id]
    first.kill()

    second = daemon_factory(url, "second", True, env=SLOW_SETTLE)
    broker.produce(topic, [otlp_request(roots)])
    second.wait_metric("ragmon_traces_total", 2, 90, **OK)  # message 1 again (at-least-once), and the split
    assert sorted(set(second.trace_ids())) == sorted({split_id, whole_id})
    (split,) = [r for r in second.records() if r["trace_id"] == split_id]
    assert split["signals"]["chunk_count"] == 2  # type: ignore[index]
    deadline = time.monotonic() + 30
    while broker.committed_offsets(topic, group)[0] != 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert broker.committed_offsets(topic, group)[0] == 3
    assert second.stop() == 0


def test_otlp_json_and_native_records_share_a_topic_in_auto_format(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """Without ``format``, each message is told by its bytes: OTLP protobuf, OTLP/JSON, a native record."""
    topic = topic_factory(1)
    proto_id, proto_spans = recorded(openinference_trace)
    mapped_id, mapped_spans = recorded(genai_trace)
    mapped = MessageToJson(encode_spans(mapped_spans)).encode()  # protobuf's JSON mapping: base64 ids
    collector_json = (PEERS / "otlp_traces.json").read_bytes()  # OTLP/JSON as the spec has it: hex ids
    spec_ids = [r["trace_id"] for r in json.loads((PEERS / "expected.json").read_text())["otlp_traces.json"]]
    native = b'{"trace_id": "native-1", "question": "q?", "answer": "a."}'
    broker.produce(topic, [otlp_request(proto_spans), mapped, collector_json, native])
    daemon = daemon_factory(broker.url(topic, group), "auto", True)
    total = 3 + len(spec_ids)
    daemon.wait_metric("ragmon_traces_total", total, 60, **OK)
    assert daemon.metric("ragmon_traces_total", outcome="invalid") == 0
    assert set(daemon.trace_ids()) == {proto_id, mapped_id, *spec_ids, "native-1"}  # at-least-once
    assert daemon.stop() == 0
