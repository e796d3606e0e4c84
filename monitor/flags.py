"""Flags: what a human should look at, decided in one place from one catalog of reasons.

Each reason of ``REASONS`` names what it reads of a trace's stage results (a function of the
``Assessment`` and the ``Judgement``, returning the flag's detail or None), its default severity, and
whether late feedback can raise it. The score reasons (``low_<metric>``) come from the quality catalog
(``monitor.triad.QUALITY``): a score strictly below a band's ``below`` gets that band's severity, the
lowest matching band wins, and an undefined score never flags. ``rules/flags.yaml`` only overrides: a
site's file names just what it changes (``enabled``, ``severity``, ``bands``, ``skip_when_abstained``),
and a reason added here later needs no edit there. The packaged bands for faithfulness are seed 002's:
0.80 and up is the production target, 0.70-0.80 "investigate" (warning), below 0.70 "likely
fabricating" (critical).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, Field, field_validator

from monitor.numeric.model import Quantity, json_number
from monitor.rulepacks import known_names
from monitor.triad import QUALITY, QualityMetric

if TYPE_CHECKING:
    from monitor.assessment import Assessment, Judgement
    from monitor.rulepacks import RulePacks

Severity = Literal["info", "warning", "critical"]
SEVERITY_RANK: dict[str, int] = {"critical": 0, "warning": 1, "info": 2}
# A reader returns the flag's detail, or the detail and a severity when the finding grades itself
# (unqualified_condition: critical beside a general value, else a warning); None when it does not apply.
Reader = Callable[["Assessment", "Judgement | None"], "str | tuple[str, Severity] | None"]
_MAX_LISTED = 3
_MAX_ITEM_CHARS = 40
_MAX_DETAIL_CHARS = 200


class Flag(msgspec.Struct, frozen=True):
    """One reason a human should look at a trace, with a short detail and a severity."""

    reason: str
    detail: str
    severity: Severity

    def as_dict(self) -> dict[str, str]:
        """The ``flags`` entry of the result record."""
        return {"reason": self.reason, "detail": self.detail, "severity": self.severity}


@dataclass(frozen=True, slots=True)
class Band:
    """Scores strictly below ``below`` get ``severity``."""

    below: float
    severity: Severity


@dataclass(frozen=True, slots=True)
class Reason:
    """One flag reason of the catalog; ``read`` returns the detail line when the reason applies."""

    name: str
    read: Reader
    severity: Severity = "warning"
    late: bool = False  # a late-feedback re-run of a trace can raise it (its other flags were counted)
    enabled: bool = True
    metric: QualityMetric | None = None  # score reasons: the metric whose bands decide
    bands: tuple[Band, ...] = ()
    skip_when_abstained: bool = False
    # Reads only the trace and its signals: on a trace without judgement nor findings, golden match,
    # reference or conditional report (most traffic) the other readers have nothing to read.
    plain: bool = False


# --- what each reason reads -------------------------------------------------------------------------


def _golden_name(a: Assessment) -> str:
    return f"golden {a.golden.entry_id}" if a.golden is not None else "the golden entry"


def _numeric_unsupported(a: Assessment, j: Judgement | None) -> str | None:
    found = a.numeric.unsupported if a.numeric is not None else ()
    return f"answer says {_listing(found)}; no retrieved chunk does" if found else None


def _numeric_missing(a: Assessment, j: Judgement | None) -> str | None:
    if a.golden is None and a.reference is None:
        return None  # most traffic: no reference to miss a number of
    details = []
    if a.golden is not None and (missing := a.golden.numeric_missing):
        details.append(f"{_golden_name(a)} expects {_listing(missing)}; the answer does not say it")
    if a.reference is not None and (missing := a.reference.numeric_missing):
        details.append(f"the trace's reference answer says {_listing(missing)}; the answer does not")
    return "; ".join(details) or None


def _numeric_out_of_source(a: Assessment, j: Judgement | None) -> str | None:
    if a.golden is None and a.reference is None:
        return None
    details = []
    if a.golden is not None and (outside := _unqualified(a, a.golden.out_of_source_quantities)):
        details.append(f"answer says {_listing(outside)}; the sections {_golden_name(a)} expects do not")
    if a.reference is not None and (outside := a.reference.numeric_out_of_source):
        details.append(f"answer says {_listing(outside)}; the trace's reference contexts do not")
    return "; ".join(details) or None


def _unqualified(a: Assessment, quantities: Sequence[Quantity]) -> list[str]:
    """The texts of ``quantities`` the answer does not state with their condition: "Plus members get
    30 days" is outside the sections of a golden entry about the general rule, and still right."""
    qualified = {(q.value, q.unit) for q in a.conditional.qualified} if a.conditional is not None else set()
    return sorted(
        q.text or f"{json_number(q.value)} {q.unit}" for q in quantities if (q.value, q.unit) not in qualified
    )


