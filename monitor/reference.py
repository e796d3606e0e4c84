"""Reference checks from the trace itself: a trace that carries the answer it should have given.

Ragas's ``reference``, DeepEval's ``expected_output`` and a native ``reference_answer`` say what a
reviewer expects; ``reference_contexts`` the passages it comes from. The golden check's numeric rules
(seed 000 section 5) run against them with no golden file: numbers of the reference the answer lacks
(``numeric_missing``) and, when the reference passages are given, answer numbers they do not hold
(``numeric_out_of_source``). A golden match, when there is one, is checked as well; both count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.golden.check import ReferenceRules
from monitor.numeric import Quantity, ReferenceReport
from monitor.numeric.model import OUT_OF_SOURCE, json_number
from monitor.trace import Trace


@dataclass(frozen=True, slots=True)
class ReferenceCheck:
    """The numeric checks of one trace against its own reference answer."""

    numeric: ReferenceReport
    sources_known: bool

    @property
    def numeric_missing(self) -> list[str]:
        """Numbers of the reference answer the answer leaves out."""
        return _texts(self.numeric.missing)

    @property
    def numeric_out_of_source(self) -> list[str]:
        """Answer numbers the reference passages do not hold (empty when none are given)."""
        return _texts(self.numeric.out_of_source) if self.sources_known else []

    @property
    def passed(self) -> bool:
        return not self.numeric_missing and not self.numeric_out_of_source

    def findings(self) -> list[tuple[str, str]]:
        """``(kind, unit)`` per finding that counts (out-of-source only with known passages)."""
        if self.sources_known:
            return list(self.numeric.findings)
        return [(kind, unit) for kind, unit in self.numeric.findings if kind != OUT_OF_SOURCE]

    def as_dict(self) -> dict[str, Any]:
        """The result record's ``reference`` block."""
        return {
            "numeric": {"missing": self.numeric_missing, "out_of_source": self.numeric_out_of_source},
            "sources_known": self.sources_known,
        }


def check_reference(rules: ReferenceRules, trace: Trace) -> ReferenceCheck | None:
    """The trace's reference check, or None when it carries no reference answer."""
    if not trace.reference_answer:
        return None
    sources = trace.reference_contexts
    report = rules.check_reference(trace.answer, trace.reference_answer, sources, omissions=False)
    return ReferenceCheck(report, sources_known=bool(sources))


def _texts(quantities: Sequence[Quantity]) -> list[str]:
    return sorted(q.text or f"{json_number(q.value)} {q.unit}" for q in quantities)
