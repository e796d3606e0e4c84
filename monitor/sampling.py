"""The sampling policy: which traces pay for the judge, and why.

Every reason in ``rules/sampling.yaml`` has a probability and a priority. A reason applies when its
signal is present (``TraceSignals``); it then *picks* the trace when a salted hash of
``salt, reason, trace_id`` maps below its probability. The draw is deterministic per trace id, so
replicas and replays agree, and independent per reason, so the ``random`` baseline is an unbiased
sample of all traffic whatever the targeted reasons do.

Admission then asks the judge budget (``monitor.budget``) at the priority of the highest reason.
Skipped traces are logged (``sampling_skipped``) and counted (``ragmon_sampling_skipped_total{reason}``
under the highest reason, so the counter sums to skipped traces).

A judged trace counts as the *random* sample (``Admission.random_baseline``) when the random draw
picked it and either its version (model, prompt, index) is still under the hourly random floor, or the
budget would have admitted it on the random reason's priority alone, even when other reasons also
applied. That label depends only on the hash, the budget's state and how many random judgements the
version already had this hour, never on the trace's content, so the random sample stays unbiased under
budget pressure too.

Which lane pays (``Admission.lane``): the shared buckets when they can (``budget``); otherwise a random
draw under its version's floor is judged anyway (``random_floor``: the floor is paid outside the
buckets, at most ``random_floor_per_hour`` per version per hour); otherwise a trace with negative
feedback spends the negative-feedback overflow (``negative_feedback_overflow``); otherwise it is
skipped. Judgements the shared buckets did not pay for are counted in
``ragmon_sampling_guaranteed_total{lane}``. With ``sample_all``
(``ragmon replay --sample-all``) every trace is judged under reason ``sample_all``, the budget is not
consulted, and every judged trace counts as random: the whole population is the sample.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from pathlib import Path

import msgspec
import structlog
from pydantic import BaseModel, ConfigDict, Field, field_validator

from monitor.budget import (
    MAX_PRIORITY,
    BudgetSettings,
    Clock,
    HourlyFloor,
    JudgeBudget,
    estimate_text_tokens,
)
from monitor.logging import throttled
from monitor.metrics import Metrics
from monitor.rulepacks import RulePacks, known_names, load_file
from monitor.trace import Trace

log = structlog.get_logger(__name__)

SAMPLE_ALL = "sample_all"
RANDOM = "random"
NEGATIVE_FEEDBACK = "negative_feedback"
# Who pays for a judged trace (``Admission.lane``).
BUDGET = "budget"
RANDOM_FLOOR = "random_floor"
NEGATIVE_OVERFLOW = "negative_feedback_overflow"
# Every reason the policy knows, in the order ties in priority are broken.
REASONS = (
    NEGATIVE_FEEDBACK,
    "numeric_finding",
    "invalid_citation",
    "golden_match",
    "empty_retrieval",
    "no_citation",
    "low_retrieval_score",
    RANDOM,
)
_HASH_SPACE = float(2**64)
_RANK = {reason: i for i, reason in enumerate((SAMPLE_ALL, *REASONS))}


class TraceSignals(msgspec.Struct, frozen=True):
    """The cheap per-trace facts the policy samples on, computed by the pipeline before sampling."""

    negative_feedback: bool = False
    no_citation: bool = False
    invalid_citation: bool = False
    empty_retrieval: bool = False
    top_score: float | None = None
    numeric_finding: bool = False
    golden_match: bool = False


class Admission(msgspec.Struct, frozen=True):
    """The policy's decision for one trace; ``reasons`` holds every reason that picked it."""

    judged: bool
    reasons: tuple[str, ...] = ()
    primary: str | None = None
    skipped_reason: str | None = None
    random_baseline: bool = False
    spent_tokens: int = 0
    lane: str | None = None


NOT_SAMPLED = Admission(judged=False)


