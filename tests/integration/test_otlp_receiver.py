"""``ragmon run --source otlp://``: the real OpenTelemetry SDK exporter sends traces over OTLP/HTTP.

The SDK's ``OTLPSpanExporter`` (protobuf, gzip) exports each span as it ends, children first: the
receiver gathers them by trace id and hands the trace on when its root span arrives. OpenInference and
OTel GenAI attributes are both read. A wrong token, a body that is not OTLP and an oversized request
are each refused with the status the OTLP/HTTP spec gives; the unreadable body is also dead-lettered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult

from tests.integration.conftest import DaemonFactory
from tests.support.daemon import Daemon, wait_until
from tests.support.kafka import free_port
from tests.support.otel import genai_trace, openinference_trace

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

TOKEN = "otlp-test-token-5f1c"  # noqa: S105 - a test credential
OK = {"outcome": "ok"}


class RecordingExporter(OTLPSpanExporter):
    """The SDK's own exporter, remembering what each export returned."""

    def __init__(self, endpoint: str, token: str) -> None:
        super().__init__(
            endpoint=endpoint,
            headers={"Authorization": f"Bearer {token}"},
            compression=Compression.Gzip,
            timeout=10,
        )
        self.results: list[SpanExportResult] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = super().export(spans)
        self.results.append(result)
        return result


def _provider(endpoint: str, token: str) -> tuple[TracerProvider, RecordingExporter]:
    exporter = RecordingExporter(endpoint, token)
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-assistant"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


@pytest.fixture
def receiver(daemon_factory: DaemonFactory, tmp_path: Path) -> Iterator[tuple[Daemon, str, Path]]:
    """A daemon whose source is an OTLP/HTTP receiver on a free loopback port, guarded by TOKEN."""
    port = free_port()
    daemon = daemon_factory(
        f"otlp://127.0.0.1:{port}",
        "otlp",
        True,
        env={"RAGMON_OTLP_TOKEN": TOKEN, "RAGMON_OTLP__MAX_REQUEST_BYTES": str(256 * 1024)},
    )
    wait_until(lambda: daemon.assert_running() or daemon.status("/readyz") == 200, 60, "receiver ready")
    yield daemon, f"http://127.0.0.1:{port}/v1/traces", tmp_path / "otlp-dlq.jsonl"


def test_the_sdk_exporter_delivers_openinference_and_genai_traces(receiver: tuple[Daemon, str, Path]) -> None:
    """Every export succeeds; each trace is one ragmon trace with its id, chunks and no dead letter."""
    daemon, endpoint, dlq = receiver
    provider, exporter = _provider(endpoint, TOKEN)
    first, second = openinference_trace(provider), genai_trace(provider)
    provider.shutdown()
    assert exporter.results and all(r is SpanExportResult.SUCCESS for r in exporter.results)
    assert len(exporter.results) == 5  # one request per span: children first, the root last
    daemon.wait_metric("ragmon_traces_total", 2, 60, **OK)
    records = {r["trace_id"]: r for r in daemon.records()}
    assert set(records) == {first, second}
    assert records[first]["signals"]["chunk_count"] == 2  # type: ignore[index]
    assert records[second]["signals"]["chunk_count"] == 0  # type: ignore[index]
    assert daemon.metric("ragmon_traces_total", outcome="invalid") == 0
    assert daemon.stop() == 0
    assert TOKEN not in daemon.log_path.read_text(encoding="utf-8")
    assert not dlq.exists() or not dlq.read_text(encoding="utf-8")


def test_a_wrong_token_is_refused_and_nothing_is_counted(receiver: tuple[Daemon, str, Path]) -> None:
    """401 for the SDK exporter with a wrong bearer token: the export fails, no trace is counted."""
    daemon, endpoint, _ = receiver
    provider, exporter = _provider(endpoint, "not-the-token")
    openinference_trace(provider)
    provider.shutdown()
    assert exporter.results and all(r is SpanExportResult.FAILURE for r in exporter.results)
    response = httpx.post(endpoint, content=b"", headers={"content-type": "application/x-protobuf"})
    assert response.status_code == 401
    assert daemon.metric("ragmon_traces_total", **OK) == 0


def test_unreadable_and_oversized_requests(receiver: tuple[Daemon, str, Path]) -> None:
    """400 naming the reason (and a dead letter with the bytes) for a body that is not OTLP; 413 over
    the size cap; 415 for another content type; 404 elsewhere. The receiver goes on serving."""
    daemon, endpoint, dlq = receiver
    auth = {"Authorization": f"Bearer {TOKEN}"}
    proto = {**auth, "content-type": "application/x-protobuf"}
    bad = httpx.post(endpoint, content=b"\x0a\xff\xff\xff\xff\x0fnot-otlp", headers=proto)
    assert bad.status_code == 400
    bad_json = httpx.post(
        endpoint, content=b'{"resourceSpans": 7}', headers={**auth, "content-type": "application/json"}
    )
    assert bad_json.status_code == 400
    assert "otlp_invalid" in bad_json.json()["message"]
    assert httpx.post(endpoint, content=b"x" * (300 * 1024), headers=proto).status_code == 413
    assert (
        httpx.post(endpoint, content=b"{}", headers={**auth, "content-type": "text/plain"}).status_code == 415
    )
    assert (
        httpx.post(endpoint.replace("/v1/traces", "/v1/logs"), content=b"", headers=proto).status_code == 404
    )
    daemon.wait_metric("ragmon_traces_total", 2, 30, outcome="invalid")
    letters = [json.loads(line) for line in dlq.read_text(encoding="utf-8").splitlines()]
    assert [letter["reason"] for letter in letters] == ["otlp_invalid", "otlp_invalid"]
    provider, exporter = _provider(endpoint, TOKEN)
    genai_trace(provider)
    provider.shutdown()
    assert all(r is SpanExportResult.SUCCESS for r in exporter.results)
    daemon.wait_metric("ragmon_traces_total", 1, 60, **OK)
