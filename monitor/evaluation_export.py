"""Evaluation results out, in the open standard: OpenTelemetry ``gen_ai.evaluation.result`` events.

Each exported trace becomes one ``ragmon.evaluation`` span in the evaluated trace (its OTel trace id
when the trace came in over OTLP, else 16 bytes of the SHA-256 of ragmon's trace id), parented to the
evaluated root span (``metadata.otel.span_id``), with one ``gen_ai.evaluation.result`` event per judge
score and per flag. With ``otlp.export_signal: logs`` the same events are OTLP log records with
``event_name`` set (the newer form of OTel events) carrying the same trace and span ids. The
convention has no evaluator identity yet, so the judge's name and prompt version ride along as
``ragmon.judge.name`` and ``ragmon.judge.version`` on the span and on every event.

Delivery is best effort and off the event loop: ``write`` puts the span in a bounded queue (full:
dropped and counted), one thread posts batches (protobuf) and retries 429, 5xx and connection errors
with backoff (``Retry-After`` honoured) before counting the batch failed. Nothing here can stop or
slow the trace stream; ``ragmon_evaluation_exports_total{outcome}`` says what was sent.
"""

from __future__ import annotations

import hashlib
import queue
import re
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx
import structlog
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from monitor import __version__
from monitor.metrics import Metrics
from monitor.pii import Scrubber
from monitor.trace import Trace

log = structlog.get_logger(__name__)

EVENT_NAME = "gen_ai.evaluation.result"
SPAN_NAME = "ragmon.evaluation"
Signal = Literal["spans", "logs"]
Every = Literal["judged", "flagged", "all"]
SIGNAL_PATHS: Mapping[str, str] = {"spans": "/v1/traces", "logs": "/v1/logs"}
MAX_QUEUED = 10_000
BATCH = 256
FLUSH_EVERY_S = 1.0
MAX_ATTEMPTS = 5
RETRIED_STATUSES = frozenset({408, 429, 502, 503, 504})
_HEX_SPAN = re.compile(r"[0-9a-f]{16}")
_HEX_TRACE = re.compile(r"[0-9a-f]{32}")


def endpoint(url: str, signal: Signal) -> str:
    """A base URL (``http://collector:4318``) gains the signal's path, as OTEL_EXPORTER_OTLP_ENDPOINT does;
    a URL with a path is used as given."""
    parts = urlsplit(url)
    if parts.path in ("", "/"):
        return urlunsplit(parts._replace(path=SIGNAL_PATHS[signal]))
    return url


def otel_ids(trace: Trace) -> tuple[bytes, bytes]:
    """The evaluated trace's OTel trace id and root span id (empty when the trace did not come over OTLP)."""
    otel = trace.metadata.get("otel") if isinstance(trace.metadata, Mapping) else None
    parent = otel.get("span_id") if isinstance(otel, Mapping) else None
    if _HEX_TRACE.fullmatch(trace.trace_id):
        trace_id = bytes.fromhex(trace.trace_id)
    else:
        trace_id = hashlib.sha256(trace.trace_id.encode("utf-8", "surrogatepass")).digest()[:16]
    span_id = bytes.fromhex(parent) if isinstance(parent, str) and _HEX_SPAN.fullmatch(parent) else b""
    return trace_id, span_id


def evaluation_events(
    record: Mapping[str, Any], thresholds: Mapping[str, float]
) -> list[dict[str, str | float]]:
    """One event's attributes per judge score (label pass/fail at the flag threshold) and per flag."""
    judge = record.get("judge") or {}
    identity = {
        "ragmon.judge.name": str(judge.get("name") or "none"),
        "ragmon.judge.version": str(judge.get("prompt_version") or "none"),
    }
    events: list[dict[str, str | float]] = []
    for name, value in sorted((record.get("scores") or {}).items()):
        if value is None:
            continue
        threshold = thresholds.get(name)
        event: dict[str, str | float] = {
            "gen_ai.evaluation.name": name,
            "gen_ai.evaluation.score.value": float(value),
            **identity,
        }
        if threshold is not None:
            event["gen_ai.evaluation.score.label"] = "pass" if value >= threshold else "fail"
            explanation = f"{name} {value:.2f} against the flag threshold {threshold:g}"
            event["gen_ai.evaluation.explanation"] = explanation
        events.append(event)
    for flag in record.get("flags") or []:
        events.append(
            {
                "gen_ai.evaluation.name": f"ragmon.flag.{flag['reason']}",
                "gen_ai.evaluation.score.label": str(flag.get("severity", "warning")),
                "gen_ai.evaluation.explanation": str(flag.get("detail") or flag["reason"]),
                **identity,
            }
        )
    return events


def _attributes(values: Mapping[str, str | float]) -> list[KeyValue]:
    out = []
    for key, value in values.items():
        any_value = AnyValue(double_value=value) if isinstance(value, float) else AnyValue(string_value=value)
        out.append(KeyValue(key=key, value=any_value))
    return out


