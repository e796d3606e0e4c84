"""The metric catalog: every Prometheus series ragmon exports, and the methods that record them.

Stages never touch a metric object: they hand their typed results to a recording method here
(``record_assessments``, ``record_judgement``, ...), which knows the labels by name. Version labels
(model_id, prompt_version, index_version, judge) pass through ``LabelCap`` so that a producer that
stamps a new version on every trace cannot blow up cardinality: past the cap, new values become
``other``. Quality histograms also carry ``sample`` ("random" for the unbiased baseline, "targeted"
for policy-picked traces) so dashboards can show the unbiased sample apart.

The per-trace series are ``FastCounter`` and ``FastHistogram``: a dictionary of plain numbers behind
one lock, exposed through a custom collector (prometheus/client_python's documented extension point).
A trace touches about ten series; client_python's own objects cost a lock and a Python loop over the
buckets per update, most of the cheap path's time. Gauges, set rarely, are client_python's.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import msgspec
from prometheus_client import CollectorRegistry, Gauge
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from monitor import __version__
from monitor.triad import QUALITY_NAMES

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

    from monitor.assessment import Assessment, Judgement
    from monitor.flags import Flag

PREFIX = "ragmon"
DEFAULT_LABEL_CAP = 20
OVERFLOW = "other"
UNKNOWN = "unknown"
VERSION_LABELS = ("model_id", "prompt_version", "index_version")
QUALITY_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0)
SCORE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RR_BUCKETS = (0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 1.0)
STAGE_BUCKETS = (1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0)
LATENCY_BUCKETS = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 60.0)
JUDGE_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
CHUNK_COUNT_BUCKETS = (0, 1, 2, 3, 5, 8, 10, 20, 50)
ANSWER_CHARS_BUCKETS = (0, 50, 100, 200, 400, 800, 1600, 3200, 6400)
STAGES = ("signals", "numeric", "golden", "sampling", "judge", "sinks")

Labels = tuple[str, ...]
_VERSIONS_REMEMBERED = 4096  # version combinations whose capped labels are kept


class LabelCap:
    """Caps the distinct values of each label; values past the cap are reported as ``other``."""

    def __init__(self, cap: int = DEFAULT_LABEL_CAP) -> None:
        self._cap = cap
        self._seen: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def __call__(self, label: str, value: str | None) -> str:
        if not value:
            return UNKNOWN
        seen = self._seen.get(label)
        if seen is not None and value in seen:
            return value
        with self._lock:
            seen = self._seen.setdefault(label, set())
            if value in seen:
                return value
            if len(seen) >= self._cap:
                return OVERFLOW
            seen.add(value)
            return value


class Versions(msgspec.Struct, frozen=True):
    """A trace's version labels, capped: what the quality and retrieval series are broken down by."""

    model_id: str
    prompt_version: str
    index_version: str


class _VersionTally:
    """What ``record_assessments`` gathers for one version's traces of a batch."""

    __slots__ = ("traces", "empty", "uncited", "invalid", "top", "mean", "latency")

    def __init__(self, top: list[float], mean: list[float], latency: list[float]) -> None:
        self.traces = self.empty = self.uncited = self.invalid = 0
        self.top, self.mean, self.latency = top, mean, latency


class FastCounter(Collector):
    """A counter family: label values -> count, one lock, exposed at scrape time."""

    def __init__(self, name: str, doc: str, labelnames: Sequence[str] = ()) -> None:
        self.name, self.doc, self.labelnames = name, doc, tuple(labelnames)
        self._values: dict[Labels, float] = {}
        self._lock = threading.Lock()

    def inc(self, labels: Labels = (), amount: float = 1.0) -> None:
        with self._lock:
            self._values[labels] = self._values.get(labels, 0.0) + amount

    def value(self, labels: Labels = ()) -> float:
        """The current count (tests and the summary read it)."""
        return self._values.get(labels, 0.0)

    def collect(self) -> Iterable[Metric]:
        family = CounterMetricFamily(self.name, self.doc, labels=self.labelnames)
        with self._lock:
            items = list(self._values.items())
        for labels, value in items:
            family.add_metric(list(labels), value)
        yield family

    def describe(self) -> Iterable[Metric]:
        yield CounterMetricFamily(self.name, self.doc, labels=self.labelnames)


