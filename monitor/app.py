"""The composition root and the loop: source -> pipeline -> sinks, with acks, backpressure and shutdown.

The asyncio loop owns the pipeline; the source runs on its own daemon thread (``SourceThread``)
because kafka-python consumers are not thread-safe and a stdin read may block. Cheap traces are
finished inline; sampled traces become tasks bounded by ``max_inflight``: past it the source is
paused, so memory stays bounded when the judge is slow. A message is acked only once fully handled,
and commits cover only the contiguous handled prefix (at-least-once).
"""

from __future__ import annotations

import asyncio
import os
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import structlog

from monitor.config import Settings
from monitor.exceptions import SourceError, TraceError
from monitor.logging import set_message, throttled
from monitor.metrics import Metrics
from monitor.pipeline import Evaluation, Pipeline
from monitor.progress import Progress
from monitor.server import Health
from monitor.sources.base import DeadLetterSink, Message, Source
from monitor.trace import FeedbackEvent, Trace, parse_message
from monitor.wiring import LateDecision

log = structlog.get_logger(__name__)
T = TypeVar("T")
POLL_TIMEOUT_S = 0.2
LAG_EXPORT_S = 1.0  # lag gauges follow the source's own refresh, whatever the commit interval
PROCESSING_ERROR = "processing_error"


