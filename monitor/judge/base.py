"""What every judge takes and returns: narrow verdicts made by a model or by rules, scored by code.

A judge (LLM or local) only decides verdicts: the answer's claims and whether each is supported and
by which chunk, whether each chunk helped the answer, reverse-generated questions and whether each is
noncommittal. ``monitor.triad`` turns verdicts into scores, so no text in a trace can change the
arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from monitor.conditional.model import ConditionalReport
from monitor.trace import Trace
from monitor.verdicts import ClaimVerdict, Scores, Verdicts

__all__ = [
    "ClaimVerdict",
    "Judge",
    "JudgeChunk",
    "JudgeInput",
    "JudgeResult",
    "Scores",
    "Usage",
    "Verdicts",
    "judge_input",
]


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
    # the cheap path's conditional verdict, when it ran: ``(value, unit)`` the answer tells everyone
    # while the chunks bind it to a condition beside the general case's value (the local judge caps
    # such a claim; without it, it runs the check itself)
    told_to_everyone: frozenset[tuple[float, str]] | None = None


def judge_input(trace: Trace, conditional: ConditionalReport | None = None) -> JudgeInput:
    """What the judge reads of a trace; chunks without an id are named by rank (#1, #2, ...)."""
    chunks = tuple(
        JudgeChunk(chunk_id=c.chunk_id or f"#{i}", text=c.text)
        for i, c in enumerate(trace.retrieved_chunks, 1)
    )
    told = conditional.told_to_everyone() if conditional is not None else None
    return JudgeInput(trace.trace_id, trace.question, trace.answer, chunks, trace.language, told)


@dataclass(slots=True)
class Usage:
    """LLM calls and tokens spent on one trace, read from the server's ``usage`` fields."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


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
