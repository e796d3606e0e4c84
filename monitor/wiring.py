"""Builds the pipeline's stages from settings: numeric rules, golden set, sampling, judge, flags, store.

This is where the stages meet, so they do not need to know each other: small adapters turn one
stage's output into the next one's input (signals -> sampling inputs, findings -> flag inputs).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from monitor.budget import EventClock
from monitor.config import Settings
from monitor.embeddings import Embedder, LocalE5Embedder, OpenAIEmbedder
from monitor.exceptions import ConfigError, StoreError, StoreRejected
from monitor.feedback_window import FeedbackWindow, handle_late_feedback
from monitor.flags import FlagInputs, FlagRules
from monitor.golden import DEFAULT_MATCH_THRESHOLD, GoldenChecker, GoldenMatcher, GoldenSet
from monitor.golden.match import DEFAULT_MATCH_MARGIN
from monitor.judge.base import Judge
from monitor.metrics import Metrics
from monitor.numeric import NumericRules
from monitor.pii import Scrubber
from monitor.pipeline import Evaluation, Pipeline, SinkLike
from monitor.review import ReviewStore, open_store
from monitor.review.agreement import refresh_agreement_gauge
from monitor.sampling import SamplingPolicy, TraceSignals
from monitor.sinks import ResultsFile
from monitor.trace import FeedbackEvent, Trace

log = structlog.get_logger(__name__)
PENDING_REFRESH_S = 5.0
AGREEMENT_REFRESH_S = 60.0
MAX_QUEUED_CASES = 10_000


@dataclass(frozen=True, slots=True)
class LateDecision:
    """What a late feedback event means for the engine: re-run the trace, judged or not, or just ack."""

    outcome: str
    trace: Trace | None = None
    judge: bool = False
    reasons: tuple[str, ...] = ()


LateFeedback = Callable[[FeedbackEvent], LateDecision]


class Sampler:
    """Adapts the sampling policy to the pipeline and remembers traces for late feedback."""

    def __init__(
        self, policy: SamplingPolicy, window: FeedbackWindow, clock: EventClock | None = None
    ) -> None:
        self.policy = policy
        self.window = window
        self.clock = clock  # replay: the budget refills by the traces' own timestamps

    def __call__(self, ev: Evaluation) -> tuple[tuple[str, ...], bool, bool]:
        if self.clock is not None:
            self.clock.observe(ev.trace.timestamp)
        s = ev.signals
        numeric = bool(ev.numeric is not None and ev.numeric.unsupported)
        golden_numeric = (
            ev.golden is not None and ev.golden.numeric is not None and not ev.golden.numeric.passed
        )
        inputs = TraceSignals(
            negative_feedback=s.feedback == "negative",
            no_citation=not s.citations_present,
            invalid_citation=bool(s.invalid_citations),
            empty_retrieval=s.empty_retrieval,
            top_score=s.top_score,
            numeric_finding=numeric or golden_numeric,
            golden_match=ev.golden is not None,
        )
        admission = self.policy.admit(ev.trace, self.policy.candidates(ev.trace, inputs))
        if admission.judged:
            ev.refund = lambda: self.policy.refund(admission)
        if self.window.max_traces:
            self.window.remember(ev.trace, admission.judged)
        return admission.reasons, admission.judged, admission.random_baseline

    def late(self, event: FeedbackEvent) -> LateDecision:
        """A late negative feedback re-runs its remembered trace (judged when the policy admits it)."""
        if self.clock is not None:
            self.clock.observe(event.timestamp)
        late = handle_late_feedback(self.window, self.policy, event)
        if late.trace is None or late.outcome == "not_negative":
            return LateDecision(late.outcome)
        return LateDecision(late.outcome, late.trace, late.admission.judged, late.admission.reasons)


class Flagger:
    """Turns an evaluation's findings and scores into flag inputs for the one flag rule set."""

    def __init__(self, rules: FlagRules) -> None:
        self.rules = rules

    def __call__(self, ev: Evaluation) -> list[dict[str, Any]]:
        return [flag.as_dict() for flag in self.rules.evaluate(flag_inputs(ev))]