def _should_abstain(a: Assessment, j: Judgement | None) -> str | None:
    if a.golden is None or not a.golden.should_abstain:
        return None
    return f"{_golden_name(a)} is unanswerable; the answer does not abstain"


def _golden_retrieval_miss(a: Assessment, j: Judgement | None) -> str | None:
    golden = a.golden
    if golden is None or golden.retrieval is None or golden.first_hit_rank is not None:
        return None
    return f"no expected section in the top {golden.k}"


def _invalid_citation(a: Assessment, j: Judgement | None) -> str | None:
    cited = a.signals.invalid_citations
    return f"cites {_listing(cited)}; not among the retrieved chunks" if cited else None


def _ungrounded_answer(a: Assessment, j: Judgement | None) -> str | None:
    """Nothing was retrieved, yet the judge found claims and no abstention: every score that would
    say so is undefined without chunks, so no other reason can see this answer."""
    result = j.result if j is not None else None
    if not a.signals.empty_retrieval or result is None:
        return None
    verdicts = result.verdicts
    if verdicts.abstained or not verdicts.claims:
        return None
    return f"answered with {_count(len(verdicts.claims), 'claim')} and no retrieved chunk"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _negative_feedback(a: Assessment, j: Judgement | None) -> str | None:
    feedback = a.trace.feedback
    if feedback is None or feedback.rating != "negative":
        return None
    reason = feedback.reason
    return f"user rated the answer negative: {_clip(reason)}" if reason else "user rated the answer negative"


def _conflicting_context(a: Assessment, j: Judgement | None) -> str | None:
    count = len(a.numeric.conflicting_context) if a.numeric is not None else 0
    return f"retrieved chunks disagree on {count} number{'s' if count > 1 else ''}" if count else None


def _unqualified_condition(a: Assessment, j: Judgement | None) -> tuple[str, Severity] | None:
    report = a.conditional
    if report is None or report.severity is None:
        return None
    parts = [
        f"answer says {f.text} as general; the context binds it to {_clip(f.condition)!r}"
        + (f" and gives {_listing(f.general)} otherwise" if f.general else "")
        for f in report.findings
    ]
    return "; ".join(parts), report.severity


def _judge_error(a: Assessment, j: Judgement | None) -> str | None:
    return f"judge failed: {j.error}" if j is not None and j.error else None


def _score_reason(metric: QualityMetric) -> Reason:
    def read(a: Assessment, j: Judgement | None) -> str | None:
        return None  # score reasons are decided by their bands (FlagRules._score)

    return Reason(
        f"low_{metric.name}", read, late=True, metric=metric, skip_when_abstained=metric.skip_when_abstained
    )


