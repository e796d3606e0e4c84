"""What the pipeline learns about one trace, as typed, frozen stage results.

``Assessment`` is the cheap path's (every trace): signals, numeric findings, the golden check, the
sampling decision. ``Judgement`` is the judge's (sampled traces). ``Evaluation`` adds the flags and
builds the result record, the JSON the sinks write (DESIGN.md's stable keys): records are plain data
only from there on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from monitor.conditional import ConditionalReport
from monitor.flags import LATE_REASONS, Flag
from monitor.golden import GoldenCheck
from monitor.judge.base import JudgeResult
from monitor.message import Origin
from monitor.metrics import Versions
from monitor.numeric import NumericReport
from monitor.reference import ReferenceCheck
from monitor.sampling import Admission
from monitor.signals import Signals
from monitor.trace import Trace


class Assessment(msgspec.Struct, frozen=True):
    """The cheap stages' results for one trace; ``late`` marks a re-run on late feedback."""

    trace: Trace
    origin: Origin
    signals: Signals
    versions: Versions
    numeric: NumericReport | None
    golden: GoldenCheck | None
    sampling: Admission
    late: bool = False
    reference: ReferenceCheck | None = None  # the trace's own reference answer, when it carries one
    conditional: ConditionalReport | None = None  # None: the conditional-value check did not run

    @property
    def to_judge(self) -> bool:
        return self.sampling.judged

    @property
    def sampling_kind(self) -> str:
        """``random`` for the unbiased baseline, ``targeted`` for traces the policy picked."""
        return "random" if self.sampling.random_baseline else "targeted"

    @property
    def has_findings(self) -> bool:
        """Whether ``findings`` may yield anything (most traffic: no numeric finding, no golden match,
        no reference answer, no conditional check), without starting its generator."""
        numeric = self.numeric
        return (
            (numeric is not None and bool(numeric.unsupported or numeric.conflicting_context))
            or self.golden is not None
            or self.reference is not None
            or self.conditional is not None
        )

    def findings(self) -> Iterator[tuple[str, str]]:
        """``(kind, unit)`` of every numeric finding, reference-free and golden."""
        if self.numeric is not None:
            yield from self.numeric.findings
        if self.golden is not None and self.golden.numeric is not None:
            yield from self.golden.numeric.findings
        if self.reference is not None:
            yield from self.reference.findings()
        if self.conditional is not None:
            yield from self.conditional.kinds()


class Judgement(msgspec.Struct, frozen=True):
    """The judge's answer for one trace: verdicts and scores, or the error that stood in their way."""

    result: JudgeResult | None
    error: str | None
    outcome: str  # ok, cached, timeout, or the error's class: the judge_requests_total label
    elapsed_s: float


class Evaluation(msgspec.Struct, frozen=True):
    """A trace fully handled: its assessment, its judgement (if judged) and its flags."""

    assessment: Assessment
    judgement: Judgement | None
    flags: tuple[Flag, ...]

    @property
    def counted_flags(self) -> tuple[Flag, ...]:
        """The flags this handling adds to the counts: a late re-run adds only what feedback can raise."""
        if not self.assessment.late:
            return self.flags
        return tuple(flag for flag in self.flags if flag.reason in LATE_REASONS)

    def record(self) -> dict[str, Any]:
        """The result record (DESIGN.md): one JSON object per trace."""
        a, t = self.assessment, self.assessment.trace
        result = self.judgement.result if self.judgement is not None else None
        record = {
            "trace_id": t.trace_id,
            "origin": a.origin.as_dict(),
            "versions": {
                "model_id": t.model_id,
                "prompt_version": t.prompt_version,
                "index_version": t.index_version,
            },
            "signals": a.signals.as_dict(),
            "numeric": a.numeric.as_dict() if a.numeric is not None else None,
            "golden": a.golden.as_dict() if a.golden is not None else None,
            "reference": a.reference.as_dict() if a.reference is not None else None,
            "conditional": a.conditional.as_dict() if a.conditional is not None else None,
            "sampled": list(a.sampling.reasons),
            "scores": result.scores.as_dict() if result is not None else None,
            "judge": _judge_block(self.judgement),
            "flags": [flag.as_dict() for flag in self.flags],
        }
        if a.conditional is not None and a.conditional.muted:  # findings a reviewer muted
            record["conditional_muted"] = a.conditional.muted_dicts()
        return record


def _judge_block(j: Judgement | None) -> dict[str, Any] | None:
    if j is None:
        return None
    result = j.result
    if result is None:
        return {"error": j.error} if j.error else None
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
        "error": j.error,
    }
