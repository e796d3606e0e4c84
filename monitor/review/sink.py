"""The review sink: flagged traces to the review store, off the event loop, and the store's gauges.

Writes go through one worker thread (``ragmon-review``), in order, so a slow or unreachable database
never blocks the loop. A store outage loses nothing short of ``max_queued`` cases: they wait in a
bounded queue and are retried, oldest first, with the next flagged trace. A case the store refuses for
its content is set aside (logged, counted, never retried as is), so it cannot block the cases behind
it. A late-feedback re-run that was not judged only adds its reasons, so the judge's verdicts already
stored are kept. The pending count is refreshed every few seconds and the judge-human agreement every
minute from the cases labelled since the last refresh (not a reload of every labelled case);
``keep_mutes_fresh`` reloads the reviewers' conditional mutes into the check's ``MuteList`` every
``MUTES_REFRESH_S``, on the same worker.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import structlog

from monitor.conditional.mutes import MuteList
from monitor.exceptions import StoreError, StoreRejected
from monitor.metrics import Metrics
from monitor.review.agreement import agreement, publish
from monitor.review.models import Case, CaseFilter
from monitor.review.store import ReviewStore
from monitor.trace import Trace

log = structlog.get_logger(__name__)
PENDING_REFRESH_S = 5.0
AGREEMENT_REFRESH_S = 60.0
MUTES_REFRESH_S = 30.0
MAX_QUEUED_CASES = 10_000
_CLOCK_SKEW = timedelta(seconds=5)  # labels stamped by another replica's clock may lag ours a little


@dataclass(frozen=True, slots=True)
class _Case:
    trace: dict[str, Any]
    record: dict[str, Any]
    reasons: list[str]
    reasons_only: bool  # a late re-run without verdicts: keep the stored result, add the reasons


class ReviewSink:
    """Queues flagged cases and writes them to the store on its own thread; ``aclose`` flushes."""

    every_trace = False

    def __init__(
        self,
        store: ReviewStore,
        metrics: Metrics,
        thresholds: Mapping[str, float],
        max_queued: int = MAX_QUEUED_CASES,
        mutes: MuteList | None = None,
    ) -> None:
        """``mutes``: the conditional check's list, reloaded from the store (None: no check runs); its
        findings are compared as this store writes them (a mute is made from a stored, scrubbed case)."""
        self.store = store
        self.mutes = mutes
        if mutes is not None:
            mutes.store_as(store.stored_text)
        self.metrics = metrics
        self.thresholds = dict(thresholds)
        self.rejected = 0
        self._queue: deque[_Case] = deque()
        self._max_queued = max_queued
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmon-review")
        self._draining = False
        self._outage = False
        self._closed = False
        self._refreshed = 0.0
        self._agreement_at = 0.0
        self._labelled: dict[str, Case] = {}
        self._labelled_since: datetime | None = None
        self._kick()  # first gauges at start

    @property
    def unstored(self) -> int:
        """Flagged cases still waiting for the store (an outage): lost if the process ends now."""
        with self._lock:
            return len(self._queue)

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None:
        """Queue a flagged case (called on the loop; the write happens on the worker)."""
        if not flagged:
            return
        reasons = [flag["reason"] for flag in record["flags"]]
        case = _Case(msgspec.to_builtins(trace), record, reasons, late and record["judge"] is None)
        with self._lock:
            if len(self._queue) >= self._max_queued:
                dropped = self._queue.popleft()
                self.metrics.review_upserts.inc(("dropped",))
                log.error(
                    "review_case_dropped", trace_id=dropped.trace.get("trace_id"), queued=len(self._queue)
                )
            self._queue.append(case)
        self._kick()

    def _kick(self) -> None:
        """Start a drain on the worker unless one is running (that one takes what is queued now)."""
        with self._lock:
            if self._draining:
                return
            self._draining = True
        self._worker.submit(self._drain_then_release)

    def _drain_then_release(self) -> None:
        try:
            self.drain()
        finally:
            with self._lock:
                self._draining = False
                again = bool(self._queue) and not self._outage  # queued during the drain's last look
            if again:
                self._kick()

    def drain(self) -> None:
        """On the worker: write the queued cases, oldest first, then refresh the gauges when due."""
        while True:
            with self._lock:
                if not self._queue:
                    break
                case = self._queue[0]
            if not self._write(case):
                break
        if time.monotonic() - self._refreshed >= PENDING_REFRESH_S:
            self.refresh()

    def _write(self, case: _Case) -> bool:
        """One case; False when the store is unreachable (the case stays first in the queue)."""
        write = self.store.add_reasons if case.reasons_only else self.store.upsert_case
        self._outage = False
        try:
            write(case.trace, case.record, case.reasons)
        except StoreRejected as exc:
            self._set_aside(case, str(exc))
            return True
        except StoreError as exc:
            self._outage = True  # retried with the next flagged case, not in a busy loop
            self.metrics.review_upserts.inc(("error",))
            log.error("review_store_failed", error=str(exc), queued=self.unstored)
            return False
        except Exception as exc:  # noqa: BLE001 - a bug on one case must not block the queue behind it
            log.exception("review_case_failed", trace_id=case.trace.get("trace_id"))
            self._set_aside(case, f"{type(exc).__name__}: {exc}")
            return True
        self._pop(case)
        self.metrics.review_upserts.inc(("ok",))
        return True

    def _set_aside(self, case: _Case, error: str) -> None:
        self._pop(case)
        self.rejected += 1
        self.metrics.review_upserts.inc(("rejected",))
        log.error("review_case_rejected", trace_id=case.trace.get("trace_id"), error=error[:300])

    def _pop(self, case: _Case) -> None:
        with self._lock:
            if self._queue and self._queue[0] is case:
                self._queue.popleft()

    def refresh(self) -> None:
        """Pending count every few seconds; judge-human agreement from new labels every minute."""
        now = time.monotonic()
        self._refreshed = now
        try:
            self.metrics.review_pending.set(self.store.pending_count())
            if now - self._agreement_at >= AGREEMENT_REFRESH_S or not self._agreement_at:
                self._agreement_at = now
                self._refresh_agreement()
        except StoreError as exc:
            log.error("review_store_failed", error=str(exc), during="refresh")

    async def keep_mutes_fresh(self, every_s: float = MUTES_REFRESH_S) -> None:
        """Reload the mutes every ``every_s`` on the store's worker, flagged traffic or not (a quiet
        replica must see a new mute, and an unmute, as soon as a busy one); ends when cancelled."""
        loop = asyncio.get_running_loop()
        while self.mutes is not None and not self._closed:
            await asyncio.sleep(every_s)
            if self._closed:
                break
            await loop.run_in_executor(self._worker, self.reload_mutes)

    def reload_mutes(self) -> None:
        """Replace the check's mutes with the store's; an unreachable store keeps the last ones."""
        if self.mutes is None:
            return
        try:
            mutes = [record.mute for record in self.store.mutes()]
        except StoreError as exc:
            log.error("review_store_failed", error=str(exc), during="mutes")
            return
        if len(mutes) != len(self.mutes):
            log.info("conditional_mutes_loaded", count=len(mutes))
        self.mutes.replace(mutes)

    def _refresh_agreement(self) -> None:
        started = datetime.now(UTC)
        since = self._labelled_since - _CLOCK_SKEW if self._labelled_since is not None else None
        for case in self.store.list_cases(CaseFilter(labelled=True, labelled_since=since)):
            self._labelled[case.trace_id] = case
        self._labelled_since = started
        publish(agreement(self._labelled.values(), self.thresholds), self.metrics.judge_human_agreement)

    async def aclose(self, deadline_s: float = 10.0) -> None:
        """Flush what is queued (within ``deadline_s``), then stop the worker; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(self._worker, self.drain), deadline_s)
        except TimeoutError:
            log.warning("review_flush_timeout", queued=self.unstored, deadline_s=deadline_s)
        self._worker.shutdown(wait=False, cancel_futures=True)

    def wait_idle(self, timeout_s: float = 10.0) -> None:
        """Block until no drain is running (tests, and code off the loop)."""
        deadline = time.monotonic() + timeout_s
        while self._draining and time.monotonic() < deadline:
            time.sleep(0.005)