class _Reason(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    probability: float = Field(ge=0.0, le=1.0)
    priority: int = Field(ge=0, le=MAX_PRIORITY)


class _Budget(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    traces_per_minute: float | None = Field(default=60.0, gt=0)
    tokens_per_hour: float | None = Field(default=2_000_000.0, gt=0)
    reserve: float = Field(default=0.2, ge=0.0, le=1.0)
    random_floor_per_hour: int = Field(default=30, ge=0)
    negative_feedback_overflow_per_minute: float | None = Field(default=400.0, gt=0)


class _Estimate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_overhead_tokens: int = Field(default=1500, ge=0)
    text_factor: float = Field(default=1.0, gt=0)


class SamplingFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = 1
    salt: str = Field(min_length=1)
    low_score_threshold: float
    reasons: dict[str, _Reason]
    budget: _Budget = _Budget()
    estimate: _Estimate = _Estimate()

    @field_validator("reasons")
    @classmethod
    def _known_reasons(cls, value: dict[str, _Reason]) -> dict[str, _Reason]:
        return known_names(value, REASONS, "reason")


def uniform(salt: str, reason: str, trace_id: str) -> float:
    """Map (salt, reason, trace id) to [0, 1) deterministically; the unit separator keeps fields apart."""
    return _draw(_draw_prefix(salt, reason), trace_id)


def _draw_prefix(salt: str, reason: str) -> hashlib.blake2b:
    """The hash state after the key's part that does not depend on the trace (prepared once per reason
    by the policy): a draw copies it and adds the trace id, the same digest as hashing the whole key."""
    return hashlib.blake2b(f"{salt}\x1f{reason}\x1f".encode(), digest_size=8)


def _draw(prefix: hashlib.blake2b, trace_id: str) -> float:
    hasher = prefix.copy()  # copying the prepared state costs less than a new hash of the whole key
    hasher.update(trace_id.encode())
    return int.from_bytes(hasher.digest(), "big") / _HASH_SPACE


class SamplingPolicy:
    """Decides which traces are judged; build one per process with ``SamplingPolicy.load``."""

    def __init__(
        self,
        rules: SamplingFile,
        sample_all: bool = False,
        clock: Clock = time.monotonic,
        metrics: Metrics | None = None,
    ) -> None:
        self.salt = rules.salt
        self.low_score_threshold = rules.low_score_threshold
        self.sample_all = sample_all
        # A reason that always (1.0) picks needs no hash, one that never (0.0) picks is left out of
        # both; the others keep the hash key's prefix and their probability, so a draw costs one hash.
        self._always = frozenset(r for r, rule in rules.reasons.items() if rule.probability >= 1.0)
        self._draws = {
            reason: (_draw_prefix(self.salt, reason), rule.probability)
            for reason, rule in rules.reasons.items()
            if 0.0 < rule.probability < 1.0
        }
        self._priority = {reason: rule.priority for reason, rule in rules.reasons.items()}
        self._priority[SAMPLE_ALL] = MAX_PRIORITY + 1
        self._estimate = rules.estimate
        self._metrics = metrics
        budget = rules.budget
        settings = BudgetSettings(
            budget.traces_per_minute,
            budget.tokens_per_hour,
            budget.reserve,
            budget.negative_feedback_overflow_per_minute,
        )
        self.budget = JudgeBudget(settings, clock)
        self.floor = HourlyFloor(budget.random_floor_per_hour, clock)

    @classmethod
    def load(
        cls,
        packs: RulePacks | None = None,
        sample_all: bool = False,
        clock: Clock = time.monotonic,
        metrics: Metrics | None = None,
    ) -> SamplingPolicy:
        """The policy of ``sampling.yaml`` in the rule packs (packaged by default)."""
        rules = (packs or RulePacks()).load("sampling.yaml", SamplingFile)
        return cls(rules, sample_all=sample_all, clock=clock, metrics=metrics)

    @classmethod
    def from_file(
        cls,
        path: Path,
        sample_all: bool = False,
        clock: Clock = time.monotonic,
        metrics: Metrics | None = None,
    ) -> SamplingPolicy:
        """The policy of one sampling file (tools and tests; the daemon reads its rule packs)."""
        return cls(load_file(path, SamplingFile), sample_all=sample_all, clock=clock, metrics=metrics)

    def priority(self, reason: str) -> int:
        """The configured priority of ``reason``; ``sample_all`` outranks everything."""
        priority = self._priority.get(reason)
        if priority is None:
            raise ValueError(f"unknown sampling reason {reason!r}")
        return priority

    def picks(self, reason: str, trace_id: str) -> bool:
        """Whether ``reason``'s probability draw selects this trace id (False for a reason not configured).

        The draw of ``uniform(salt, reason, trace_id)``, with the key's prefix prepared once.
        """
        if reason in self._always:
            return True  # uniform is in [0, 1): no hash can change the outcome
        draw = self._draws.get(reason)
        return draw is not None and _draw(draw[0], trace_id) < draw[1]

    def applicable(self, signals: TraceSignals) -> list[str]:
        """The reasons whose signal is present, before any probability draw, in catalog order."""
        out = []
        if signals.negative_feedback:
            out.append(NEGATIVE_FEEDBACK)
        if signals.numeric_finding:
            out.append("numeric_finding")
        if signals.invalid_citation:
            out.append("invalid_citation")
        if signals.golden_match:
            out.append("golden_match")
        if signals.empty_retrieval:
            out.append("empty_retrieval")
        if signals.no_citation:
            out.append("no_citation")
        score = signals.top_score
        if score is not None and score < self.low_score_threshold:
            out.append("low_retrieval_score")
        out.append(RANDOM)  # every trace takes part in the baseline's draw
        return out

    def candidates(self, trace: Trace, signals: TraceSignals) -> list[str]:
        """Reasons that apply and won their draw, highest priority first (``sample_all`` leads if on)."""
        trace_id, always, draws = trace.trace_id, self._always, self._draws
        picked = []
        for reason in self.applicable(signals):  # ``picks`` inlined: it runs once or twice per trace
            if reason in always:
                picked.append(reason)
            elif (draw := draws.get(reason)) is not None and _draw(draw[0], trace_id) < draw[1]:
                picked.append(reason)
        if len(picked) > 1:
            picked = self.ordered(picked)
        return [SAMPLE_ALL, *picked] if self.sample_all else picked

    def ordered(self, reasons: Iterable[str]) -> list[str]:
        """Deduplicate and sort by priority, highest first; ties keep the catalog order."""
        unique = list(dict.fromkeys(reasons))
        if len(unique) < 2:
            for reason in unique:
                self.priority(reason)  # an unknown reason is refused, as when sorting
            return unique
        return sorted(unique, key=lambda r: (-self.priority(r), _RANK.get(r, len(_RANK))))

    def estimate_tokens(self, trace: Trace) -> int:
        """Judge tokens a trace will cost, roughly: question + answer + chunks, plus the prompt overhead."""
        texts = (trace.question, trace.answer, *(chunk.text for chunk in trace.retrieved_chunks))
        text_tokens = sum(estimate_text_tokens(text) for text in texts)
        return self._estimate.prompt_overhead_tokens + round(text_tokens * self._estimate.text_factor)

    def admit(self, trace: Trace, reasons: list[str]) -> Admission:
        """Decide whether the picked trace is judged now; consumes budget when it is."""
        if not reasons:
            return NOT_SAMPLED
        return self._admit(trace, tuple(self.ordered(reasons)))

    def admit_candidates(self, trace: Trace, signals: TraceSignals) -> Admission:
        """``admit(trace, candidates(trace, signals))``, the candidates taken as already in order."""
        picked = self.candidates(trace, signals)
        return self._admit(trace, tuple(picked)) if picked else NOT_SAMPLED

    def _admit(self, trace: Trace, ordered: tuple[str, ...]) -> Admission:
        """``admit`` for known reasons, deduplicated and ordered by priority (``ordered``'s checks)."""
        primary = ordered[0]
        if primary == SAMPLE_ALL:
            return Admission(True, ordered, primary, random_baseline=True, lane=SAMPLE_ALL)
        # ``primary`` has the highest priority of the reasons: when the trace bucket refuses it, the
        # shared buckets pay for none of them, and the token estimate is needed only for a log line.
        payable = self.budget.may_spend(self._priority[primary])
        tokens = self.estimate_tokens(trace) if payable else None
        version = (trace.model_id, trace.prompt_version, trace.index_version)
        floor = RANDOM in ordered and self.floor.available(version)
        random = floor or (
            tokens is not None and RANDOM in ordered and self.budget.can_spend(tokens, self._priority[RANDOM])
        )
        lane = self._lane(tokens, primary, ordered, floor)
        if lane is None:
            self._skipped(trace, primary, ordered, tokens)
            return Admission(judged=False, reasons=ordered, primary=primary, skipped_reason=primary)
        if random:
            self.floor.record(version)
        if lane != BUDGET and self._metrics is not None:
            self._metrics.sampling_guaranteed.inc((lane,))
        spent = tokens if lane == BUDGET and tokens is not None else 0
        return Admission(True, ordered, primary, random_baseline=random, spent_tokens=spent, lane=lane)

    def _lane(self, tokens: int | None, primary: str, ordered: tuple[str, ...], floor: bool) -> str | None:
        """Who pays: the shared buckets, else the random floor, else the negative-feedback overflow
        (``tokens`` None: the shared buckets cannot pay)."""
        if tokens is not None and self.budget.try_spend(tokens, self._priority[primary]):
            return BUDGET
        if floor:
            return RANDOM_FLOOR
        if NEGATIVE_FEEDBACK in ordered and self.budget.try_overflow():
            return NEGATIVE_OVERFLOW
        return None

    def refund(self, admission: Admission) -> None:
        """Return an admitted trace's budget when it was not judged after all (cache hit); call once.

        The floor keeps its count: the trace still has its scores (from the cache) in the random sample.
        """
        if not admission.judged:
            return
        if admission.lane == BUDGET:
            self.budget.refund(admission.spent_tokens)
        elif admission.lane == NEGATIVE_OVERFLOW:
            self.budget.refund_overflow()

    def _skipped(self, trace: Trace, reason: str, reasons: tuple[str, ...], tokens: int | None) -> None:
        if self._metrics is not None:
            self._metrics.sampling_skipped.inc((reason,))
        throttled(  # every field is lazy: most skips are held back by the throttle, and cost nothing more
            log,
            "info",
            "sampling_skipped",
            lazy=lambda: {
                "trace_id": trace.trace_id,
                "reason": reason,
                "reasons": list(reasons),
                "estimated_tokens": tokens if tokens is not None else self.estimate_tokens(trace),
            },
        )
