"""Deterministic numeric rules (seed 000 section 5): every number+unit must be backed by a source.

Use ``NumericRules.load()`` once, then ``check`` on every trace (reference-free) and
``check_reference`` when a golden entry matched. Units, scale words and number words come from
the YAML rule packs in ``rules/numeric``; a pack is data, adding a language needs no code.
"""

from monitor.numeric.model import (
    CONFLICTING_CONTEXT,
    FLAG_REASONS,
    MISSING,
    OUT_OF_SOURCE,
    UNSUPPORTED,
    Conflict,
    NumericReport,
    Quantity,
    ReferenceReport,
)
from monitor.numeric.rules import NumericRules

__all__ = [
    "CONFLICTING_CONTEXT",
    "FLAG_REASONS",
    "MISSING",
    "OUT_OF_SOURCE",
    "UNSUPPORTED",
    "Conflict",
    "NumericReport",
    "NumericRules",
    "Quantity",
    "ReferenceReport",
]