# Every flag reason, in the order flags of equal severity are listed (also the bounded metric labels).
REASONS: tuple[Reason, ...] = (
    Reason("numeric_unsupported", _numeric_unsupported, "critical"),
    Reason("numeric_missing", _numeric_missing, "critical"),
    Reason("numeric_out_of_source", _numeric_out_of_source, "critical"),
    Reason("should_abstain", _should_abstain, "critical"),
    Reason("unqualified_condition", _unqualified_condition, "critical"),
    Reason("golden_retrieval_miss", _golden_retrieval_miss, "warning"),
    *(_score_reason(metric) for metric in QUALITY),
    Reason("invalid_citation", _invalid_citation, "warning", plain=True),
    Reason("ungrounded_answer", _ungrounded_answer, "warning"),
    Reason("negative_feedback", _negative_feedback, "warning", late=True, plain=True),
    Reason("conflicting_context", _conflicting_context, "warning", enabled=False),
    Reason("judge_error", _judge_error, "info", late=True),
)
FLAG_REASONS = tuple(reason.name for reason in REASONS)
LATE_REASONS = frozenset(reason.name for reason in REASONS if reason.late)


# --- rules/flags.yaml: overrides only ---------------------------------------------------------------


class _BandModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    below: float = Field(gt=0.0, le=1.0)
    severity: Severity


