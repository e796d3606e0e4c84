"""What a judge decides about one trace, and the scores code derives from it (``monitor.triad``).

A judge (LLM or local) only decides verdicts: the answer's claims and whether each is supported and
by which chunk, whether each chunk helped the answer, reverse-generated questions and whether each is
noncommittal. The arithmetic is code's, so no text in a trace can change a score.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

CORE_METRICS = ("faithfulness", "answer_relevance", "context_relevance", "context_precision")


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """One self-contained claim of the answer, in the answer's language."""

    text: str
    supported: bool
    chunk_ids: tuple[str, ...] = ()
    # Optional support confidence in [0, 1] (the local judge fills it): ranks claims within a verdict.
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Verdicts:
    """Everything a judge decides about one trace; scores are derived from these by ``triad``."""

    claims: tuple[ClaimVerdict, ...]
    chunk_useful: tuple[bool, ...]
    reverse_questions: tuple[str, ...]
    noncommittal: tuple[bool, ...]
    abstained: bool = False


class Scores(Mapping[str, float | None]):
    """Quality metric name -> value, ``None`` where a metric is undefined (no claims, no chunks).

    The four core metrics can be given by position or name and read as attributes; any metric of the
    catalog (``monitor.triad.QUALITY``) is a key.
    """

    __slots__ = ("_values",)

    def __init__(
        self,
        faithfulness: float | None = None,
        answer_relevance: float | None = None,
        context_relevance: float | None = None,
        context_precision: float | None = None,
        **more: float | None,
    ) -> None:
        core = (faithfulness, answer_relevance, context_relevance, context_precision)
        self._values: dict[str, float | None] = {**dict(zip(CORE_METRICS, core, strict=True)), **more}

    def __getitem__(self, name: str) -> float | None:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Scores({self._values!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scores) and self._values == other._values

    __hash__ = None  # type: ignore[assignment]  # a mapping of floats: equal by value, not hashable

    @property
    def faithfulness(self) -> float | None:
        return self._values.get("faithfulness")

    @property
    def answer_relevance(self) -> float | None:
        return self._values.get("answer_relevance")

    @property
    def context_relevance(self) -> float | None:
        return self._values.get("context_relevance")

    @property
    def context_precision(self) -> float | None:
        return self._values.get("context_precision")

    def as_dict(self) -> dict[str, float | None]:
        """The ``scores`` block of the result record."""
        return dict(self._values)