def flag_inputs(ev: Evaluation) -> FlagInputs:
    """Everything flags are decided from, gathered from one evaluation."""
    golden, numeric, judged = ev.golden, ev.numeric, ev.judge
    reference = golden.numeric if golden is not None else None
    miss = golden is not None and golden.retrieval is not None and golden.first_hit_rank is None
    feedback = ev.trace.feedback
    return FlagInputs(
        scores=judged.scores if judged is not None else None,
        judge_error=ev.judge_error,
        abstained=judged.verdicts.abstained if judged is not None else False,
        numeric_unsupported=tuple(numeric.unsupported) if numeric is not None else (),
        numeric_missing=tuple(reference.missing) if reference is not None else (),
        numeric_out_of_source=tuple(golden.numeric_out_of_source) if golden is not None else (),
        conflicting_context=len(numeric.conflicting_context) if numeric is not None else 0,
        golden_id=golden.entry_id if golden is not None else None,
        golden_retrieval_miss=miss,
        golden_retrieval_miss_detail=f"no expected section in the top {golden.k}"
        if miss and golden
        else None,
        should_abstain=golden.should_abstain if golden is not None else False,
        invalid_citations=ev.signals.invalid_citations,
        negative_feedback=feedback is not None and feedback.rating == "negative",
        negative_feedback_reason=feedback.reason if feedback is not None else None,
    )