class FastHistogram(Collector):
    """A histogram family: per label values, bucket counts found by bisection, and the sum."""

    def __init__(self, name: str, doc: str, labelnames: Sequence[str], buckets: Sequence[float]) -> None:
        self.name, self.doc, self.labelnames = name, doc, tuple(labelnames)
        self.bounds = tuple(float(b) for b in buckets)
        self._series: dict[Labels, list[float]] = {}  # bucket counts (last: +Inf), then the sum
        self._lock = threading.Lock()

    def observe(self, labels: Labels, value: float) -> None:
        self.observe_many(labels, (value,))

    def observe_many(self, labels: Labels, values: Sequence[float]) -> None:
        """``observe`` for many values of one series, under one lock."""
        bounds, width = self.bounds, len(self.bounds) + 2
        with self._lock:
            series = self._series.get(labels)
            if series is None:
                series = self._series[labels] = [0.0] * width
            total = series[-1]
            for value in values:
                series[bisect_left(bounds, value)] += 1  # le: value <= bound lands in that bucket
                total += value  # one by one, as ``observe`` adds: the same float sum
            series[-1] = total

    def collect(self) -> Iterable[Metric]:
        family = HistogramMetricFamily(self.name, self.doc, labels=self.labelnames)
        with self._lock:
            items = [(labels, list(series)) for labels, series in self._series.items()]
        for labels, series in items:
            running, buckets = 0.0, []
            for bound, count in zip((*self.bounds, float("inf")), series[:-1], strict=True):
                running += count
                buckets.append(("+Inf" if bound == float("inf") else _bound(bound), running))
            family.add_metric(list(labels), buckets, series[-1])
        yield family

    def describe(self) -> Iterable[Metric]:
        yield HistogramMetricFamily(self.name, self.doc, labels=self.labelnames)


def _bound(value: float) -> str:
    return repr(float(value))


def golden_rank_buckets(k: int) -> tuple[float, ...]:
    """Buckets 1..k for the first-hit rank: ``bucket{le="n"} / count`` is live hit@n."""
    return tuple(float(n) for n in range(1, k + 1))


