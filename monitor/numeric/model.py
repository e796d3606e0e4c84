"""What the numeric rules find: quantities, context conflicts, and the two reports built from them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

# Finding kinds: the `kind` label of ragmon_numeric_findings_total and the keys of the result record.
UNSUPPORTED = "unsupported"
CONFLICTING_CONTEXT = "conflicting_context"
MISSING = "missing"
OUT_OF_SOURCE = "out_of_source"

# The flag reason each kind raises (DESIGN.md); conflicting context is a risk signal, not a flag.
FLAG_REASONS: dict[str, str] = {
    UNSUPPORTED: "numeric_unsupported",
    MISSING: "numeric_missing",
    OUT_OF_SOURCE: "numeric_out_of_source",
}


def json_number(value: Decimal) -> int | float:
    """Return ``value`` as a JSON number: an int when integral, else a float."""
    return int(value) if value == value.to_integral_value() else float(value)


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number with its canonical unit; equal to any other writing of the same amount."""

    value: Decimal
    unit: str
    text: str = field(default="", compare=False)

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON-ready form used in result records."""
        return {"text": self.text, "value": json_number(self.value), "unit": self.unit}


@dataclass(frozen=True, slots=True)
class Conflict:
    """Retrieved chunks disagree on a unit: ``values`` are the distinct amounts found, ascending."""

    unit: str
    values: tuple[Decimal, ...]

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON-ready form used in result records."""
        return {"unit": self.unit, "values": [json_number(value) for value in self.values]}


def _quantities(items: Iterable[Quantity]) -> list[dict[str, Any]]:
    return [item.as_dict() for item in items]


@dataclass(frozen=True, slots=True)
class NumericReport:
    """Reference-free result on one trace: answer numbers absent from the context, context conflicts."""

    unsupported: tuple[Quantity, ...] = ()
    conflicting_context: tuple[Conflict, ...] = ()

    @property
    def findings(self) -> Iterator[tuple[str, str]]:
        """Yield ``(kind, unit)`` once per finding, for ``ragmon_numeric_findings_total``."""
        for quantity in self.unsupported:
            yield UNSUPPORTED, quantity.unit
        for conflict in self.conflicting_context:
            yield CONFLICTING_CONTEXT, conflict.unit

    def as_dict(self) -> dict[str, Any]:
        """Return the ``numeric`` part of the result record (reference-free keys)."""
        return {
            UNSUPPORTED: _quantities(self.unsupported),
            CONFLICTING_CONTEXT: [conflict.as_dict() for conflict in self.conflicting_context],
        }


@dataclass(frozen=True, slots=True)
class ReferenceReport:
    """Result against a golden entry: expected numbers the answer lacks, answer numbers off-source."""

    missing: tuple[Quantity, ...] = ()
    out_of_source: tuple[Quantity, ...] = ()

    @property
    def passed(self) -> bool:
        """True when nothing is missing and nothing is out of source (seed 000's "ĐẠT")."""
        return not self.missing and not self.out_of_source

    @property
    def findings(self) -> Iterator[tuple[str, str]]:
        """Yield ``(kind, unit)`` once per finding, for ``ragmon_numeric_findings_total``."""
        for quantity in self.missing:
            yield MISSING, quantity.unit
        for quantity in self.out_of_source:
            yield OUT_OF_SOURCE, quantity.unit

    def as_dict(self) -> dict[str, Any]:
        """Return the reference part of the result record's ``numeric`` object."""
        return {MISSING: _quantities(self.missing), OUT_OF_SOURCE: _quantities(self.out_of_source)}
