"""Evaluation results out: ``gen_ai.evaluation.result`` events to a real OTLP/HTTP receiver on loopback.

The receiver is OpenTelemetry's own test sink (``oteltest``'s ``HttpSink``, which decodes every request
with the official opentelemetry-proto messages). A trace that came in over OTLP (the real SDK exporter
into ``ragmon run --source otlp://``) gets its evaluation span in the same OTel trace, parented to the
evaluated root span; a replayed JSONL trace gets log events under the documented derived trace id.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from oteltest.sink import HttpSink
from oteltest.sink.handler import RequestHandler

from monitor.cli import main
from tests.integration.conftest import DaemonFactory
from tests.support.daemon import wait_until
from tests.support.kafka import free_port
from tests.support.otel import ANSWER, DT1, DT3, QUESTION, openinference_trace

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

HEADER_SECRET = "export-secret-77a1"  # noqa: S105 - a test credential


class Received(RequestHandler):
    """What the sink decoded, as OTLP/JSON dictionaries, with the request headers."""

    def __init__(self) -> None:
        self.traces: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.logs: list[tuple[dict[str, Any], dict[str, str]]] = []
        self._lock = threading.Lock()

    def handle_trace(self, request: Any, headers: dict[str, str]) -> None:
        with self._lock:
            self.traces.append((MessageToDict(request), headers))

    def handle_logs(self, request: Any, headers: dict[str, str]) -> None:
        with self._lock:
            self.logs.append((MessageToDict(request), headers))

    def handle_metrics(self, request: Any, headers: dict[str, str]) -> None:  # pragma: no cover
        pass


@pytest.fixture
def sink() -> Iterator[tuple[Received, str]]:
    received = Received()
    port = free_port()
    server = HttpSink(received, logging.getLogger("oteltest"), port=port)
    server.start()
    wait_until(lambda: server.httpd is not None, 10, "OTLP sink listening")
    yield received, f"http://127.0.0.1:{port}"
    server.stop()


def _attributes(values: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in values:
        value = kv["value"]
        out[kv["key"]] = value.get("stringValue", value.get("doubleValue"))
    return out


def _hex(b64: str) -> str:
    return base64.b64decode(b64).hex()


def test_an_otlp_trace_gets_its_evaluation_in_the_same_trace_under_its_root(
    sink: tuple[Received, str], daemon_factory: DaemonFactory
) -> None:
    """The SDK sends an OpenInference trace; ragmon judges it and exports one ragmon.evaluation span
    whose trace id is the trace's and whose parent is its root span, with a scored event per metric,
    the judge's identity, and the configured header (never logged)."""
    received, url = sink
    port = free_port()
    daemon = daemon_factory(
        f"otlp://127.0.0.1:{port}",
        "otlp",
        True,
        env={
            "RAGMON_OTLP__EXPORT_URL": url,
            "RAGMON_OTLP_EXPORT_HEADERS": f"x-api-key={HEADER_SECRET}",
            "RAGMON_SAMPLE_ALL": "true",
        },
    )
    wait_until(lambda: daemon.assert_running() or daemon.status("/readyz") == 200, 60, "receiver ready")
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-assistant"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces"))
    )
    trace_id = openinference_trace(provider)
    provider.shutdown()
    root = next(s for s in memory.get_finished_spans() if s.parent is None)
    wait_until(lambda: bool(received.traces), 60, "an evaluation span at the sink")
    daemon.wait_metric("ragmon_evaluation_exports_total", 1, 10, outcome="sent")
    assert daemon.stop() == 0

    request, headers = received.traces[0]
    assert {k.lower(): v for k, v in headers.items()}["x-api-key"] == HEADER_SECRET
    resource = request["resourceSpans"][0]
    assert _attributes(resource["resource"]["attributes"])["service.name"] == "ragmon"
    (span,) = resource["scopeSpans"][0]["spans"]
    assert span["name"] == "ragmon.evaluation"
    assert _hex(span["traceId"]) == trace_id
    assert _hex(span["parentSpanId"]) == format(root.context.span_id, "016x")
    events = [_attributes(e["attributes"]) for e in span["events"]]
    assert {e.get("gen_ai.evaluation.name") for e in events} >= {"faithfulness", "answer_relevance"}
    assert all(span_event["name"] == "gen_ai.evaluation.result" for span_event in span["events"])
    scored = next(e for e in events if e["gen_ai.evaluation.name"] == "faithfulness")
    assert 0.0 <= scored["gen_ai.evaluation.score.value"] <= 1.0
    assert scored["gen_ai.evaluation.score.label"] in ("pass", "fail")
    assert scored["ragmon.judge.name"] == "local"
    assert HEADER_SECRET not in daemon.log_path.read_text(encoding="utf-8")


def test_a_replayed_trace_exports_log_events_with_its_flags(
    sink: tuple[Received, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``export_signal: logs``: one log record per result, named gen_ai.evaluation.result, under the
    trace id derived from ragmon's trace id; the reference check's flag is among them."""
    received, url = sink
    trace = {
        "trace_id": "exp-incident-1",
        "question": QUESTION,
        "answer": ANSWER,
        "retrieved_chunks": [{"chunk_id": "dt-3", "text": DT3}, {"chunk_id": "dt-1", "text": DT1}],
        "reference_answer": "Bạn có 7 ngày để đổi trả kể từ ngày nhận hàng.",
    }
    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps(trace, ensure_ascii=False) + "\n", encoding="utf-8")
    monkeypatch.setenv("RAGMON_OTLP__EXPORT_URL", f"{url}/v1/logs")
    monkeypatch.setenv("RAGMON_OTLP__EXPORT_SIGNAL", "logs")
    monkeypatch.setenv("RAGMON_SAMPLE_ALL", "true")
    code = main(
        ["replay", str(traces), "--store", str(tmp_path / "r.db"), "--dlq", str(tmp_path / "d.jsonl")]
    )
    assert code == 0
    wait_until(lambda: bool(received.logs), 30, "log events at the sink")
    records = [
        r
        for request, _ in received.logs
        for rl in request["resourceLogs"]
        for sl in rl["scopeLogs"]
        for r in sl["logRecords"]
    ]
    assert {r["eventName"] for r in records} == {"gen_ai.evaluation.result"}
    expected_id = hashlib.sha256(b"exp-incident-1").digest()[:16].hex()
    assert {_hex(r["traceId"]) for r in records} == {expected_id}
    names = {_attributes(r["attributes"])["gen_ai.evaluation.name"] for r in records}
    assert "faithfulness" in names
    assert "ragmon.flag.numeric_missing" in names
    flag = next(
        _attributes(r["attributes"])
        for r in records
        if _attributes(r["attributes"])["gen_ai.evaluation.name"] == "ragmon.flag.numeric_missing"
    )
    assert "7 ngày" in flag["gen_ai.evaluation.explanation"]


def test_an_unreachable_endpoint_costs_the_replay_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing listens at the export URL: the replay still handles every trace and exits 0."""
    traces = tmp_path / "traces.jsonl"
    lines = [
        json.dumps({"trace_id": f"t{i}", "question": QUESTION, "answer": ANSWER, "retrieved_chunks": [DT1]})
        for i in range(5)
    ]
    traces.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("RAGMON_OTLP__EXPORT_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("RAGMON_SAMPLE_ALL", "true")
    out = tmp_path / "results.jsonl"
    code = main(["replay", str(traces), "--results", str(out), "--store", str(tmp_path / "r.db")])
    assert code == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5
