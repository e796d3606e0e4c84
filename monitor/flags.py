"""Flags: what a human should look at, decided in one place from rules/flags.yaml.

The numeric rules, the golden checks and the judge only produce inputs (``FlagInputs``); this module
maps them to flag reasons, thresholds and severities. Score flags use bands: a score strictly below a
band's ``below`` gets that band's severity, the lowest matching band wins, and an undefined score
(``None``) never flags. The defaults for faithfulness are seed 002's bands: 0.80 and up is the
production target (no flag), 0.70 to 0.80 is "investigate" (warning), below 0.70 is "likely
fabricating" (critical).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from monitor.judge.base import Scores
from monitor.sampling import config_error, read_rule_pack

Severity = Literal["info", "warning", "critical"]
SEVERITY_RANK: dict[str, int] = {"critical": 0, "warning": 1, "info": 2}
# Every flag reason, in the order flags of equal severity are listed (also the bounded metric labels).
FLAG_REASONS = (
    "numeric_unsupported",
    "numeric_missing",
    "numeric_out_of_source",
    "should_abstain",
    "golden_retrieval_miss",
    "low_faithfulness",
    "low_answer_relevance",
    "low_context_relevance",
    "invalid_citation",
    "negative_feedback",
    "conflicting_context",
    "judge_error",
)
_MAX_LISTED = 3
_MAX_ITEM_CHARS = 40
_MAX_DETAIL_CHARS = 200


@dataclass(frozen=True, slots=True)
class Flag:
    """One reason a human should look at a trace, with a short detail and a severity."""

    reason: str
    detail: str
    severity: Severity

    def as_dict(self) -> dict[str, str]:
        """The ``flags`` entry of the result record."""
        return {"reason": self.reason, "detail": self.detail, "severity": self.severity}


@dataclass(frozen=True, slots=True)
class FlagInputs:
    """Everything flags are decided from; numeric findings are objects with ``text``/``unit`` or strings."""

    scores: Scores | None = None
    judge_error: str | None = None
    abstained: bool = False
    numeric_unsupported: Sequence[object] = ()
    numeric_missing: Sequence[object] = ()
    numeric_out_of_source: Sequence[object] = ()
    conflicting_context: int = 0
    golden_id: str | None = None
    golden_retrieval_miss: bool = False
    golden_retrieval_miss_detail: str | None = None
    should_abstain: bool = False
    invalid_citations: Sequence[str] = ()
    negative_feedback: bool = False
    negative_feedback_reason: str | None = None


class _Simple(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    severity: Severity


class _Band(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    below: float = Field(gt=0.0, le=1.0)
    severity: Severity


class _ScoreRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    skip_when_abstained: bool = False
    bands: tuple[_Band, ...] = Field(min_length=1)

    @field_validator("bands")
    @classmethod
    def _ascending(cls, bands: tuple[_Band, ...]) -> tuple[_Band, ...]:
        ordered = tuple(sorted(bands, key=lambda band: band.below))
        if len({band.below for band in ordered}) != len(ordered):
            raise ValueError("two bands share the same 'below'")
        return ordered

    def band(self, score: float) -> _Band | None:
        """The lowest band the score is strictly below, or None."""
        return next((band for band in self.bands if score < band.below), None)


class _Rules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    numeric_unsupported: _Simple
    numeric_missing: _Simple
    numeric_out_of_source: _Simple
    should_abstain: _Simple
    golden_retrieval_miss: _Simple
    low_faithfulness: _ScoreRule
    low_answer_relevance: _ScoreRule
    low_context_relevance: _ScoreRule
    invalid_citation: _Simple
    negative_feedback: _Simple
    conflicting_context: _Simple
    judge_error: _Simple


class _FlagsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = 1
    flags: _Rules


# The scores each score flag reads.
_SCORE_FLAGS: dict[str, Callable[[Scores], float | None]] = {
    "low_faithfulness": lambda s: s.faithfulness,
    "low_answer_relevance": lambda s: s.answer_relevance,
    "low_context_relevance": lambda s: s.context_relevance,
}


class FlagRules:
    """Turns a trace's findings and scores into flags; build once with ``FlagRules.load``."""

    def __init__(self, rules: _Rules) -> None:
        self._rules = rules

    @classmethod
    def load(cls, path: Path | None = None) -> FlagRules:
        """Load ``path`` or the packaged rules/flags.yaml; raise ConfigError naming file and field."""
        data, label = read_rule_pack(path, "flags.yaml")
        try:
            return cls(_FlagsFile.model_validate(data).flags)
        except ValidationError as exc:
            raise config_error(label, exc) from exc

    def thresholds(self) -> dict[str, float]:
        """Per quality metric, the score under which it is flagged; agreement is measured there."""
        out: dict[str, float] = {}
        for reason in _SCORE_FLAGS:
            rule: _ScoreRule = getattr(self._rules, reason)
            out[reason.removeprefix("low_")] = max(band.below for band in rule.bands)
        return out

    def enabled(self, reason: str) -> bool:
        """Whether the YAML turns this flag reason on."""
        rule: _Simple | _ScoreRule = getattr(self._rules, reason)
        return rule.enabled

    def evaluate(self, inputs: FlagInputs) -> list[Flag]:
        """Every enabled flag the inputs raise, most severe first (catalog order within a severity)."""
        hits = {
            reason: (detail, self._severity(reason)) for reason, detail in _finding_details(inputs).items()
        }
        hits.update(self._score_flags(inputs))
        flags = [
            Flag(reason, hits[reason][0][:_MAX_DETAIL_CHARS], hits[reason][1])
            for reason in FLAG_REASONS
            if reason in hits and self.enabled(reason)
        ]
        return sorted(flags, key=lambda flag: SEVERITY_RANK[flag.severity])

    def _severity(self, reason: str) -> Severity:
        rule: _Simple = getattr(self._rules, reason)
        return rule.severity

    def _score_flags(self, inputs: FlagInputs) -> dict[str, tuple[str, Severity]]:
        if inputs.scores is None:
            return {}
        hits: dict[str, tuple[str, Severity]] = {}
        for reason, read in _SCORE_FLAGS.items():
            rule: _ScoreRule = getattr(self._rules, reason)
            score = read(inputs.scores)
            if score is None or not math.isfinite(score) or (rule.skip_when_abstained and inputs.abstained):
                continue
            band = rule.band(score)
            if band is not None:
                name = reason.removeprefix("low_").replace("_", " ")
                hits[reason] = (f"{name} {_number(score, band.below)} < {band.below:.2f}", band.severity)
        return hits