def evaluation_span(trace: Trace, events: Sequence[Mapping[str, str | float]], now_ns: int) -> Span:
    """The ``ragmon.evaluation`` span: a child of the evaluated root span, one span event per result."""
    trace_id, parent = otel_ids(trace)
    span_id = hashlib.sha256(trace_id + b"ragmon.evaluation" + str(now_ns).encode()).digest()[:8]
    identity = {k: v for k, v in (events[0] if events else {}).items() if k.startswith("ragmon.judge.")}
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        name=SPAN_NAME,
        kind=Span.SPAN_KIND_INTERNAL,
        start_time_unix_nano=now_ns,
        end_time_unix_nano=now_ns,
        attributes=_attributes({"ragmon.trace_id": trace.trace_id, **identity}),
        events=[
            Span.Event(time_unix_nano=now_ns, name=EVENT_NAME, attributes=_attributes(e)) for e in events
        ],
    )


def evaluation_logs(
    trace: Trace, events: Sequence[Mapping[str, str | float]], now_ns: int
) -> list[LogRecord]:
    """The same events as OTLP log records named ``gen_ai.evaluation.result``, correlated by ids."""
    trace_id, parent = otel_ids(trace)
    return [
        LogRecord(
            time_unix_nano=now_ns,
            observed_time_unix_nano=now_ns,
            event_name=EVENT_NAME,
            trace_id=trace_id,
            span_id=parent,
            attributes=_attributes({"ragmon.trace_id": trace.trace_id, **e}),
        )
        for e in events
    ]


_RESOURCE = Resource(attributes=_attributes({"service.name": "ragmon", "service.version": __version__}))
_SCOPE = InstrumentationScope(name="ragmon", version=__version__)


def export_request(signal: Signal, items: Sequence[Any]) -> bytes:
    """One OTLP/HTTP protobuf body holding the queued spans or log records."""
    if signal == "spans":
        spans = ResourceSpans(resource=_RESOURCE, scope_spans=[ScopeSpans(scope=_SCOPE, spans=items)])
        return ExportTraceServiceRequest(resource_spans=[spans]).SerializeToString()
    logs = ResourceLogs(resource=_RESOURCE, scope_logs=[ScopeLogs(scope=_SCOPE, log_records=items)])
    return ExportLogsServiceRequest(resource_logs=[logs]).SerializeToString()


class EvaluationExporter:
    """A result sink that exports evaluation events over OTLP/HTTP from its own thread."""

    def __init__(
        self,
        url: str,
        metrics: Metrics,
        thresholds: Mapping[str, float],
        *,
        signal: Signal = "spans",
        every: Every = "judged",
        headers: Mapping[str, str] | None = None,
        timeout_s: float = 10.0,
        scrubber: Scrubber | None = None,
        max_queued: int = MAX_QUEUED,
        flush_every_s: float = FLUSH_EVERY_S,
    ) -> None:
        self.url = endpoint(url, signal)
        self.every_trace = every != "flagged"
        self._metrics, self._thresholds, self._signal, self._every = metrics, thresholds, signal, every
        self._scrub = scrubber
        self._queue: queue.Queue[Any] = queue.Queue(max_queued)
        self._flush_every_s = flush_every_s
        self._client = httpx.Client(
            timeout=timeout_s,
            headers={**(headers or {}), "Content-Type": "application/x-protobuf"},
        )
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragmon-otlp-export", daemon=True)
        self._thread.start()

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None:
        """Queue the trace's evaluation events; never blocks, never raises for the endpoint's sake."""
        if late or (self._every == "judged" and not record.get("scores")):
            return
        clean = self._scrub.scrub_obj(record) if self._scrub is not None else record
        events = evaluation_events(clean, self._thresholds)
        if not events:
            return
        now = time.time_ns()
        items = (
            [evaluation_span(trace, events, now)]
            if self._signal == "spans"
            else evaluation_logs(trace, events, now)
        )
        for item in items:
            try:
                self._queue.put_nowait(item)
            except queue.Full:
                self._metrics.evaluation_exports.inc(("dropped",))

    def close(self, deadline_s: float = 5.0) -> None:
        """Send what is queued (within the deadline), then stop the thread and the client."""
        self._closing.set()
        self._thread.join(deadline_s)
        self._client.close()

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch:
                self._send(batch)
            elif self._closing.is_set():
                return

    def _take(self) -> list[Any]:
        try:
            first = self._queue.get(timeout=0 if self._closing.is_set() else self._flush_every_s)
        except queue.Empty:
            return []
        batch = [first]
        while len(batch) < BATCH:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _send(self, batch: list[Any]) -> None:
        body = export_request(self._signal, batch)
        delay = 0.5
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                response = self._client.post(self.url, content=body)
            except httpx.HTTPError as exc:
                problem, retry_after = f"{type(exc).__name__}: {exc}", None
            else:
                if response.is_success:
                    self._metrics.evaluation_exports.inc(("sent",), len(batch))
                    return
                problem = f"HTTP {response.status_code}: {response.text[:200]}"
                retry_after = _retry_after(response)
                if response.status_code not in RETRIED_STATUSES:
                    break
            if attempt == MAX_ATTEMPTS or self._closing.is_set():
                break
            time.sleep(min(retry_after if retry_after is not None else delay, 30.0))
            delay *= 2
        self._metrics.evaluation_exports.inc(("failed",), len(batch))
        log.warning("evaluation_export_failed", url=self.url, items=len(batch), error=problem)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    return float(value) if value.isdigit() else None
