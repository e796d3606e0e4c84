"""Late feedback: remember recent traces so a thumbs-down that arrives after its trace can still sample it.

``FeedbackWindow`` is an LRU of recent traces bounded twice, by count and by size, so memory stays
flat however fast traces arrive. It keeps each trace as its message's bytes, not as parsed objects:
a window of 100,000 parsed traces is millions of objects for the garbage collector to walk on every
full collection, a window of bytes is a few hundred thousand; a late feedback re-parses its trace.
``handle_late_feedback`` applies the sampling
policy to a late feedback event: a negative rating on a remembered, not-yet-judged trace is admitted
under reason ``negative_feedback``. Feedback for a trace no longer (or never) remembered is an
ordinary outcome (``unknown``), not an error: with N replicas, or after a restart, it is expected.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Literal

import msgspec

from monitor.sampling import NOT_SAMPLED, SAMPLE_ALL, Admission, SamplingPolicy, TraceSignals
from monitor.trace import FeedbackEvent, Trace, parse_message

DEFAULT_MAX_TRACES = 100_000
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
# An entry's cost beyond its bytes (the entry, the OrderedDict node, the key), Python 3.11.
_ENTRY_OVERHEAD = 240

LateOutcome = Literal["unknown", "not_negative", "already_judged", "not_picked", "sampled", "skipped"]
LATE_OUTCOMES: tuple[LateOutcome, ...] = (
    "unknown",
    "not_negative",
    "already_judged",
    "not_picked",
    "sampled",
    "skipped",
)


class Remembered(msgspec.Struct, frozen=True):
    """A remembered trace as the bytes it came in, whether it was judged, and its size in memory."""

    raw: bytes
    judged: bool
    nbytes: int

    @property
    def trace(self) -> Trace:
        """The trace, parsed again (the bytes were valid when they were remembered)."""
        parsed = parse_message(self.raw, len(self.raw) + 1)
        assert isinstance(parsed, Trace)  # noqa: S101 - only traces are remembered
        return parsed


_BYTES_OBJECT = sys.getsizeof(b"")  # a bytes object's size beyond its length (its header and NUL)


def approx_bytes(raw: bytes) -> int:
    """Memory held by one entry: the bytes object, the LRU node and the entry itself."""
    return len(raw) + _BYTES_OBJECT + _ENTRY_OVERHEAD  # sys.getsizeof of bytes, without the call


class FeedbackWindow:
    """The most recent traces: at most ``max_traces`` and about ``max_bytes``; oldest evicted first."""

    def __init__(self, max_traces: int = DEFAULT_MAX_TRACES, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_traces < 0 or max_bytes < 0:
            raise ValueError("max_traces and max_bytes must not be negative")
        self.max_traces = max_traces
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, Remembered] = OrderedDict()
        self._nbytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Approximate bytes held now."""
        return self._nbytes

    def remember(self, trace: Trace, judged: bool, raw: bytes | None = None) -> bool:
        """Keep ``trace`` (as ``raw``, its message's bytes) as the newest entry; False if it alone exceeds
        the byte cap or the window is off."""
        raw = raw if raw is not None else msgspec.json.encode(trace)
        nbytes = approx_bytes(raw)
        if self.max_traces == 0 or nbytes > self.max_bytes:
            return False
        trace_id, entries = trace.trace_id, self._entries
        with self._lock:
            old = entries.pop(trace_id, None)
            entries[trace_id] = Remembered(raw, judged, nbytes)
            self._nbytes += nbytes - (old.nbytes if old is not None else 0)
            while len(entries) > self.max_traces or self._nbytes > self.max_bytes:
                self._nbytes -= entries.popitem(last=False)[1].nbytes  # the oldest
        return True

    def get(self, trace_id: str) -> Remembered | None:
        """The remembered trace, or None; a hit counts as recent use."""
        with self._lock:
            entry = self._entries.get(trace_id)
            if entry is not None:
                self._entries.move_to_end(trace_id)
            return entry

    def mark_judged(self, trace_id: str) -> None:
        """Record that a remembered trace has been judged, so later feedback does not judge it twice."""
        with self._lock:
            entry = self._entries.get(trace_id)
            if entry is not None:
                self._entries[trace_id] = msgspec.structs.replace(entry, judged=True)


class LateFeedback(msgspec.Struct, frozen=True):
    """What a late feedback event led to; ``trace`` is the remembered trace with the feedback attached."""

    outcome: LateOutcome
    trace: Trace | None = None
    admission: Admission = NOT_SAMPLED


def handle_late_feedback(
    window: FeedbackWindow, policy: SamplingPolicy, event: FeedbackEvent
) -> LateFeedback:
    """Apply the sampling policy to a late feedback event; count ``outcome`` in ragmon_late_feedback_total."""
    entry = window.get(event.trace_id)
    if entry is None:
        return LateFeedback("unknown")
    trace = msgspec.structs.replace(entry.trace, feedback=event.feedback)
    if event.rating != "negative":
        return LateFeedback("not_negative", trace)
    if entry.judged:
        return LateFeedback("already_judged", trace)
    wanted = {"negative_feedback", SAMPLE_ALL}
    reasons = [r for r in policy.candidates(trace, TraceSignals(negative_feedback=True)) if r in wanted]
    if not reasons:
        return LateFeedback("not_picked", trace)
    admission = policy.admit(trace, reasons)
    if not admission.judged:
        return LateFeedback("skipped", trace, admission)
    window.mark_judged(trace.trace_id)
    return LateFeedback("sampled", trace, admission)
