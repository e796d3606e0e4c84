"""The per-trace pipeline: cheap stages on every trace, the judge on sampled ones, then flags and sinks.

Stages are optional collaborators passed in by the composition root (``monitor.app``); the pipeline
knows their small interfaces, not their internals. ``assess`` is synchronous and cheap; ``judge`` is
async and bounded by a semaphore and a per-trace deadline; ``finish`` raises flags, updates metrics
and writes the result record to the sinks.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from monitor.exceptions import JudgeError
from monitor.golden import GoldenCheck, GoldenChecker
from monitor.judge.base import Judge, JudgeChunk, JudgeInput, JudgeResult, Scores
from monitor.logging import throttled
from monitor.metrics import QUALITY_METRICS, Metrics
from monitor.numeric import NumericReport, NumericRules
from monitor.signals import Signals, compute_signals
from monitor.sources.base import Origin
from monitor.trace import Trace

log = structlog.get_logger(__name__)


class SinkLike(Protocol):
    """Receives result records; ``every_trace`` False means flagged traces only (the record is not built
    for the others). ``late`` marks a re-run of a trace on late feedback."""

    @property
    def every_trace(self) -> bool: ...

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None: ...


# What a late-feedback re-run can add to a trace; its other flags were counted when it was first handled.
LATE_FLAGS = frozenset(
    {"negative_feedback", "low_faithfulness", "low_answer_relevance", "low_context_relevance", "judge_error"}
)

FlagEvaluator = Callable[["Evaluation"], list[dict[str, Any]]]
Sampler = Callable[["Evaluation"], tuple[tuple[str, ...], bool, bool]]


@dataclass(slots=True)
class Evaluation:
    """Everything learned about one trace as it flows through the pipeline."""

    trace: Trace
    origin: Origin
    signals: Signals
    labels: tuple[str, str, str]
    numeric: NumericReport | None = None
    golden: GoldenCheck | None = None
    sampled: tuple[str, ...] = ()
    to_judge: bool = False
    random_sample: bool = False
    judge: JudgeResult | None = None
    judge_error: str | None = None
    flags: list[dict[str, Any]] = field(default_factory=list)
    late: bool = False  # re-assessed on late feedback: per-trace counters were exported the first time
    exported: bool = False  # its metrics are out: a failure after this must not count it again
    refund: Callable[[], None] | None = None  # gives the judge budget back when the verdicts were cached

    @property
    def counted_flags(self) -> list[dict[str, Any]]:
        """The flags this handling adds to the counts: a late re-run adds only what feedback can raise."""
        if not self.late:
            return self.flags
        return [flag for flag in self.flags if flag["reason"] in LATE_FLAGS]

    def record(self) -> dict[str, Any]:
        """The result record (DESIGN.md): one JSON object per trace."""
        t = self.trace
        return {
            "trace_id": t.trace_id,
            "origin": self.origin.as_dict(),
            "versions": {
                "model_id": t.model_id,
                "prompt_version": t.prompt_version,
                "index_version": t.index_version,
            },
            "signals": self.signals.as_dict(),
            "numeric": self.numeric.as_dict() if self.numeric is not None else None,
            "golden": self.golden.as_dict() if self.golden is not None else None,
            "sampled": list(self.sampled),
            "scores": self.judge.scores.as_dict() if self.judge is not None else None,
            "judge": _judge_block(self.judge, self.judge_error),
            "flags": self.flags,
        }


def _judge_block(result: JudgeResult | None, error: str | None) -> dict[str, Any] | None:
    if result is None:
        return {"error": error} if error else None
    v = result.verdicts
    return {
        "name": result.judge,
        "prompt_version": result.prompt_version,
        "claims": [
            {"text": c.text, "supported": c.supported, "chunk_ids": list(c.chunk_ids), "score": c.score}
            for c in v.claims
        ],
        "chunk_useful": list(v.chunk_useful),
        "reverse_questions": list(v.reverse_questions),
        "noncommittal": list(v.noncommittal),
        "abstained": v.abstained,
        "calls": result.usage.calls,
        "tokens": {"prompt": result.usage.prompt_tokens, "completion": result.usage.completion_tokens},
        "cached": result.cached,
        "error": error,
    }


def judge_input(trace: Trace) -> JudgeInput:
    """What the judge reads of a trace; chunks without an id are named by rank (#1, #2, ...)."""
    chunks = tuple(
        JudgeChunk(chunk_id=c.chunk_id or f"#{i}", text=c.text)
        for i, c in enumerate(trace.retrieved_chunks, 1)
    )
    return JudgeInput(trace.trace_id, trace.question, trace.answer, chunks, trace.language)


class Pipeline:
    """Runs the stages for one trace; shared by ``ragmon run`` and ``ragmon replay``."""

    def __init__(
        self,
        metrics: Metrics,
        *,
        numeric: NumericRules | None = None,
        golden: GoldenChecker | None = None,
        sampler: Sampler | None = None,
        judge: Judge | None = None,
        judge_concurrency: int = 16,
        judge_deadline_s: float = 120.0,
        circuit_open: Callable[[], bool] | None = None,
        flag_evaluator: FlagEvaluator | None = None,
        sinks: Sequence[SinkLike] = (),
    ) -> None:
        self.metrics = metrics
        self.numeric = numeric
        self.golden = golden
        self.sampler = sampler
        self.judge_impl = judge
        self.flag_evaluator = flag_evaluator
        self.sinks = list(sinks)
        self._judge_slots = asyncio.Semaphore(judge_concurrency)
        self._judge_deadline_s = judge_deadline_s
        self._circuit_open = circuit_open
        self._every_trace = any(sink.every_trace for sink in self.sinks)
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        stage = metrics.stage_seconds
        self._stage = {
            name: stage.labels(name)
            for name in ("signals", "numeric", "golden", "sampling", "judge", "sinks")
        }

    def assess(
        self, trace: Trace, origin: Origin, preset: tuple[tuple[str, ...], bool] | None = None
    ) -> Evaluation:
        """The cheap path: signals, numeric rules, golden match and the sampling decision.

        ``preset`` is a sampling decision made elsewhere (late feedback), used instead of the sampler.
        """
        t0 = time.perf_counter()
        ev = Evaluation(
            trace,
            origin,
            compute_signals(trace),
            self.metrics.versions(trace.model_id, trace.prompt_version, trace.index_version),
        )
        t1 = time.perf_counter()
        self._stage["signals"].observe(t1 - t0)
        if self.numeric is not None:
            ev.numeric = self.numeric.check(trace.answer, [c.text for c in trace.retrieved_chunks])
            t1 = self._timed("numeric", t1)
        if self.golden is not None:
            ev.golden = self.golden.check(trace)
            t1 = self._timed("golden", t1)
        if preset is not None:
            ev.sampled, ev.to_judge = preset
        elif self.sampler is not None:
            ev.sampled, ev.to_judge, ev.random_sample = self.sampler(ev)
            self._timed("sampling", t1)
        ev.to_judge = ev.to_judge and self.judge_impl is not None
        return ev

    def _timed(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self._stage[stage].observe(now - since)
        return now

    async def judge(self, ev: Evaluation) -> None:
        """Score a sampled trace; a failure becomes ``judge_error`` on the evaluation, never an exception."""
        judge = self.judge_impl
        if judge is None:
            return
        async with self._judge_slots:
            self.metrics.judge_inflight.inc()
            started = time.perf_counter()
            try:
                ev.judge = await asyncio.wait_for(judge.judge(judge_input(ev.trace)), self._judge_deadline_s)
                outcome = "cached" if ev.judge.cached else "ok"
                if ev.judge.cached and ev.refund is not None:
                    ev.refund()
            except TimeoutError:
                ev.judge_error, outcome = f"deadline of {self._judge_deadline_s:g}s exceeded", "timeout"
            except JudgeError as exc:
                ev.judge_error, outcome = f"{type(exc).__name__}: {exc}", type(exc).__name__
            except Exception as exc:  # noqa: BLE001 - a judge bug is this trace's judge_error, not a lost trace
                log.exception("judge_crashed", trace_id=ev.trace.trace_id)
                ev.judge_error, outcome = f"{type(exc).__name__}: {exc}", "error"
            finally:
                self.metrics.judge_inflight.dec()
            elapsed = time.perf_counter() - started
        self._observe_judge(judge.name, ev, outcome, elapsed)

    def _observe_judge(self, name: str, ev: Evaluation, outcome: str, elapsed: float) -> None:
        m = self.metrics
        judge_label = m.cap("judge", name)
        m.judge_requests.labels(judge_label, outcome).inc()
        m.judge_latency.labels(judge_label).observe(elapsed)
        circuit_open = self._circuit_open is not None and self._circuit_open()
        m.judge_circuit_open.labels(judge_label).set(1 if circuit_open else 0)  # a local judge has none
        self._stage["judge"].observe(elapsed)
        if ev.judge_error:
            throttled(log, "warning", "judge_failed", trace_id=ev.trace.trace_id, error=ev.judge_error)
            return
        if ev.judge is None:
            return
        m.judge_tokens.labels(judge_label, "prompt").inc(ev.judge.usage.prompt_tokens)
        m.judge_tokens.labels(judge_label, "completion").inc(ev.judge.usage.completion_tokens)
        self._observe_scores(
            ev.judge.scores, ev.labels, judge_label, "random" if ev.random_sample else "targeted"
        )

    def _observe_scores(self, scores: Scores, labels: tuple[str, str, str], judge: str, sample: str) -> None:
        values = scores.as_dict()
        for name in QUALITY_METRICS:
            value = values[name]
            if value is not None:
                self.metrics.quality[name].labels(*labels, judge, sample).observe(value)

    def finish(self, ev: Evaluation) -> dict[str, Any] | None:
        """Raise flags, hand the result record to the sinks that want it, then export the trace's metrics.

        Metrics go out last: a failure before them (a results file that cannot be written) leaves
        the trace uncounted, so the loop dead-letters it and the metrics, the summary and the files
        agree on one outcome per trace. The review sink never raises (it sets refused cases aside).
        """
        t0 = time.perf_counter()
        if self.flag_evaluator is not None:
            ev.flags = self.flag_evaluator(ev)
        flagged = bool(ev.flags)
        record = ev.record() if flagged or self._every_trace else None
        if record is not None:
            for sink in self.sinks:
                if flagged or sink.every_trace:
                    sink.write(ev.trace, record, flagged, ev.late)
        self._export(ev)
        self._stage["sinks"].observe(time.perf_counter() - t0)
        return record

    def unwritten(self) -> tuple[int, int]:
        """Flagged cases the sinks set aside (refused for their content) and those still queued."""
        rejected = sum(int(getattr(sink, "rejected", 0)) for sink in self.sinks)
        queued = sum(int(getattr(sink, "unstored", 0)) for sink in self.sinks)
        return rejected, queued

    def _child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, cached: bounded because every label value is capped."""
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def _export(self, ev: Evaluation) -> None:
        if not ev.late:
            self._export_trace(ev)
        ev.exported = True
        m = self.metrics
        if ev.to_judge:
            for reason in ev.sampled:
                m.sampled.labels(reason).inc()
        for flag in ev.counted_flags:
            m.flagged.labels(flag["reason"]).inc()
        m.last_trace_ts.set(time.time())

    def _export_trace(self, ev: Evaluation) -> None:
        m, s, labels, child = self.metrics, ev.signals, ev.labels, self._child
        index = labels[2]
        child(m.traces, "ok").inc()
        child(m.trace_versions, *labels).inc()
        m.chunk_count.observe(s.chunk_count)
        m.answer_chars.observe(s.answer_chars)
        if s.top_score is not None:
            child(m.retrieval_top_score, index).observe(s.top_score)
        if s.mean_score is not None:
            child(m.retrieval_mean_score, index).observe(s.mean_score)
        if s.latency_ms is not None:
            child(m.answer_latency, labels[1]).observe(s.latency_ms / 1000)
        if s.feedback is not None:
            child(m.feedback, s.feedback).inc()
        if s.empty_retrieval:
            child(m.signal_events, "empty_retrieval", index).inc()
        if not s.citations_present:
            child(m.signal_events, "no_citation", index).inc()
        if s.invalid_citations:
            child(m.signal_events, "invalid_citation", index).inc()
        self._export_findings(ev)

    def _export_findings(self, ev: Evaluation) -> None:
        m = self.metrics
        if ev.numeric is not None:
            for kind, unit in ev.numeric.findings:
                m.numeric_findings.labels(kind, unit).inc()
        if ev.golden is not None:
            golden = ev.golden
            m.golden_matched.inc()
            if golden.reciprocal_rank is not None:  # None: the trace's chunks carry no section labels
                m.golden_rr.labels(ev.labels[2]).observe(golden.reciprocal_rank)
                rank = golden.first_hit_rank
                m.golden_first_hit.labels(ev.labels[2]).observe(rank if rank is not None else m.golden_k + 1)
            if golden.numeric is not None:
                for kind, unit in golden.numeric.findings:
                    m.numeric_findings.labels(kind, unit).inc()
