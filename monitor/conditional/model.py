"""What the conditional-value check finds: answer values that only a condition's sentence supports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from monitor.numeric.model import Quantity, json_number

FLAG_REASON = "unqualified_condition"
KIND = "unqualified_condition"  # the `kind` label of ragmon_numeric_findings_total
Severity = Literal["warning", "critical"]


@dataclass(frozen=True, slots=True)
class ConditionalFinding:
    """An answer value stated as general that the context binds to ``condition``.

    ``general`` holds the other values of the same unit the context states for the general case; a
    finding with one is critical (the answer picked the exception over the rule), else a warning.
    """

    text: str
    value: Decimal
    unit: str
    condition: str
    general: tuple[Quantity, ...] = ()

    @property
    def severity(self) -> Severity:
        return "critical" if self.general else "warning"

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form of the result record's ``conditional`` list."""
        return {
            "text": self.text,
            "value": json_number(self.value),
            "unit": self.unit,
            "condition": self.condition,
            "general": [quantity.as_dict() for quantity in self.general],
            "severity": self.severity,
        }


@dataclass(frozen=True, slots=True)
class ConditionalReport:
    """The conditional-value check's result on one trace (empty: nothing stated as general)."""

    findings: tuple[ConditionalFinding, ...] = ()
    # answer values that a condition-bound statement supports and whose condition the question or
    # answer carries ("Plus members get 30 days"): stated with their scope, they are not wrong numbers
    qualified: tuple[Quantity, ...] = ()
    # findings a reviewer muted (monitor.conditional.mutes): reported apart, never flagged
    muted: tuple[ConditionalFinding, ...] = ()

    @property
    def critical(self) -> bool:
        """True when some finding has a general value beside it (the sampler treats it as numeric)."""
        return any(finding.severity == "critical" for finding in self.findings)

    def told_to_everyone(self) -> frozenset[tuple[float, str]]:
        """``(value, unit)`` of the critical findings: the exception told to everyone while the context
        gives the general case another value (the local judge caps a claim stating one)."""
        return frozenset(
            (round(float(f.value), 6), f.unit) for f in self.findings if f.severity == "critical"
        )

    @property
    def severity(self) -> Severity | None:
        """The worst finding's severity, None without findings."""
        if not self.findings:
            return None
        return "critical" if self.critical else "warning"

    def kinds(self) -> Iterator[tuple[str, str]]:
        """``(kind, unit)`` per finding, for ``ragmon_numeric_findings_total``."""
        for finding in self.findings:
            yield KIND, finding.unit.split(":", 1)[0]

    def as_dict(self) -> list[dict[str, Any]]:
        """The result record's ``conditional`` list."""
        return [finding.as_dict() for finding in self.findings]

    def muted_units(self) -> Iterator[str]:
        """The canonical unit of each muted finding, for ``ragmon_conditional_muted_total``."""
        for finding in self.muted:
            yield finding.unit.split(":", 1)[0]

    def muted_dicts(self) -> list[dict[str, Any]]:
        """The result record's ``conditional_muted`` list (the record has it only when not empty)."""
        return [finding.as_dict() for finding in self.muted]