class Metrics:
    """Every ragmon series, registered on one registry (tests pass a fresh one), and their recording."""

    def __init__(
        self, registry: CollectorRegistry, label_cap: int = DEFAULT_LABEL_CAP, golden_k: int = 5
    ) -> None:
        self.registry = registry
        self.cap = LabelCap(label_cap)
        self.golden_k = golden_k
        self._lag_labels: dict[str, set[tuple[str, str]]] = {}
        self._versions: dict[tuple[str | None, str | None, str | None], Versions] = {}
        self._counters()
        self._histograms()
        self._gauges()

    # --- the catalog -----------------------------------------------------------------------------

    def _counter(self, name: str, doc: str, labels: Sequence[str] = ()) -> FastCounter:
        counter = FastCounter(f"{PREFIX}_{name}", doc, labels)
        self.registry.register(counter)
        return counter

    def _histogram(
        self, name: str, doc: str, labels: Sequence[str], buckets: Sequence[float]
    ) -> FastHistogram:
        histogram = FastHistogram(f"{PREFIX}_{name}", doc, labels, buckets)
        self.registry.register(histogram)
        return histogram

    def _counters(self) -> None:
        c = self._counter
        self.traces = c("traces", "Messages handled, by outcome (ok or invalid).", ["outcome"])
        self.trace_versions = c(
            "trace_versions", "Valid traces by model, prompt and index version.", VERSION_LABELS
        )
        self.invalid = c("invalid_messages", "Messages rejected to the dead-letter sink.", ["reason"])
        self.signal_events = c(
            "signal_events",
            "Traces showing a cheap signal (empty_retrieval, no_citation, invalid_citation).",
            ["signal", "index_version"],
        )
        self.feedback = c("feedback", "User feedback seen, inline or late.", ["rating"])
        self.late_feedback = c(
            "late_feedback", "Late feedback events, by whether their trace was still remembered.", ["outcome"]
        )
        self.sampled = c("sampled", "Traces selected for judging, by reason.", ["reason"])
        self.sampling_skipped = c(
            "sampling_skipped", "Selected traces not judged because the judge budget was spent.", ["reason"]
        )
        self.sampling_guaranteed = c(
            "sampling_guaranteed",
            "Judged traces the shared judge budget could not pay for, by lane (random_floor, "
            "negative_feedback_overflow).",
            ["lane"],
        )
        self.numeric_findings = c(
            "numeric_findings", "Numeric-rule findings, by kind and canonical unit.", ["kind", "unit"]
        )
        self.conditional_muted = c(
            "conditional_muted",
            "Conditional-value findings a reviewer muted (reported, not flagged), by canonical unit.",
            ["unit"],
        )
        self.flagged = c("flagged", "Flags raised, by reason.", ["reason"])
        self.judge_requests = c("judge_requests", "Judge calls, by judge and outcome.", ["judge", "outcome"])
        self.judge_tokens = c(
            "judge_tokens", "Judge tokens spent, by kind (prompt or completion).", ["judge", "kind"]
        )
        self.golden_matched = c("golden_matched", "Traces whose question matched a golden entry.")
        self.dead_letter_errors = c(
            "dead_letter_errors", "Rejected messages the dead-letter sink failed to write."
        )
        self.review_upserts = c("review_upserts", "Cases written to the review store.", ["outcome"])
        self.evaluation_exports = c(
            "evaluation_exports",
            "Evaluation results exported over OTLP: sent, dropped (queue full) or failed (endpoint).",
            ["outcome"],
        )

    def _histograms(self) -> None:
        h = self._histogram
        quality_labels = (*VERSION_LABELS, "judge", "sample")
        self.quality = {
            name: h(
                name,
                f"{name.replace('_', ' ').capitalize()} of judged traces (0..1).",
                quality_labels,
                QUALITY_BUCKETS,
            )
            for name in QUALITY_NAMES
        }
        self.retrieval_top_score = h(
            "retrieval_top_score", "Best retrieval score per trace.", ["index_version"], SCORE_BUCKETS
        )
        self.retrieval_mean_score = h(
            "retrieval_mean_score", "Mean retrieval score per trace.", ["index_version"], SCORE_BUCKETS
        )
        self.chunk_count = h("retrieved_chunks", "Retrieved chunks per trace.", (), CHUNK_COUNT_BUCKETS)
        self.answer_chars = h("answer_length_chars", "Answer length in characters.", (), ANSWER_CHARS_BUCKETS)
        self.answer_latency = h(
            "answer_latency_seconds",
            "The assistant's own latency, from the trace's latency_ms.",
            ["prompt_version"],
            LATENCY_BUCKETS,
        )
        self.golden_rr = h(
            "golden_reciprocal_rank",
            "Reciprocal rank of the first chunk holding an expected section (sum/count = live MRR).",
            ["index_version"],
            RR_BUCKETS,
        )
        self.golden_first_hit = h(
            "golden_first_hit_rank",
            "Rank of the first chunk holding an expected section; a miss counts as k+1 (le=n/count: hit@n).",
            ["index_version"],
            golden_rank_buckets(self.golden_k),
        )
        self.judge_latency = h(
            "judge_latency_seconds", "Time to judge one trace.", ["judge"], JUDGE_LATENCY_BUCKETS
        )
        self.stage_seconds = h(
            "stage_seconds", "Time spent per trace in each pipeline stage.", ["stage"], STAGE_BUCKETS
        )

    def _gauges(self) -> None:
        r = self.registry

        def gauge(name: str, doc: str, labels: Sequence[str] = ()) -> Gauge:
            return Gauge(f"{PREFIX}_{name}", doc, tuple(labels), registry=r)

        self.consumer_lag = gauge(
            "consumer_lag", "Messages behind the end of each assigned partition.", ["topic", "partition"]
        )
        self.committed_lag = gauge(
            "consumer_committed_lag",
            "Messages behind the end of each assigned partition from the committed offset "
            "(what a crash now would replay).",
            ["topic", "partition"],
        )
        self.last_trace_ts = gauge(
            "last_trace_timestamp_seconds", "Unix time at which the last trace was handled."
        )
        self.judge_inflight = gauge("judge_inflight", "Traces being judged now.")
        self.inflight = gauge("inflight_traces", "Traces read but not yet fully handled.")
        self.paused = gauge("source_paused", "1 while the source is paused for backpressure.")
        self.review_pending = gauge("review_pending", "Cases waiting for a reviewer.")
        self.judge_human_agreement = gauge(
            "judge_human_agreement", "Cohen's kappa between judge and reviewers.", ["metric"]
        )
        self.judge_circuit_open = gauge(
            "judge_circuit_open", "1 while the judge's circuit breaker is open.", ["judge"]
        )
        self.build_info = gauge(
            "build_info",
            "Always 1; labels say what is running.",
            ["version", "judge", "judge_prompt", "golden_version"],
        )

    # --- recording -------------------------------------------------------------------------------

    def set_build_info(self, judge: str, judge_prompt: str, golden_version: str) -> None:
        """Publish what is running; replaces any earlier build_info series."""
        self.build_info.clear()
        self.build_info.labels(__version__, judge, judge_prompt, golden_version).set(1)

    def versions(
        self, model_id: str | None, prompt_version: str | None, index_version: str | None
    ) -> Versions:
        """The capped label values for a trace's versions (remembered: a value once capped stays so)."""
        key = (model_id, prompt_version, index_version)
        versions = self._versions.get(key)
        if versions is None:
            versions = Versions(
                self.cap("model_id", model_id),
                self.cap("prompt_version", prompt_version),
                self.cap("index_version", index_version),
            )
            if len(self._versions) < _VERSIONS_REMEMBERED:
                self._versions[key] = versions
        return versions

    def record_invalid(self, reason: str, counted: bool = False) -> None:
        """A dead-lettered message; ``counted`` when its trace was already counted as ok."""
        self.invalid.inc((reason,))
        if not counted:
            self.traces.inc(("invalid",))

    def record_assessments(self, batch: Sequence[Assessment]) -> None:
        """Every per-trace series of the cheap path, for a batch of traces (a late re-run adds nothing
        here: it was counted). Observations are gathered per series, in batch order, then each series
        takes its lock once for the batch. A batch's traces share a few versions (``Versions`` are
        remembered: one object each), so counts are gathered per version and each version's series
        are looked up once per batch, not once per trace."""
        if not batch:
            return
        chunks: list[float] = []
        chars: list[float] = []
        tallies: dict[Versions, _VersionTally] = {}
        by_label: dict[tuple[FastHistogram, Labels], list[float]] = {}
        feedback: dict[str, int] = {}
        findings: dict[tuple[str, str], int] = {}
        muted: dict[str, int] = {}
        golden: list[Assessment] = []
        for a in batch:
            s, v = a.signals, a.versions
            chunks.append(s.chunk_count)
            chars.append(s.answer_chars)
            tally = tallies.get(v)
            if tally is None:
                tally = tallies[v] = self._tally(v, by_label)
            tally.traces += 1
            if s.top_score is not None:
                tally.top.append(s.top_score)
            if s.mean_score is not None:
                tally.mean.append(s.mean_score)
            if s.latency_ms is not None:
                tally.latency.append(s.latency_ms / 1000)
            if s.feedback is not None:
                feedback[s.feedback] = feedback.get(s.feedback, 0) + 1
            if s.empty_retrieval:
                tally.empty += 1
            if not s.citations_present:
                tally.uncited += 1
            if s.invalid_citations:
                tally.invalid += 1
            if a.has_findings:
                for finding in a.findings():
                    findings[finding] = findings.get(finding, 0) + 1
            if a.conditional is not None and a.conditional.muted:
                for unit in a.conditional.muted_units():
                    muted[unit] = muted.get(unit, 0) + 1
            if a.golden is not None:
                golden.append(a)
        self.traces.inc(("ok",), len(batch))
        self.chunk_count.observe_many((), chunks)
        self.answer_chars.observe_many((), chars)
        for (histogram, labels), values in by_label.items():
            if values:
                histogram.observe_many(labels, values)
        for v, tally in tallies.items():
            self._count_version(v, tally)
        for rating, count in feedback.items():
            self.feedback.inc((rating,), count)
        for finding, count in findings.items():
            self.numeric_findings.inc(finding, count)
        for unit, count in muted.items():
            self.conditional_muted.inc((unit,), count)
        if golden:
            self._record_golden(golden)

    def _tally(self, v: Versions, by_label: dict[tuple[FastHistogram, Labels], list[float]]) -> _VersionTally:
        """A version's tally; versions that share a label value share its list of observations, so
        each series sees the batch's values in batch order (the same float sum as one by one)."""

        def values(histogram: FastHistogram, labels: Labels) -> list[float]:
            return by_label.setdefault((histogram, labels), [])

        index = (v.index_version,)
        return _VersionTally(
            values(self.retrieval_top_score, index),
            values(self.retrieval_mean_score, index),
            values(self.answer_latency, (v.prompt_version,)),
        )

    def _count_version(self, v: Versions, tally: _VersionTally) -> None:
        """One version's counts of a batch: its traces and its signal events."""
        self.trace_versions.inc((v.model_id, v.prompt_version, v.index_version), tally.traces)
        for signal, count in (
            ("empty_retrieval", tally.empty),
            ("no_citation", tally.uncited),
            ("invalid_citation", tally.invalid),
        ):
            if count:
                self.signal_events.inc((signal, v.index_version), count)

    def _record_golden(self, batch: Sequence[Assessment]) -> None:
        """The golden matches of a batch: their count, reciprocal ranks and first-hit ranks."""
        self.golden_matched.inc((), len(batch))
        rr: dict[Labels, list[float]] = {}
        first: dict[Labels, list[float]] = {}
        index: Labels
        for a in batch:
            golden = a.golden
            if golden is None or golden.reciprocal_rank is None:
                continue  # None: the trace's chunks carry no section labels
            index = (a.versions.index_version,)
            rr.setdefault(index, []).append(golden.reciprocal_rank)
            rank = golden.first_hit_rank
            first.setdefault(index, []).append(rank if rank is not None else self.golden_k + 1)
        for index, values in rr.items():
            self.golden_rr.observe_many(index, values)
        for index, values in first.items():
            self.golden_first_hit.observe_many(index, values)

    def record_outcome(self, a: Assessment, flags: Sequence[Flag]) -> None:
        """What a handling adds beyond the cheap path: the sampling reasons it was judged for, its flags."""
        if a.sampling.judged:
            for reason in a.sampling.reasons:
                self.sampled.inc((reason,))
        for flag in flags:
            self.flagged.inc((flag.reason,))

    def record_progress(self) -> None:
        """After each batch: when the last trace was handled (``ragmon_last_trace_timestamp_seconds``)."""
        self.last_trace_ts.set(time.time())

    def record_judgement(self, judge: str, a: Assessment, j: Judgement, circuit_open: bool) -> None:
        """One judge call: its outcome, latency and tokens, and the scores on the quality histograms."""
        name = self.cap("judge", judge)
        self.judge_requests.inc((name, j.outcome))
        self.judge_latency.observe((name,), j.elapsed_s)
        self.stage_seconds.observe(("judge",), j.elapsed_s)
        self.judge_circuit_open.labels(name).set(1 if circuit_open else 0)
        result = j.result
        if result is None:
            return
        self.judge_tokens.inc((name, "prompt"), result.usage.prompt_tokens)
        self.judge_tokens.inc((name, "completion"), result.usage.completion_tokens)
        v = a.versions
        labels = (v.model_id, v.prompt_version, v.index_version, name, a.sampling_kind)
        for metric, value in result.scores.items():
            histogram = self.quality.get(metric)
            if histogram is not None and value is not None:
                histogram.observe(labels, value)

    def record_feedback(self, rating: str, outcome: str) -> None:
        """A late feedback event and what it led to."""
        self.feedback.inc((rating,))
        self.late_feedback.inc((outcome,))

    def record_stage(self, stage: str, seconds: float) -> None:
        self.stage_seconds.observe((stage,), seconds)

    def record_lag(self, fetched: dict[tuple[str, str], int], committed: dict[tuple[str, str], int]) -> None:
        """Both lags per assigned partition; partitions no longer assigned (revoked) are dropped."""
        for kind, gauge, values in (
            ("fetched", self.consumer_lag, fetched),
            ("committed", self.committed_lag, committed),
        ):
            for labels in self._lag_labels.get(kind, set()) - set(values):
                gauge.remove(*labels)
            for labels, value in values.items():
                gauge.labels(*labels).set(value)
            self._lag_labels[kind] = set(values)
