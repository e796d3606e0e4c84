"""The metric catalog: every Prometheus series ragmon exports, built against an injected registry.

Version labels (model_id, prompt_version, index_version, judge) pass through ``LabelCap`` so that a
producer that stamps a new version on every trace cannot blow up cardinality: past the cap, new
values become ``other``. Quality histograms also carry ``sample`` ("random" for the unbiased baseline,
"targeted" for policy-picked traces) so dashboards can show the unbiased sample apart.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from monitor import __version__

PREFIX = "ragmon"
DEFAULT_LABEL_CAP = 20
OVERFLOW = "other"
UNKNOWN = "unknown"
VERSION_LABELS = ("model_id", "prompt_version", "index_version")
QUALITY_METRICS = ("faithfulness", "answer_relevance", "context_relevance", "context_precision")
QUALITY_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0)
SCORE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RR_BUCKETS = (0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 1.0)
STAGE_BUCKETS = (1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0)
LATENCY_BUCKETS = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 60.0)
JUDGE_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
CHUNK_COUNT_BUCKETS = (0, 1, 2, 3, 5, 8, 10, 20, 50)
ANSWER_CHARS_BUCKETS = (0, 50, 100, 200, 400, 800, 1600, 3200, 6400)


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


def golden_rank_buckets(k: int) -> tuple[float, ...]:
    """Buckets 1..k for the first-hit rank: ``bucket{le="n"} / count`` is live hit@n."""
    return tuple(float(n) for n in range(1, k + 1))


class Metrics:
    """Every ragmon series, registered on one registry (tests pass a fresh one)."""

    def __init__(self, registry: CollectorRegistry, label_cap: int = DEFAULT_LABEL_CAP, golden_k: int = 5):
        self.registry = registry
        self.cap = LabelCap(label_cap)
        self.golden_k = golden_k
        self._counters(registry)
        self._histograms(registry)
        self._gauges(registry)

    def _counters(self, r: CollectorRegistry) -> None:
        def counter(name: str, doc: str, labels: Iterable[str] = ()) -> Counter:
            return Counter(f"{PREFIX}_{name}", doc, tuple(labels), registry=r)

        self.traces = counter("traces", "Messages handled, by outcome (ok or invalid).", ["outcome"])
        self.trace_versions = counter(
            "trace_versions", "Valid traces by model, prompt and index version.", VERSION_LABELS
        )
        self.invalid = counter("invalid_messages", "Messages rejected to the dead-letter sink.", ["reason"])
        self.signal_events = counter(
            "signal_events",
            "Traces showing a cheap signal (empty_retrieval, no_citation, invalid_citation).",
            ["signal", "index_version"],
        )
        self.feedback = counter("feedback", "User feedback seen, inline or late.", ["rating"])
        self.late_feedback = counter(
            "late_feedback", "Late feedback events, by whether their trace was still remembered.", ["outcome"]
        )
        self.sampled = counter("sampled", "Traces selected for judging, by reason.", ["reason"])
        self.sampling_skipped = counter(
            "sampling_skipped", "Selected traces not judged because the judge budget was spent.", ["reason"]
        )
        self.numeric_findings = counter(
            "numeric_findings", "Numeric-rule findings, by kind and canonical unit.", ["kind", "unit"]
        )
        self.flagged = counter("flagged", "Flags raised, by reason.", ["reason"])
        self.judge_requests = counter(
            "judge_requests", "Judge calls, by judge and outcome.", ["judge", "outcome"]
        )
        self.judge_tokens = counter(
            "judge_tokens", "Judge tokens spent, by kind (prompt or completion).", ["judge", "kind"]
        )
        self.golden_matched = counter("golden_matched", "Traces whose question matched a golden entry.")
        self.dead_letter_errors = counter(
            "dead_letter_errors", "Rejected messages the dead-letter sink failed to write."
        )
        self.review_upserts = counter("review_upserts", "Cases written to the review store.", ["outcome"])

    def _histograms(self, r: CollectorRegistry) -> None:
        quality_labels = (*VERSION_LABELS, "judge", "sample")
        self.quality = {
            name: Histogram(
                f"{PREFIX}_{name}",
                f"{name.replace('_', ' ').capitalize()} of judged traces (0..1).",
                quality_labels,
                buckets=QUALITY_BUCKETS,
                registry=r,
            )
            for name in QUALITY_METRICS
        }
        self.retrieval_top_score = Histogram(
            f"{PREFIX}_retrieval_top_score",
            "Best retrieval score per trace.",
            ["index_version"],
            buckets=SCORE_BUCKETS,
            registry=r,
        )
        self.retrieval_mean_score = Histogram(
            f"{PREFIX}_retrieval_mean_score",
            "Mean retrieval score per trace.",
            ["index_version"],
            buckets=SCORE_BUCKETS,
            registry=r,
        )
        self.chunk_count = Histogram(
            f"{PREFIX}_retrieved_chunks",
            "Retrieved chunks per trace.",
            buckets=CHUNK_COUNT_BUCKETS,
            registry=r,
        )
        self.answer_chars = Histogram(
            f"{PREFIX}_answer_length_chars",
            "Answer length in characters.",
            buckets=ANSWER_CHARS_BUCKETS,
            registry=r,
        )
        self.answer_latency = Histogram(
            f"{PREFIX}_answer_latency_seconds",
            "The assistant's own latency, from the trace's latency_ms.",
            ["prompt_version"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.golden_rr = Histogram(
            f"{PREFIX}_golden_reciprocal_rank",
            "Reciprocal rank of the first chunk holding an expected section (sum/count = live MRR).",
            ["index_version"],
            buckets=RR_BUCKETS,
            registry=r,
        )
        self.golden_first_hit = Histogram(
            f"{PREFIX}_golden_first_hit_rank",
            "Rank of the first chunk holding an expected section; a miss counts as k+1 (le=n/count: hit@n).",
            ["index_version"],
            buckets=golden_rank_buckets(self.golden_k),
            registry=r,
        )
        self.judge_latency = Histogram(
            f"{PREFIX}_judge_latency_seconds",
            "Time to judge one trace.",
            ["judge"],
            buckets=JUDGE_LATENCY_BUCKETS,
            registry=r,
        )
        self.stage_seconds = Histogram(
            f"{PREFIX}_stage_seconds",
            "Time spent per trace in each pipeline stage.",
            ["stage"],
            buckets=STAGE_BUCKETS,
            registry=r,
        )

    def _gauges(self, r: CollectorRegistry) -> None:
        self.consumer_lag = Gauge(
            f"{PREFIX}_consumer_lag",
            "Messages behind the end of each assigned partition.",
            ["topic", "partition"],
            registry=r,
        )
        self.committed_lag = Gauge(
            f"{PREFIX}_consumer_committed_lag",
            "Messages behind the end of each assigned partition from the committed offset "
            "(what a crash now would replay).",
            ["topic", "partition"],
            registry=r,
        )
        self.last_trace_ts = Gauge(
            f"{PREFIX}_last_trace_timestamp_seconds",
            "Unix time at which the last trace was handled.",
            registry=r,
        )
        self.judge_inflight = Gauge(f"{PREFIX}_judge_inflight", "Traces being judged now.", registry=r)
        self.inflight = Gauge(
            f"{PREFIX}_inflight_traces", "Traces read but not yet fully handled.", registry=r
        )
        self.paused = Gauge(
            f"{PREFIX}_source_paused", "1 while the source is paused for backpressure.", registry=r
        )
        self.review_pending = Gauge(f"{PREFIX}_review_pending", "Cases waiting for a reviewer.", registry=r)
        self.judge_human_agreement = Gauge(
            f"{PREFIX}_judge_human_agreement",
            "Cohen's kappa between judge and reviewers.",
            ["metric"],
            registry=r,
        )
        self.judge_circuit_open = Gauge(
            f"{PREFIX}_judge_circuit_open",
            "1 while the judge's circuit breaker is open.",
            ["judge"],
            registry=r,
        )
        self.build_info = Gauge(
            f"{PREFIX}_build_info",
            "Always 1; labels say what is running.",
            ["version", "judge", "judge_prompt", "golden_version"],
            registry=r,
        )

    def set_build_info(self, judge: str, judge_prompt: str, golden_version: str) -> None:
        """Publish what is running; replaces any earlier build_info series."""
        self.build_info.clear()
        self.build_info.labels(__version__, judge, judge_prompt, golden_version).set(1)

    def versions(
        self, model_id: str | None, prompt_version: str | None, index_version: str | None
    ) -> tuple[str, str, str]:
        """The capped label values for a trace's versions."""
        return (
            self.cap("model_id", model_id),
            self.cap("prompt_version", prompt_version),
            self.cap("index_version", index_version),
        )