class _Override(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool | None = None
    severity: Severity | None = None
    bands: tuple[_BandModel, ...] | None = Field(default=None, min_length=1)
    skip_when_abstained: bool | None = None

    @field_validator("bands")
    @classmethod
    def _distinct(cls, bands: tuple[_BandModel, ...] | None) -> tuple[_BandModel, ...] | None:
        if bands is not None and len({band.below for band in bands}) != len(bands):
            raise ValueError("two bands share the same 'below'")
        return bands


class FlagsFile(BaseModel):
    """``rules/flags.yaml``: per reason, only what differs from the catalog's defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = 1
    flags: dict[str, _Override] = Field(default_factory=dict)

    @field_validator("flags")
    @classmethod
    def _known(cls, flags: dict[str, _Override]) -> dict[str, _Override]:
        for name, override in known_names(flags, FLAG_REASONS, "flag reason").items():
            score = name.startswith("low_")
            if score and override.severity is not None:
                raise ValueError(f"{name}: a score flag's severity comes from its bands")
            if not score and (override.bands is not None or override.skip_when_abstained is not None):
                raise ValueError(f"{name}: only score flags (low_*) have bands and skip_when_abstained")
        return flags


def _apply(reason: Reason, override: _Override | None) -> Reason:
    if override is None:
        return reason
    changes: dict[str, object] = {
        key: value
        for key, value in (
            ("enabled", override.enabled),
            ("severity", override.severity),
            ("skip_when_abstained", override.skip_when_abstained),
        )
        if value is not None
    }
    if override.bands is not None:
        changes["bands"] = tuple(
            sorted((Band(b.below, b.severity) for b in override.bands), key=lambda b: b.below)
        )
    return replace(reason, **changes)  # type: ignore[arg-type]  # the keys are Reason's fields


class FlagRules:
    """The catalog with a site's overrides applied; ``evaluate`` turns stage results into flags."""

    def __init__(self, overrides: FlagsFile | None = None) -> None:
        given = overrides.flags if overrides is not None else {}
        self.reasons: tuple[Reason, ...] = tuple(_apply(reason, given.get(reason.name)) for reason in REASONS)
        # Evaluated on every trace: only the reasons that can fire, findings apart from scores.
        self._findings = tuple(r for r in self.reasons if r.enabled and r.metric is None)
        self._readers = tuple((r.read, r) for r in self._findings)
        self._plain_readers = tuple((r.read, r) for r in self._findings if r.plain)
        self._scores = tuple(r for r in self.reasons if r.enabled and r.metric is not None and r.bands)
        self._order = {r.name: i for i, r in enumerate(self.reasons)}
        self._fixed = frozenset(name for name, o in given.items() if o.severity is not None)

    @classmethod
    def load(cls, packs: RulePacks | None = None) -> FlagRules:
        """The catalog overridden by ``flags.yaml`` of the rule packs (packaged when none are given)."""
        from monitor.rulepacks import RulePacks

        return cls((packs or RulePacks()).load("flags.yaml", FlagsFile))

    def reason(self, name: str) -> Reason:
        return next(r for r in self.reasons if r.name == name)

    def enabled(self, name: str) -> bool:
        """Whether this reason can raise a flag (enabled, and for a score reason, with bands)."""
        reason = self.reason(name)
        return reason.enabled and (reason.metric is None or bool(reason.bands))

    def thresholds(self) -> dict[str, float]:
        """Per quality metric, the score under which it is flagged; agreement is measured there."""
        return {r.metric.name: max(b.below for b in r.bands) for r in self.reasons if r.metric and r.bands}

    def evaluate(self, a: Assessment, j: Judgement | None) -> tuple[Flag, ...]:
        """Every enabled flag the stage results raise, most severe first (catalog order within a severity)."""
        flags = []
        readers = self._readers if j is not None or a.has_findings else self._plain_readers
        for reader, reason in readers:
            read = reader(a, j)
            if read is None:
                continue
            detail, severity = read if isinstance(read, tuple) else (read, reason.severity)
            severity = reason.severity if reason.name in self._fixed else severity
            flags.append(Flag(reason.name, detail[:_MAX_DETAIL_CHARS], severity))
        if j is not None and j.result is not None:
            for reason in self._scores:
                hit = self._score(reason, a, j)
                if hit is not None:
                    flags.append(Flag(reason.name, hit[0][:_MAX_DETAIL_CHARS], hit[1]))
        if len(flags) < 2:
            return tuple(flags)
        order = self._order
        return tuple(sorted(flags, key=lambda flag: (SEVERITY_RANK[flag.severity], order[flag.reason])))

    @staticmethod
    def _score(reason: Reason, a: Assessment, j: Judgement | None) -> tuple[str, Severity] | None:
        result = j.result if j is not None else None
        if result is None or reason.metric is None:
            return None
        score = result.scores.get(reason.metric.name)
        if (
            score is None
            or not math.isfinite(score)
            or (reason.skip_when_abstained and result.verdicts.abstained)
        ):
            return None
        band = next((band for band in reason.bands if score < band.below), None)
        if band is None:
            return None
        name = reason.metric.name.replace("_", " ")
        return f"{name} {_number(score, band.below)} < {band.below:.2f}", band.severity


# --- detail text ------------------------------------------------------------------------------------


def _listing(items: Sequence[object]) -> str:
    """Up to three items as short text, then how many more."""
    shown = ", ".join(_clip(_text(item)) for item in items[:_MAX_LISTED])
    extra = len(items) - _MAX_LISTED
    return f"{shown} and {extra} more" if extra > 0 else shown


def _text(item: object) -> str:
    """A finding as text: its ``text``, else ``value unit``, else ``str(item)``."""
    if isinstance(item, str):
        return item
    text = getattr(item, "text", None)
    if isinstance(text, str) and text:
        return text
    value, unit = getattr(item, "value", None), getattr(item, "unit", None)
    return f"{value} {unit}" if value is not None and unit is not None else str(item)


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_ITEM_CHARS else flat[: _MAX_ITEM_CHARS - 1] + "…"


def _number(score: float, bound: float) -> str:
    """Two decimals, or more when rounding would read as "0.80 < 0.80"."""
    for text in (f"{score:.2f}", f"{score:.4f}"):
        if float(text) < bound:
            return text
    return repr(score)


def thresholds_by_metric(rules: FlagRules) -> Mapping[str, float]:
    """Every metric's agreement threshold: its flag threshold, else the catalog's production target."""
    flagged = rules.thresholds()
    return {metric.name: flagged.get(metric.name, metric.target) for metric in QUALITY if metric.agreement}
