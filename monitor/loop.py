"""The loop: messages from one source through the pipeline to the sinks, with acks, backpressure, shutdown.

The asyncio loop owns the pipeline; the source runs on its own thread (``SourceThread``) because
kafka-python consumers are not thread-safe and a stdin read may block. Each poll's messages are
decoded and assessed as one batch (the golden check of the batch makes one hop off the loop); cheap
traces are finished inline, sampled ones become judge tasks bounded by ``max_inflight``: past it the
source is paused, so memory stays bounded when the judge is slow. A message is acked only once fully
handled, and commits cover only the contiguous handled prefix (at-least-once). The composition root
(``monitor.app``) builds the engine and closes the source through ``close_source``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import signal
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import structlog

from monitor.assessment import Assessment, Judgement
from monitor.exceptions import SourceError, TraceError
from monitor.feedback_window import LateFeedback
from monitor.logging import set_message, throttled
from monitor.message import Message
from monitor.metrics import Metrics
from monitor.pipeline import Item, Pipeline
from monitor.progress import Progress
from monitor.server import Health
from monitor.sources.base import DeadLetterSink, Source
from monitor.summary import Summary
from monitor.trace import FeedbackEvent, Trace, parse_message

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


class Engine:
    """Drives one source through the pipeline until it is exhausted or ``stop`` is set."""

    def __init__(
        self,
        max_inflight: int,
        shutdown_deadline_s: float,
        max_message_bytes: int,
        metrics: Metrics,
        pipeline: Pipeline,
        source: Source,
        dead_letter: DeadLetterSink,
        health: Health,
        progress: Progress | None = None,
    ) -> None:
        self.metrics, self.pipeline, self.source, self.dead_letter = metrics, pipeline, source, dead_letter
        self.health, self.progress = health, progress
        self.summary = Summary()
        self._deadline_s = shutdown_deadline_s
        self._max_bytes = max_message_bytes
        self._worker = SourceThread()
        self._tasks: set[asyncio.Task[None]] = set()
        self._paused = False
        self._high = max_inflight
        self._low = max(1, max_inflight // 2)
        self._last_commit = self._last_lag = time.monotonic()
        self._dead_letter_retry: list[tuple[Message, str, str]] = []
        self._closed = False
        self._debug = True  # whether debug lines are on, asked once per batch (until the first: yes)

    async def run(self, stop: asyncio.Event) -> Summary:
        """Consume until the source is exhausted or ``stop`` is set; then drain and commit."""
        await self._worker.call(self.source.open)
        self.health.ready = lambda: self.source.ready
        log.info("source_opened", source=self.source.name)
        try:
            await self._consume(stop)
        finally:
            await self._drain()
        return self.summary

    async def _consume(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if self.source.exhausted:
                if not self._tasks:
                    return
                await asyncio.wait(self._tasks, timeout=POLL_TIMEOUT_S)
                continue
            await self._apply_backpressure()
            room = max(1, self._high - len(self._tasks))  # never read past max_inflight
            messages = await self._poll_unless_stopped(stop, min(self.source.batch_size, room))
            self.health.tick()
            if messages:
                await self._handle_batch(messages)
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

    async def _handle_batch(self, messages: list[Message]) -> None:
        """Decode every message, assess the traces together, then finish or judge each, in order.

        A feedback event waits for the traces before it in the batch to be assessed: it may be about
        one of them, which must be in the feedback window by then.
        """
        items: list[Item] = []
        sources: list[Message] = []  # the message of each item (parallel lists: no pair per trace)
        self.summary.messages += len(messages)
        for message in messages:
            parsed = self._decode(message)
            if parsed is None:
                continue
            if isinstance(parsed, FeedbackEvent):
                if items:
                    await self._dispatch(items, sources)
                    items, sources = [], []
                late = self._late(parsed, message)
                if late is not None:
                    items.append(late)
                    sources.append(message)
                continue
            items.append(Item(parsed, message.origin, None, message.value))
            sources.append(message)
        if items:
            await self._dispatch(items, sources)
        set_message(None)  # tasks started above keep their own copy of the context
        self.metrics.record_progress()

    async def _dispatch(self, items: list[Item], sources: list[Message]) -> None:
        """Judge the sampled traces in tasks of their own; finish the others together, in order."""
        assessed = await self.pipeline.assess(items)
        cheap: list[Assessment] = []
        cheap_sources: list[Message] = []
        for item, message, a in zip(items, sources, assessed, strict=True):
            if isinstance(a, Exception):
                set_message(message.origin, item.trace.trace_id)
                log.error("trace_failed", stage="assess", exc_info=a)
                self._reject(message, PROCESSING_ERROR, f"{type(a).__name__}: {a}")
            elif a.sampling.judged:
                set_message(message.origin, item.trace.trace_id)  # the task inherits the context
                task = asyncio.create_task(self._judge_and_finish(a, message))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            else:
                cheap.append(a)
                cheap_sources.append(message)
        if cheap:
            self._finish_many(cheap, cheap_sources)

    def _finish_many(self, cheap: list[Assessment], sources: list[Message]) -> None:
        """Finish unjudged traces as one batch: counted, summarized and acked together. Should the batch
        path itself fail, each trace is finished on its own, so one bad trace cannot stop the rest."""
        try:
            evaluations = self.pipeline.finish_many(cheap)
        except Exception:  # noqa: BLE001 - fall back to the per-trace path, which isolates each trace
            log.exception("batch_finish_failed", traces=len(cheap))
            for a, message in zip(cheap, sources, strict=True):
                set_message(message.origin, a.trace.trace_id)
                self._finish(a, None, message)
            return
        handled: list[Message] = []
        debug = self._debug = log.is_enabled_for(logging.DEBUG)  # once per batch: an ask binds a logger
        add = self.summary.add
        for a, message, evaluation in zip(cheap, sources, evaluations, strict=True):
            if isinstance(evaluation, Exception):
                set_message(message.origin, a.trace.trace_id)
                log.error("trace_failed", stage="finish", exc_info=evaluation)
                self._reject(message, PROCESSING_ERROR, f"{type(evaluation).__name__}: {evaluation}")
                continue
            add(evaluation)
            if debug and evaluation.flags:
                set_message(message.origin, a.trace.trace_id)
                log.debug("trace_flagged", reasons=[flag.reason for flag in evaluation.flags])
            handled.append(message)
        if handled:
            self.source.ack(*handled)

    def _decode(self, message: Message) -> Trace | FeedbackEvent | None:
        """The trace or feedback event a message carries; None when it was dead-lettered (the batch
        counted its messages)."""
        try:
            if message.rejected is not None:
                set_message(message.origin)
                self._reject(message, *message.rejected)
                return None
            decoded = message.decoded  # the record reader's canonical read of the same bytes
            if decoded is not None and len(message.value) <= self._max_bytes:
                return decoded  # type: ignore[no-any-return]
            return parse_message(message.value, self._max_bytes)
        except TraceError as exc:
            set_message(message.origin)
            self._reject(message, exc.reason, exc.detail)
        except Exception as exc:  # noqa: BLE001 - a poison message must not stop the loop; it is dead-lettered
            set_message(message.origin)
            log.exception("message_failed")
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}")
        return None

    def _late(self, event: FeedbackEvent, message: Message) -> Item | None:
        """The remembered trace late feedback re-runs, or None when there is nothing to re-run."""
        set_message(message.origin, event.trace_id)
        self.summary.feedback_events += 1
        try:
            late: LateFeedback = self.pipeline.sampler.late(event)
        except Exception as exc:  # noqa: BLE001 - same poison policy as decoding: dead-lettered, loop goes on
            log.exception("message_failed")
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}")
            return None
        self.metrics.record_feedback(event.rating, late.outcome)
        log.debug("late_feedback", rating=event.rating, outcome=late.outcome)
        if late.trace is None or late.outcome == "not_negative":
            self.source.ack(message)
            return None
        return Item(late.trace, message.origin, preset=late.admission)

    async def _judge_and_finish(self, a: Assessment, message: Message) -> None:
        try:
            judgement = await self.pipeline.judge(a)  # the task inherited the message's logging context
        except Exception as exc:  # noqa: BLE001 - same poison policy as the cheap path
            log.exception("trace_failed", stage="judge")
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}")
            return
        self._finish(a, judgement, message)

    def _finish(self, a: Assessment, j: Judgement | None, message: Message) -> None:
        try:
            evaluation = self.pipeline.finish(a, j)
        except Exception as exc:  # noqa: BLE001 - nothing was counted: the trace is dead-lettered once
            log.exception("trace_failed", stage="finish")
            self._reject(message, PROCESSING_ERROR, f"{type(exc).__name__}: {exc}")
            return
        self.summary.add(evaluation)
        if self._debug and evaluation.flags:  # as the last batch found it
            log.debug("trace_flagged", reasons=[flag.reason for flag in evaluation.flags])
        self.source.ack(message)

    def _reject(self, message: Message, reason: str, detail: str) -> None:
        """Dead-letter a message that was not counted as a trace."""
        self.metrics.record_invalid(reason)
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
        self.source.ack(message)
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
        if now - self._last_commit < self.source.commit_interval_s:
            return
        self._last_commit = now
        self._retry_dead_letters()
        try:
            await self._worker.call(self._commit)
        except SourceError as exc:  # e.g. dead-letter records not confirmed: nothing is committed this time
            log.error("commit_skipped", error=str(exc))

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
        self.metrics.record_lag(fetched, committed)

    async def _drain(self) -> None:
        """Finish in-flight work within the deadline, cancel the rest (they stay unacked), commit."""
        if self._tasks:
            log.info("draining", inflight=len(self._tasks), deadline_s=self._deadline_s)
            _, pending = await asyncio.wait(self._tasks, timeout=self._deadline_s)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
                log.warning("drain_deadline_exceeded", cancelled=len(pending))
        self._retry_dead_letters()
        self.summary.unhandled = len(self._dead_letter_retry)
        try:
            await asyncio.wait_for(self._worker.call(self._commit), self._deadline_s)
        except SourceError as exc:  # unconfirmed dead letters: leave the offsets for redelivery
            log.error("final_commit_skipped", error=str(exc))
        except TimeoutError:
            log.warning("final_commit_timeout", deadline_s=self._deadline_s)
        if self.progress is not None:
            self.progress.close()

    async def close_source(self) -> None:
        """Close the source on its own thread (the composition root's exit stack calls this once)."""
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.wait_for(self._worker.call(self.source.close), self._deadline_s)
            log.info("source_closed", source=self.source.name)
        except TimeoutError:
            # The source thread is stuck (a blocking read); it is a daemon thread and dies with the process.
            log.warning("source_close_timeout", source=self.source.name, deadline_s=self._deadline_s)
        finally:
            self._worker.stop()

    def record_unwritten(self) -> None:
        """Copy the sinks' set-aside and still-queued counts into the summary (after they flushed)."""
        self.summary.review_rejected, self.summary.review_unstored = self.pipeline.unwritten()


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