def _finding_details(inputs: FlagInputs) -> dict[str, str]:
    """The detail line of every non-score flag whose input is present."""
    golden = f"golden {inputs.golden_id}" if inputs.golden_id else "the golden entry"
    candidates = {
        "numeric_unsupported": _says(inputs.numeric_unsupported, "no retrieved chunk does"),
        "numeric_missing": _expected(inputs.numeric_missing, golden),
        "numeric_out_of_source": _says(inputs.numeric_out_of_source, f"the sections {golden} expects do not"),
        "should_abstain": f"{golden} is unanswerable; the answer does not abstain"
        if inputs.should_abstain
        else None,
        "golden_retrieval_miss": _retrieval_miss(inputs, golden),
        "invalid_citation": _cites(inputs.invalid_citations),
        "negative_feedback": _feedback(inputs),
        "conflicting_context": _conflicts(inputs.conflicting_context),
        "judge_error": f"judge failed: {inputs.judge_error}" if inputs.judge_error else None,
    }
    return {reason: detail for reason, detail in candidates.items() if detail is not None}


def _says(items: Sequence[object], tail: str) -> str | None:
    return f"answer says {_listing(items)}; {tail}" if items else None


def _expected(items: Sequence[object], golden: str) -> str | None:
    return f"{golden} expects {_listing(items)}; the answer does not say it" if items else None


def _retrieval_miss(inputs: FlagInputs, golden: str) -> str | None:
    if not inputs.golden_retrieval_miss:
        return None
    return inputs.golden_retrieval_miss_detail or f"no section {golden} expects is in the top-k"


def _cites(citations: Sequence[str]) -> str | None:
    return f"cites {_listing(citations)}; not among the retrieved chunks" if citations else None


def _feedback(inputs: FlagInputs) -> str | None:
    if not inputs.negative_feedback:
        return None
    reason = inputs.negative_feedback_reason
    return f"user rated the answer negative: {_clip(reason)}" if reason else "user rated the answer negative"


def _conflicts(count: int) -> str | None:
    if count <= 0:
        return None
    return f"retrieved chunks disagree on {count} number{'s' if count > 1 else ''}"


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