class ReviewSink:
    """Writes flagged traces to the review store (idempotent by trace id) and keeps its gauges fresh.

    A store outage loses nothing short of ``max_queued`` cases: failed writes wait in a bounded queue
    and are retried, oldest first, with the next flagged trace. A late-feedback re-run that was not
    judged only adds its reasons, so the judge's verdicts already stored are kept.
    """

    every_trace = False

    def __init__(
        self,
        store: ReviewStore,
        metrics: Metrics,
        thresholds: dict[str, float],
        max_queued: int = MAX_QUEUED_CASES,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.thresholds = thresholds
        self._queue: deque[tuple[dict[str, Any], dict[str, Any], list[str], bool]] = deque()
        self.rejected = 0
        self._max_queued = max_queued
        self._refreshed = 0.0
        self._agreement_at = 0.0
        self.refresh()

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None:
        if not flagged:
            return
        if len(self._queue) >= self._max_queued:
            dropped = self._queue.popleft()
            self.metrics.review_upserts.labels("dropped").inc()
            log.error("review_case_dropped", trace_id=dropped[0].get("trace_id"), queued=len(self._queue))
        reasons = [f["reason"] for f in record["flags"]]
        self._queue.append((trace.model_dump(mode="json"), record, reasons, late and record["judge"] is None))
        self.drain()

    def drain(self) -> None:
        """Write the queued cases, oldest first.

        A store outage stops the drain and keeps the rest for the next try; a case the store refuses
        for its content is set aside (logged and counted, never retried as is), so it cannot block the
        cases behind it.
        """
        while self._queue:
            trace, record, reasons, reasons_only = self._queue[0]
            write = self.store.add_reasons if reasons_only else self.store.upsert_case
            try:
                write(trace, record, reasons)
            except StoreRejected as exc:
                self._set_aside(trace, str(exc))
                continue
            except StoreError as exc:
                self.metrics.review_upserts.labels("error").inc()
                log.error("review_store_failed", error=str(exc), queued=len(self._queue))
                return
            except Exception as exc:  # noqa: BLE001 - a bug on one case must not block the queue behind it
                log.exception("review_case_failed", trace_id=trace.get("trace_id"))
                self._set_aside(trace, f"{type(exc).__name__}: {exc}")
                continue
            self._queue.popleft()
            self.metrics.review_upserts.labels("ok").inc()
        if time.monotonic() - self._refreshed >= PENDING_REFRESH_S:
            self.refresh()

    def _set_aside(self, trace: dict[str, Any], error: str) -> None:
        self._queue.popleft()
        self.rejected += 1
        self.metrics.review_upserts.labels("rejected").inc()
        log.error("review_case_rejected", trace_id=trace.get("trace_id"), error=error[:300])

    @property
    def unstored(self) -> int:
        """Flagged cases still waiting for the store (an outage): lost if the process ends now."""
        return len(self._queue)

    def refresh(self) -> None:
        """Pending count every few seconds; judge-human agreement from labelled cases every minute."""
        now = time.monotonic()
        self._refreshed = now
        try:
            self.metrics.review_pending.set(self.store.pending_count())
            if now - self._agreement_at >= AGREEMENT_REFRESH_S or not self._agreement_at:
                self._agreement_at = now
                refresh_agreement_gauge(self.store, self.metrics.judge_human_agreement, self.thresholds)
        except StoreError as exc:
            log.error("review_store_failed", error=str(exc), during="refresh")


def rules_path(settings: Settings, name: str) -> Path | None:
    """A rule pack under ``--rules-dir``, or None for the packaged one."""
    return settings.rules_dir / name if settings.rules_dir is not None else None


def build_scrubber(settings: Settings) -> Scrubber:
    """The one PII scrubber of the process: results, review store, dead letters and logs share it."""
    key = settings.pii_key.get_secret_value().encode("utf-8") if settings.pii_key else None
    return Scrubber.load(rules_path(settings, "pii.yaml"), key)


def build_embedder(settings: Settings) -> Embedder:
    """In-process multilingual-e5-small unless an OpenAI-compatible embeddings endpoint is configured."""
    j = settings.judge
    if j.embeddings_url:
        key = j.api_key.get_secret_value() if j.api_key else None
        return OpenAIEmbedder(j.embeddings_url, j.embeddings_model, key, j.timeout_s, j.embeddings_input)
    return LocalE5Embedder()


async def build_judge(
    settings: Settings, embedder: Embedder, numeric: NumericRules, stack: AsyncExitStack
) -> tuple[Judge, Callable[[], bool] | None]:
    """The local judge by default; an OpenAI-compatible judge (and its circuit state) for ``openai``."""
    j = settings.judge
    if j.kind == "local":
        from monitor.judge.local import LocalJudge

        return LocalJudge(embedder, settings.rules_dir, numeric), None
    from monitor.judge.cache import VerdictCache
    from monitor.judge.client import ChatClient, ChatClientSettings
    from monitor.judge.llm import LLMJudge

    if not j.url or not j.model:
        raise ConfigError("judge.url and judge.model are required when judge.kind is 'openai'")
    client = ChatClient(
        ChatClientSettings(
            base_url=j.url,
            model=j.model,
            api_key=j.api_key,
            timeout_s=j.timeout_s,
            max_concurrency=j.concurrency,
            max_retries=j.max_retries,
            circuit_failures=j.circuit_failures,
            circuit_cooldown_s=j.circuit_cooldown_s,
            extra_headers=j.extra_headers,
            extra_query=j.extra_query,
            json_schema=j.json_schema,
            api_key_header=j.api_key_header,
            temperature=j.temperature,
        )
    )
    await stack.enter_async_context(client)
    judge = LLMJudge(client, embedder, j.model, VerdictCache(), strict_relevance=j.strict_relevance)
    return judge, lambda: client.circuit_open


def build_golden(settings: Settings, embedder: Embedder, numeric: NumericRules) -> GoldenChecker | None:
    """The golden checker when golden files are configured."""
    if not settings.golden:
        return None
    golden = GoldenSet.load(settings.golden, settings.golden_sections)
    log.info("golden_loaded", entries=len(golden.entries), version=golden.version)
    matcher = GoldenMatcher(
        golden,
        embedder,
        DEFAULT_MATCH_THRESHOLD if settings.golden_threshold is None else settings.golden_threshold,
        settings.golden_k,
        margin=DEFAULT_MATCH_MARGIN if settings.golden_margin is None else settings.golden_margin,
    )
    return GoldenChecker(matcher, numeric)


async def build_pipeline(
    settings: Settings, metrics: Metrics, stack: AsyncExitStack, scrubber: Scrubber, replay: bool = False
) -> tuple[Pipeline, LateFeedback]:
    """Every stage the settings ask for; resources are registered on ``stack`` for an orderly close."""
    numeric = NumericRules.load(rules_path(settings, "numeric"))
    embedder = build_embedder(settings)
    golden = build_golden(settings, embedder, numeric)
    clock = EventClock() if replay else None
    policy = SamplingPolicy.load(
        rules_path(settings, "sampling.yaml"),
        settings.sample_all,
        clock=clock or time.monotonic,
        metrics=metrics,
    )
    sampler = Sampler(policy, FeedbackWindow(settings.feedback_window, settings.feedback_window_bytes), clock)
    judge, circuit_open = await build_judge(settings, embedder, numeric, stack)
    stack.push_async_callback(judge.aclose)
    store = stack.enter_context(open_store(settings.store, scrubber=scrubber))
    sinks: list[SinkLike] = []
    if settings.results is not None:
        results = ResultsFile(settings.results, scrubber, append=not replay)
        stack.callback(results.close)
        sinks.append(results)
    flag_rules = FlagRules.load(rules_path(settings, "flags.yaml"))
    metrics.set_build_info(
        judge.name, judge.prompt_version, golden.matcher.golden.version if golden else "none"
    )
    pipeline = Pipeline(
        metrics,
        numeric=numeric,
        golden=golden,
        sampler=sampler,
        judge=judge,
        judge_concurrency=settings.judge.concurrency,
        judge_deadline_s=settings.judge.trace_deadline_s,
        circuit_open=circuit_open,
        flag_evaluator=Flagger(flag_rules),
        sinks=[*sinks, ReviewSink(store, metrics, flag_rules.thresholds())],
    )
    return pipeline, sampler.late
