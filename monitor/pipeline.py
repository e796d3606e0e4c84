"""The per-trace pipeline: cheap stages on every trace, the judge on sampled ones, then flags and sinks.

``assess`` runs a poll's batch of traces through the cheap stages: signals, numeric rules and, in one
hop to a worker thread for the whole batch, the golden check (it may embed the question: no model
call runs on the event loop); then the sampling decisions, in message order. ``judge`` scores one
sampled trace within a per-trace deadline and never raises. ``finish`` raises the flags, hands the
result record to the sinks, and only then records the metrics: a trace whose sink write fails is
dead-lettered uncounted, so the metrics, the summary and the files agree on one outcome per trace (a
failure to record metrics is logged; the trace, already written, is still acked). ``finish_many``
does the same for a poll's unjudged traces, recording their metrics together.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import msgspec
import structlog

from monitor.assessment import Assessment, Evaluation, Judgement
from monitor.conditional import ConditionalRules
from monitor.exceptions import JudgeError
from monitor.flags import FlagRules
from monitor.golden import GoldenCheck, GoldenChecker
from monitor.judge.base import Judge, judge_input
from monitor.logging import set_message, throttled
from monitor.message import Origin
from monitor.metrics import Metrics
from monitor.numeric import NumericReport, NumericRules
from monitor.reference import check_reference
from monitor.sampler import Sampler
from monitor.sampling import Admission
from monitor.signals import compute_signals
from monitor.trace import Trace

log = structlog.get_logger(__name__)
STAGE_SAMPLE = 16


class SinkLike(Protocol):
    """Receives result records; ``every_trace`` False means flagged traces only (the record is not built
    for the others). ``late`` marks a re-run of a trace on late feedback."""

    @property
    def every_trace(self) -> bool: ...

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None: ...


class Item(msgspec.Struct, frozen=True):
    """One trace to assess: where it came from, and a decision made elsewhere (late feedback)."""

    trace: Trace
    origin: Origin
    preset: Admission | None = None
    raw: bytes | None = None  # the message's bytes, remembered for late feedback

    @property
    def late(self) -> bool:
        return self.preset is not None


class Pipeline:
    """Runs the stages for traces; shared by ``ragmon run`` and ``ragmon replay``."""

    def __init__(
        self,
        metrics: Metrics,
        numeric: NumericRules,
        sampler: Sampler,
        judge: Judge,
        flags: FlagRules,
        sinks: Sequence[SinkLike] = (),
        *,
        golden: GoldenChecker | None = None,
        conditional: ConditionalRules | None = None,
        judge_concurrency: int = 16,
        judge_deadline_s: float = 120.0,
        circuit_open: Callable[[], bool] = lambda: False,
    ) -> None:
        self.metrics, self.numeric, self.sampler, self.judge_impl = metrics, numeric, sampler, judge
        self.flags, self.sinks, self.golden, self.conditional = flags, list(sinks), golden, conditional
        self._judge_slots = asyncio.Semaphore(judge_concurrency)
        self._judge_deadline_s = judge_deadline_s
        self._circuit_open = circuit_open
        self._every_trace = any(sink.every_trace for sink in self.sinks)
        self._golden_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmon-golden")
        self._clock = 0

    async def assess(self, items: Sequence[Item]) -> list[Assessment | Exception]:
        """The cheap path for a batch: each trace's assessment, or the exception that stopped it."""
        numeric = list(map(self._numeric, items))
        golden = await self._golden_batch(items)
        out: list[Assessment | Exception] = []
        assessment = self._assessment
        for item, found, matched in zip(items, numeric, golden, strict=True):
            if isinstance(found, Exception) or isinstance(matched, Exception):
                out.append(found if isinstance(found, Exception) else matched)  # type: ignore[arg-type]
                continue
            set_message(item.origin, item.trace.trace_id)  # sampling may log about this trace
            try:
                out.append(assessment(item, found, matched))
            except Exception as exc:  # noqa: BLE001 - a poison trace is dead-lettered by the loop
                out.append(exc)
        return out

    def _timed(self) -> bool:
        """One trace in ``STAGE_SAMPLE`` has its stages timed: an unbiased sample, at a sixteenth the cost."""
        self._clock = (self._clock + 1) % STAGE_SAMPLE
        return self._clock == 0

    def _numeric(self, item: Item) -> Any:
        timed = self._timed()
        started = time.perf_counter() if timed else 0.0
        try:
            trace = item.trace
            contexts = [c.text for c in trace.retrieved_chunks]
            report = self.numeric.check(trace.answer, contexts, trace.question)
        except Exception as exc:  # noqa: BLE001 - the trace's own failure
            return exc
        if timed:
            self.metrics.record_stage("numeric", time.perf_counter() - started)
        return report

    async def _golden_batch(self, items: Sequence[Item]) -> list[GoldenCheck | None | Exception]:
        checker = self.golden
        if checker is None:
            return [None] * len(items)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._golden_worker, self._golden_all, checker, items)

    def _golden_all(
        self, checker: GoldenChecker, items: Sequence[Item]
    ) -> list[GoldenCheck | None | Exception]:
        """On the golden worker: the reference checks of a batch (the matcher may embed questions)."""
        out: list[GoldenCheck | None | Exception] = []
        started = time.perf_counter()
        for item in items:
            try:
                out.append(checker.check(item.trace))
            except Exception as exc:  # noqa: BLE001 - the trace's own failure
                out.append(exc)
        self.metrics.record_stage("golden", (time.perf_counter() - started) / max(len(items), 1))
        return out

    def _assessment(self, item: Item, numeric: NumericReport, golden: GoldenCheck | None) -> Assessment:
        trace = item.trace
        signals = compute_signals(trace)
        reference = check_reference(self.numeric, trace) if trace.reference_answer else None
        conditional = None
        if self.conditional is not None:
            contexts = [c.text for c in trace.retrieved_chunks]
            conditional = self.conditional.check(trace.question, trace.answer, contexts)
            # times of day no chunk states are numeric findings too: the conditional check reads them
            times = self.conditional.unstated_times(trace.answer, contexts)
            if times:
                numeric = NumericReport((*numeric.unsupported, *times), numeric.conflicting_context)
        sampling = (
            item.preset
            if item.preset is not None
            else self.sampler.decide(trace, signals, numeric, golden, item.raw, reference, conditional)
        )
        versions = self.metrics.versions(trace.model_id, trace.prompt_version, trace.index_version)
        return Assessment(
            trace, item.origin, signals, versions, numeric, golden, sampling, item.late, reference,
            conditional,
        )  # fmt: skip

    async def judge(self, a: Assessment) -> Judgement:
        """Score a sampled trace; a failure becomes the judgement's error, never an exception."""
        judge = self.judge_impl
        async with self._judge_slots:
            self.metrics.judge_inflight.inc()
            started = time.perf_counter()
            result, error = None, None
            try:
                async with asyncio.timeout(self._judge_deadline_s):  # no task of its own, as wait_for makes
                    result = await judge.judge(judge_input(a.trace, a.conditional))
                outcome = "cached" if result.cached else "ok"
                if result.cached:
                    self.sampler.refund(a.sampling)
            except TimeoutError:
                error, outcome = f"deadline of {self._judge_deadline_s:g}s exceeded", "timeout"
            except JudgeError as exc:
                error, outcome = f"{type(exc).__name__}: {exc}", type(exc).__name__
            except Exception as exc:  # noqa: BLE001 - a judge bug is this trace's judge error, not a lost trace
                log.exception("judge_crashed", trace_id=a.trace.trace_id)
                error, outcome = f"{type(exc).__name__}: {exc}", "error"
            finally:
                self.metrics.judge_inflight.dec()
        judgement = Judgement(result, error, outcome, time.perf_counter() - started)
        self.metrics.record_judgement(judge.name, a, judgement, self._circuit_open())
        if error:
            throttled(log, "warning", "judge_failed", trace_id=a.trace.trace_id, error=error)
        return judgement

    def finish(self, a: Assessment, j: Judgement | None = None) -> Evaluation:
        """Raise flags, hand the result record to the sinks that want it, then record the metrics."""
        timed = self._clock == 0  # the trace _numeric chose
        started = time.perf_counter() if timed else 0.0
        evaluation = self._evaluate(a, j)
        self._count(() if a.late else (a,), ((a, evaluation),))
        if timed:
            self.metrics.record_stage("sinks", time.perf_counter() - started)
        return evaluation

    def finish_many(self, batch: Sequence[Assessment]) -> list[Evaluation | Exception]:
        """``finish`` for a batch's unjudged traces: flags and sinks per trace, then the cheap-path
        metrics of every trace that got through, recorded together (one lock per series, not per
        trace). A trace whose flags or sink write failed is returned as its exception, uncounted; a
        failure to record the batch's metrics is logged and loses no trace (they are in the sinks)."""
        started = time.perf_counter()
        out: list[Evaluation | Exception] = []
        counted: list[Assessment] = []
        outcomes: list[tuple[Assessment, Evaluation]] = []
        evaluate = self._evaluate
        for a in batch:
            try:
                evaluation = evaluate(a, None)
            except Exception as exc:  # noqa: BLE001 - this trace's failure; the loop dead-letters it
                out.append(exc)
                continue
            out.append(evaluation)
            if not a.late:
                counted.append(a)
            if evaluation.flags or a.sampling.judged:
                outcomes.append((a, evaluation))
        set_message(None)
        self._count(counted, outcomes)
        if batch:
            self.metrics.record_stage("sinks", (time.perf_counter() - started) / len(batch))
        return out

    def _count(
        self, counted: Sequence[Assessment], outcomes: Sequence[tuple[Assessment, Evaluation]]
    ) -> None:
        """Record the cheap-path series of ``counted`` and what each handling added. The traces are
        already in the sinks and will be acked: a metrics bug is logged, it loses no trace."""
        try:
            self.metrics.record_assessments(counted)
            for a, evaluation in outcomes:
                self.metrics.record_outcome(a, evaluation.counted_flags)
        except Exception:  # noqa: BLE001 - see above
            log.exception("metrics_failed", traces=len(counted))

    def _evaluate(self, a: Assessment, j: Judgement | None) -> Evaluation:
        """The flags, and the result record handed to the sinks that want it."""
        evaluation = Evaluation(a, j, self.flags.evaluate(a, j))
        flagged = bool(evaluation.flags)
        if flagged or self._every_trace:
            set_message(a.origin, a.trace.trace_id)  # a sink may log about it (flags log nothing)
            record = evaluation.record()
            for sink in self.sinks:
                if flagged or sink.every_trace:
                    sink.write(a.trace, record, flagged, a.late)
        return evaluation

    def unwritten(self) -> tuple[int, int]:
        """Flagged cases the sinks set aside (refused for their content) and those still queued."""
        rejected = sum(int(getattr(sink, "rejected", 0)) for sink in self.sinks)
        queued = sum(int(getattr(sink, "unstored", 0)) for sink in self.sinks)
        return rejected, queued

    def close(self) -> None:
        """Stop the golden worker (the composition root calls it at shutdown)."""
        self._golden_worker.shutdown(wait=False, cancel_futures=True)
