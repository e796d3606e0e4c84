"""The sampling stage: the policy applied to a trace's cheap results, and the late-feedback window.

``Sampler.decide`` turns what the cheap stages found (signals, numeric findings, a golden match) into
the policy's inputs and returns its ``Admission``; every decided trace is remembered, so feedback that
arrives later (``Sampler.late``) can still send it to the judge. In a replay the budget's clock is the
traces' own time (``EventClock``), moved forward here before each decision.
"""

from __future__ import annotations

from monitor.budget import EventClock
from monitor.conditional import ConditionalReport
from monitor.feedback_window import FeedbackWindow, LateFeedback, handle_late_feedback
from monitor.golden import GoldenCheck
from monitor.numeric import NumericReport
from monitor.reference import ReferenceCheck
from monitor.sampling import Admission, SamplingPolicy, TraceSignals
from monitor.signals import Signals
from monitor.trace import FeedbackEvent, Trace


class Sampler:
    """Decides which traces the judge sees; one per process (it holds the budget and the window)."""

    def __init__(
        self, policy: SamplingPolicy, window: FeedbackWindow, clock: EventClock | None = None
    ) -> None:
        self.policy = policy
        self.window = window
        self.clock = clock

    def decide(
        self,
        trace: Trace,
        signals: Signals,
        numeric: NumericReport | None,
        golden: GoldenCheck | None,
        raw: bytes | None = None,
        reference: ReferenceCheck | None = None,
        conditional: ConditionalReport | None = None,
    ) -> Admission:
        """The policy's decision for one trace (spends budget when it is judged); ``raw`` is the
        message the trace came in, kept for late feedback; a failed reference check counts as a
        numeric finding, like a failed golden one, and so does a critical conditional value."""
        if self.clock is not None:
            self.clock.observe(trace.timestamp)
        golden_numeric = golden is not None and golden.numeric is not None and not golden.numeric.passed
        golden_numeric = golden_numeric or (reference is not None and not reference.passed)
        golden_numeric = golden_numeric or (conditional is not None and conditional.critical)
        inputs = TraceSignals(
            negative_feedback=signals.feedback == "negative",
            no_citation=not signals.citations_present,
            invalid_citation=bool(signals.invalid_citations),
            empty_retrieval=signals.empty_retrieval,
            top_score=signals.top_score,
            numeric_finding=bool(numeric is not None and numeric.unsupported) or golden_numeric,
            golden_match=golden is not None,
        )
        admission = self.policy.admit_candidates(trace, inputs)
        if self.window.max_traces:
            self.window.remember(trace, admission.judged, raw)
        return admission

    def late(self, event: FeedbackEvent) -> LateFeedback:
        """What a feedback event about an earlier trace means: re-run it (judged if admitted), or not."""
        if self.clock is not None:
            self.clock.observe(event.timestamp)
        return handle_late_feedback(self.window, self.policy, event)

    def refund(self, admission: Admission) -> None:
        """Give an admitted trace's budget back (its verdicts came from the cache)."""
        self.policy.refund(admission)
