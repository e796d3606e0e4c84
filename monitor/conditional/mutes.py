"""Findings reviewers muted: a condition phrase that, read by a person, does not bind the value.

The conditional check reads a policy with rules; on a business nobody fitted them on it misreads some
sentences ("远程取号仅限距门店5公里以内的顾客" taken to bind the queue's "5分钟" after it) and raises
the same false finding on every trace that retrieves them. A reviewer who reads the sentence can mute
that finding (``ragmon review mute TRACE_ID``): the store keeps ``(condition, value, unit)``, every
replica reloads the list, and the check reports a muted finding apart (``ConditionalReport.muted``,
the record's ``conditional_muted``, ``ragmon_conditional_muted_total``) instead of flagging it. A
mute is exact: another phrase, value or unit is a finding again, and a changed policy sentence
(another phrase) brings its findings back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from monitor.conditional.model import ConditionalFinding, ConditionalReport


@dataclass(frozen=True, slots=True)
class Mute:
    """One muted finding: the condition phrase as the check reports it, the value and its unit."""

    condition: str
    value: Decimal
    unit: str

    @classmethod
    def of(cls, finding: ConditionalFinding) -> Mute:
        return cls(" ".join(finding.condition.split()), finding.value, finding.unit)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Mute:
        """From a result record's ``conditional`` entry or a stored mute; ValueError when malformed."""
        try:
            condition, unit = data["condition"], data["unit"]
            value = Decimal(str(data["value"]))
        except (KeyError, TypeError, InvalidOperation) as exc:
            raise ValueError(f"not a conditional finding: {dict(data)!r}") from exc
        if not isinstance(condition, str) or not isinstance(unit, str) or not value.is_finite():
            raise ValueError(f"not a conditional finding: {dict(data)!r}")
        return cls(" ".join(condition.split()), value, unit)

    @property
    def value_text(self) -> str:
        """The value as stored and shown: plain digits, no exponent or trailing zeros ("30", "0.5")."""
        return format(self.value.normalize(), "f")

    def as_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "value": self.value_text, "unit": self.unit}


class MuteList:
    """The mutes a running check applies, replaced whole on each reload (a reference swap: the worker
    threads that read it never see a half-built set)."""

    def __init__(self, mutes: Iterable[Mute] = ()) -> None:
        self._mutes = frozenset(mutes)
        self._stored: Callable[[str], str] = str  # how the store writes a condition phrase

    def store_as(self, stored: Callable[[str], str]) -> None:
        """Compare a finding's phrase as the store keeps it: scrubbed of PII ("If you email
        [EMAIL]"), so a mute made from a stored case matches the live finding."""
        self._stored = stored

    def __len__(self) -> int:
        return len(self._mutes)

    def replace(self, mutes: Iterable[Mute]) -> None:
        self._mutes = frozenset(mutes)

    def apply(self, report: ConditionalReport) -> ConditionalReport:
        """``report`` with its muted findings moved to ``muted`` (the same report when none is)."""
        mutes = self._mutes
        if not mutes or not report.findings:
            return report
        muted = tuple(f for f in report.findings if self._key(f) in mutes)
        if not muted:
            return report
        kept = tuple(f for f in report.findings if f not in muted)
        return replace(report, findings=kept, muted=(*report.muted, *muted))

    def _key(self, finding: ConditionalFinding) -> Mute:
        mute = Mute.of(finding)
        return Mute(" ".join(self._stored(mute.condition).split()), mute.value, mute.unit)