class SourceThread:
    """Runs every source call on one daemon thread and hands results back to the event loop."""

    def __init__(self, name: str = "ragmon-source") -> None:
        self._calls: queue.SimpleQueue[tuple[Callable[[], Any], asyncio.Future[Any]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._calls.put((lambda: fn(*args), future))
        return await future

    def stop(self) -> None:
        self._calls.put(None)

    def _serve(self) -> None:
        while (item := self._calls.get()) is not None:
            fn, future = item
            loop = future.get_loop()
            try:
                result = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine, re-raised there
                loop.call_soon_threadsafe(_settle, future, None, exc)
            else:
                loop.call_soon_threadsafe(_settle, future, result, None)


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if future.cancelled():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)


@dataclass
class Summary:
    """What a run handled; ``ragmon replay`` prints it as a table."""

    messages: int = 0
    traces: int = 0
    invalid: Counter[str] = field(default_factory=Counter)
    feedback_events: int = 0
    judged: int = 0
    judge_errors: int = 0
    flagged: Counter[str] = field(default_factory=Counter)
    sampled: Counter[str] = field(default_factory=Counter)
    golden_matched: int = 0
    unhandled: int = 0  # rejected messages the dead-letter sink could not take: redelivered on Kafka
    review_rejected: int = 0  # flagged cases the review store refused for their content
    review_unstored: int = 0  # flagged cases still queued for an unreachable review store at exit
    score_sums: dict[str, float] = field(default_factory=dict)  # running sums: a daemon runs for months
    score_counts: Counter[str] = field(default_factory=Counter)

    def add(self, ev: Evaluation) -> None:
        self.traces += not ev.late  # a late-feedback re-run is the same trace again
        self.flagged.update(f["reason"] for f in ev.counted_flags)
        self.golden_matched += ev.golden is not None and not ev.late
        if ev.judge is None and ev.judge_error is None:
            return
        self.judged += 1
        self.judge_errors += ev.judge_error is not None
        self.sampled.update(ev.sampled)
        scores = ev.judge.scores.as_dict() if ev.judge is not None else {}
        for name, value in scores.items():
            if value is not None:
                self.score_sums[name] = self.score_sums.get(name, 0.0) + value
                self.score_counts[name] += 1

    def mean_scores(self) -> dict[str, float]:
        """Mean of each quality metric over the judged traces where it was defined."""
        return {name: self.score_sums[name] / n for name, n in sorted(self.score_counts.items())}


class Engine:
    """Drives one source through the pipeline until it is exhausted or ``stop`` is set."""

    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        pipeline: Pipeline,
        source: Source,
        dead_letter: DeadLetterSink,
        health: Health,
        late_feedback: Callable[[FeedbackEvent], LateDecision] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.pipeline = pipeline
        self.source = source
        self.dead_letter = dead_letter
        self.health = health
        self.late_feedback = late_feedback
        self.progress = progress
        self.summary = Summary()
        self._worker = SourceThread()
        self._tasks: set[asyncio.Task[None]] = set()
        self._paused = False
        self._high = settings.max_inflight
        self._low = max(1, settings.max_inflight // 2)
        self._commit_every_s = settings.kafka.commit_interval_s
        self._last_commit = self._last_lag = time.monotonic()
        self._lag_labels: set[tuple[str, str]] = set()
        self._committed_labels: set[tuple[str, str]] = set()
        self._dead_letter_retry: list[tuple[Message, str, str]] = []

    async def run(self, stop: asyncio.Event) -> Summary:
        """Consume until the source is exhausted or ``stop`` is set; then drain, commit and close."""
        await self._worker.call(self.source.open)
        self.health.ready = lambda: self.source.ready
        log.info("source_opened", source=self.source.name)
        try:
            await self._consume(stop)
        finally:
            await self._shutdown()
        return self.summary

    async def _consume(self, stop: asyncio.Event) -> None:
        max_records = self.settings.kafka.max_poll_records
        while not stop.is_set():
            if self.source.exhausted:
                if not self._tasks:
                    return
                await asyncio.wait(self._tasks, timeout=POLL_TIMEOUT_S)
                continue
            await self._apply_backpressure()
            room = max(1, self._high - len(self._tasks))  # never read past max_inflight
            messages = await self._poll_unless_stopped(stop, min(max_records, room))
            self.health.tick()
            for message in messages:
                self._handle(message)
            if self.progress is not None:
                self.progress.update(self.summary.messages, *self.source.progress())
            if self._paused and self._tasks:
                await asyncio.wait(self._tasks, timeout=POLL_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
            await self._commit_if_due()

    async def _poll_unless_stopped(self, stop: asyncio.Event, max_records: int) -> list[Message]:
        """Poll, but give up waiting when a stop is asked for: a stdin read may block indefinitely.

        Messages a given-up poll returns later are never handled nor acked, so Kafka redelivers them.
        """
        poll = asyncio.ensure_future(self._worker.call(self.source.poll, max_records, POLL_TIMEOUT_S))
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait({poll, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if poll.done():
            return poll.result()
        poll.cancel()
        return []

    async def _apply_backpressure(self) -> None:
        """Pause the source past ``max_inflight`` traces in flight, resume at half; on the source thread."""
        inflight = len(self._tasks)
        self.metrics.inflight.set(inflight)
        if not self._paused and inflight >= self._high:
            self._paused = True
            await self._worker.call(self.source.pause)
            self.metrics.paused.set(1)
            log.info("source_paused", inflight=inflight)
        elif self._paused and inflight <= self._low:
            self._paused = False
            await self._worker.call(self.source.resume)
            self.metrics.paused.set(0)
            log.info("source_resumed", inflight=inflight)

    def _handle(self, message: Message) -> None:
        self.summary.messages += 1
        set_message(message.origin)
        try:
            parsed = parse_message(message.value, self.settings.max_message_bytes)
        except TraceError as exc:
            self._reject(message, exc.reason, exc.detail)
            return
        finally:
            set_message(None)
        set_message(message.origin, parsed.trace_id)
        try:
            if isinstance(parsed, FeedbackEvent):
                self._feedback(parsed, message)
            else:
                self._start(parsed, message)
        except Exception as exc:  # noqa: BLE001 - a poison message must not stop the daemon; it is dead-lettered
            log.exception("message_failed")
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}")
        finally:
            set_message(None)  # tasks started above keep their own copy of the context

    def _start(self, trace: Trace, message: Message, late: LateDecision | None = None) -> None:
        ev: Evaluation | None = None
        try:
            preset = (late.reasons, late.judge) if late is not None else None
            ev = self.pipeline.assess(trace, message.origin, preset)
            ev.late = late is not None
            if not ev.to_judge:
                self._finish(ev, message)
                return
        except Exception as exc:  # noqa: BLE001 - a poison trace must not stop the daemon; it is dead-lettered
            log.exception("trace_failed", stage="assess" if ev is None else "finish")
            counted = ev is not None and ev.exported
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}", counted=counted)
            return
        task = asyncio.create_task(self._judge_and_finish(ev, message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _judge_and_finish(self, ev: Evaluation, message: Message) -> None:
        try:
            await self.pipeline.judge(ev)  # the task inherited the message's logging context
            self._finish(ev, message)
        except Exception as exc:  # noqa: BLE001 - same poison policy as the cheap path
            log.exception("trace_failed", stage="judge")
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}", counted=ev.exported)

    def _finish(self, ev: Evaluation, message: Message) -> None:
        self.pipeline.finish(ev)
        self.summary.add(ev)
        if ev.flags:
            reasons = [f["reason"] for f in ev.flags]
            log.debug("trace_flagged", reasons=reasons)
        self.source.ack(message.origin)

    def _feedback(self, event: FeedbackEvent, message: Message) -> None:
        self.summary.feedback_events += 1
        self.metrics.feedback.labels(event.rating).inc()
        decision = self.late_feedback(event) if self.late_feedback is not None else LateDecision("unknown")
        self.metrics.late_feedback.labels(decision.outcome).inc()
        log.debug("late_feedback", rating=event.rating, outcome=decision.outcome)
        if decision.trace is None:
            self.source.ack(message.origin)
            return
        self._start(decision.trace, message, late=decision)

    def _reject(self, message: Message, reason: str, detail: str, counted: bool = False) -> None:
        """Dead-letter a message; ``counted`` when its trace was already counted as ok."""
        self.metrics.invalid.labels(reason).inc()
        if not counted:
            self.metrics.traces.labels("invalid").inc()
        self.summary.invalid[reason] += 1
        throttled(log, "warning", "message_rejected", reason=reason, detail=detail)
        self._dead_letter(message, reason, detail)

    def _dead_letter(self, message: Message, reason: str, detail: str) -> bool:
        """Send to the dead-letter sink and ack; on failure keep it (unacked) for a retry at each commit."""
        try:
            self.dead_letter.send(message, reason, detail)
        except Exception as exc:  # noqa: BLE001 - kept for retry and unacked: never silently dropped
            self.metrics.dead_letter_errors.inc()
            log.error("dead_letter_failed", reason=reason, error=f"{type(exc).__name__}: {exc}")
            self._dead_letter_retry.append((message, reason, detail))
            return False
        self.source.ack(message.origin)
        return True

    def _retry_dead_letters(self) -> None:
        retry, self._dead_letter_retry = self._dead_letter_retry, []
        for index, (message, reason, detail) in enumerate(retry):
            if not self._dead_letter(message, reason, detail):
                self._dead_letter_retry.extend(retry[index + 1 :])  # the sink is still down; try later
                return

    async def _commit_if_due(self) -> None:
        now = time.monotonic()
        if now - self._last_lag >= LAG_EXPORT_S:
            self._last_lag = now
            await self._worker.call(self._export_lag)
        if now - self._last_commit < self._commit_every_s:
            return
        self._last_commit = now
        self._retry_dead_letters()
        try:
            await self._worker.call(self._commit)
        except SourceError as exc:  # e.g. dead-letter records not confirmed: nothing is committed this time
            log.error("commit_skipped", error=str(exc))

    def _commit_and_close(self) -> None:
        try:
            self._commit()
        except SourceError as exc:  # unconfirmed dead letters: leave the offsets for redelivery
            log.error("final_commit_skipped", error=str(exc))
        finally:
            self.source.close()

    def _commit(self) -> None:
        """On the source thread: commit the handled prefix, export lag.

        Dead letters are confirmed by the source's own commit (``KafkaSource.before_commit``, also on a
        rebalance); the file sink flushes every record as it writes it.
        """
        self.source.commit()
        self._export_lag()

    def _export_lag(self) -> None:
        """On the source thread: both lags per partition (the source refreshes them every few seconds)."""
        fetched = {(t, str(p)): v for (t, p), v in self.source.lag().items()}
        committed = {(t, str(p)): v for (t, p), v in self.source.committed_lag().items()}
        for gone in self._lag_labels - fetched.keys():  # revoked: another replica reports it now
            self.metrics.consumer_lag.remove(*gone)
            if gone in self._committed_labels:
                self.metrics.committed_lag.remove(*gone)
        for labels, value in fetched.items():
            self.metrics.consumer_lag.labels(*labels).set(value)
        for labels, value in committed.items():
            self.metrics.committed_lag.labels(*labels).set(value)
        self._lag_labels, self._committed_labels = set(fetched), set(committed)

    async def _shutdown(self) -> None:
        """Finish in-flight work within the deadline, cancel the rest (they stay unacked), commit, close."""
        if self._tasks:
            log.info("draining", inflight=len(self._tasks), deadline_s=self.settings.shutdown_deadline_s)
            _, pending = await asyncio.wait(self._tasks, timeout=self.settings.shutdown_deadline_s)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
                log.warning("drain_deadline_exceeded", cancelled=len(pending))
        self._retry_dead_letters()
        self.summary.unhandled = len(self._dead_letter_retry)
        self.summary.review_rejected, self.summary.review_unstored = self.pipeline.unwritten()
        deadline = self.settings.shutdown_deadline_s
        try:
            await asyncio.wait_for(self._worker.call(self._commit_and_close), deadline)
            log.info("source_closed", source=self.source.name)
        except TimeoutError:
            # The source thread is stuck (a blocking read); it is a daemon thread and dies with the process.
            log.warning("source_close_timeout", source=self.source.name, deadline_s=deadline)
        finally:
            self.dead_letter.close()
            self._worker.stop()
            if self.progress is not None:
                self.progress.close()


def install_signal_handlers(stop: asyncio.Event) -> None:
    """SIGTERM/SIGINT ask for a graceful stop; a second one exits at once."""
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        if stop.is_set():
            os._exit(128 + signum)  # the second Ctrl-C: the user wants out now
        log.info("shutdown_requested", signal=signal.Signals(signum).name)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum)
