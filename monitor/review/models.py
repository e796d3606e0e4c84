"""What the review queue holds: a flagged trace with its result record, reasons, label and history."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal

from monitor.exceptions import RagmonError

Verdict = Literal["ok", "bad"]
VERDICTS: tuple[Verdict, ...] = ("ok", "bad")
VERSION_KEYS = ("model_id", "prompt_version", "index_version")


class Status(StrEnum):
    """Where a case is in review: waiting, judged right (confirmed) or wrong (false_alarm), or promoted."""

    PENDING = "pending"
    CONFIRMED = "confirmed"
    FALSE_ALARM = "false_alarm"
    PROMOTED = "promoted"


class ReviewError(RagmonError):
    """A review action cannot be done as asked (unknown case, refused promotion)."""


class CaseNotFound(ReviewError):
    """No case with this trace id is in the store."""

    def __init__(self, trace_id: str) -> None:
        super().__init__(f"no case with trace id {trace_id!r} in the review store")
        self.trace_id = trace_id


@dataclass(frozen=True, slots=True)
class Flag:
    """One reason a trace was queued, with the detail and severity of the first time it was raised."""

    reason: str
    detail: str | None = None
    severity: str | None = None  # None: stored before severities were kept


@dataclass(frozen=True, slots=True)
class Label:
    """A reviewer's judgement: ``bad`` means the case should fail, ``ok`` that the flag was a false alarm."""

    verdict: Verdict
    labelled_at: datetime
    expected_answer: str | None = None
    sections: tuple[str, ...] = ()
    note: str | None = None
    reviewer: str | None = None


@dataclass(frozen=True, slots=True)
class Promotion:
    """Where a case went in the golden set: its entry's source tag and the golden-set version."""

    source: str
    golden_version: int
    promoted_at: datetime


@dataclass(frozen=True, slots=True)
class Case:
    """One trace in the review queue; ``trace`` and ``result`` are already scrubbed of PII."""

    trace_id: str
    trace: dict[str, Any]
    result: dict[str, Any]
    flags: tuple[Flag, ...]
    status: Status
    created_at: datetime
    updated_at: datetime
    label: Label | None = None
    promotion: Promotion | None = None
    samples: tuple[str, ...] = field(default=())

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(flag.reason for flag in self.flags)

    @property
    def question(self) -> str:
        return str(self.trace.get("question", ""))

    @property
    def answer(self) -> str:
        return str(self.trace.get("answer", ""))

    @property
    def versions(self) -> dict[str, str | None]:
        """model_id, prompt_version and index_version, from the result record or else the trace."""
        recorded = self.result.get("versions") or {}
        return {key: recorded.get(key) or self.trace.get(key) for key in VERSION_KEYS}

    @property
    def scores(self) -> dict[str, float | None]:
        return dict(self.result.get("scores") or {})

    @property
    def judge(self) -> dict[str, Any]:
        return dict(self.result.get("judge") or {})

    def to_json(self) -> dict[str, Any]:
        """The case as a JSON-ready dict, the shape ``ragmon review list --format json`` prints."""
        return {
            "trace_id": self.trace_id,
            "status": str(self.status),
            "reasons": list(self.reasons),
            "flags": [{"reason": f.reason, "detail": f.detail, "severity": f.severity} for f in self.flags],
            "question": self.question,
            "answer": self.answer,
            "versions": self.versions,
            "scores": self.scores,
            "judge": self.judge,
            "samples": list(self.samples),
            "label": _label_json(self.label),
            "promotion": _promotion_json(self.promotion),
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "trace": self.trace,
            "result": self.result,
        }


def _label_json(label: Label | None) -> dict[str, Any] | None:
    if label is None:
        return None
    return {
        "verdict": label.verdict,
        "expected_answer": label.expected_answer,
        "sections": list(label.sections),
        "note": label.note,
        "reviewer": label.reviewer,
        "labelled_at": label.labelled_at.isoformat(),
    }


def _promotion_json(promotion: Promotion | None) -> dict[str, Any] | None:
    if promotion is None:
        return None
    return {
        "source": promotion.source,
        "golden_version": promotion.golden_version,
        "promoted_at": promotion.promoted_at.isoformat(),
    }


@dataclass(frozen=True, slots=True)
class CaseFilter:
    """Which cases ``list_cases`` returns; every field narrows, ``None`` means any."""

    status: Status | None = None
    reason: str | None = None
    version: str | None = None  # any of model_id, prompt_version, index_version
    model_id: str | None = None
    prompt_version: str | None = None
    index_version: str | None = None
    severity: str | None = None  # a flag of the case was raised with this severity
    since: datetime | None = None
    until: datetime | None = None  # stored before this moment
    sample: str | None = None
    labelled: bool | None = None
    labelled_since: datetime | None = None  # labelled (or relabelled) at or after this moment
    limit: int | None = None
    offset: int = 0  # with ``limit``: skip this many (pages of the queue)


_RELATIVE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def moment_since(value: str, now: datetime | None = None) -> datetime:
    """An ISO date or datetime (UTC when naive), or a span back from now: 30m, 24h, 7d, 2w.

    The ``--since`` of the review commands and the ``since`` of the web queue's filters."""
    match = _RELATIVE.match(value.strip())
    if match:
        span = timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
        return (now or datetime.now(UTC)) - span
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO date or a span like 24h or 7d") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
