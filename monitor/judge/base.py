"""What every judge takes and returns: narrow verdicts made by a model or by rules, scored by code.

A judge (LLM or local) only decides verdicts: the answer's claims and whether each is supported and
by which chunk, whether each chunk helped the answer, reverse-generated questions and whether each is
noncommittal. ``monitor.triad`` turns verdicts into scores, so no text in a trace can change the
arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class JudgeChunk:
    """A retrieved chunk as the judge sees it, in rank order; ``chunk_id`` is the trace's id or ``#rank``."""

    chunk_id: str
    text: str


@dataclass(frozen=True, slots=True)
class JudgeInput:
    """The untrusted text of one trace that a judge reads."""

    trace_id: str
    question: str
    answer: str
    chunks: tuple[JudgeChunk, ...]
    language: str | None = None


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


@dataclass(slots=True)
class Usage:
    """LLM calls and tokens spent on one trace, read from the server's ``usage`` fields."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Scores:
    """The triad; ``None`` where a metric is undefined (no claims, no chunks)."""

    faithfulness: float | None
    answer_relevance: float | None
    context_relevance: float | None
    context_precision: float | None

    def as_dict(self) -> dict[str, float | None]:
        return {
            "faithfulness": self.faithfulness,
            "answer_relevance": self.answer_relevance,
            "context_relevance": self.context_relevance,
            "context_precision": self.context_precision,
        }


@dataclass(slots=True)
class JudgeResult:
    """A judged trace: who judged it, the verdicts, the scores, and what it cost."""

    judge: str
    prompt_version: str
    verdicts: Verdicts
    scores: Scores
    usage: Usage = field(default_factory=Usage)
    cached: bool = False


class Judge(Protocol):
    """Scores one trace; raises ``monitor.exceptions.JudgeError`` subclasses when it cannot."""

    @property
    def name(self) -> str: ...

    @property
    def prompt_version(self) -> str: ...

    async def judge(self, item: JudgeInput) -> JudgeResult: ...

    async def aclose(self) -> None: ...
