"""The RAG triad computed from a judge's narrow verdicts: code does the arithmetic, never the model.

- faithfulness       = supported claims / claims (Ragas); no claims -> ``None``, not 1.0.
- context_relevance  = useful chunks / retrieved chunks (order-blind: "how clean is the context").
- context_precision  = average precision of the useful verdicts over rank (Ragas/DeepEval; order-aware).
  Seed 002: [1,0,1] -> relevance 0.667, precision 0.833; [0,1,1] -> precision 0.583; [1,1,0] -> 1.0.
- answer_relevance   = mean cosine(question, reverse question_i), clipped to [0, 1], times
  (1 - share of noncommittal reverse questions); ``strict`` zeroes it on any noncommittal one (Ragas
  default). An honest abstention, where the context cannot answer the question, is not penalized for
  being noncommittal (seed 002 section 10).
"""

from __future__ import annotations

from collections.abc import Sequence

from monitor.judge.base import ClaimVerdict, Scores, Verdicts


def faithfulness(claims: Sequence[ClaimVerdict]) -> float | None:
    """Share of the answer's claims that the retrieved chunks support; undefined without claims."""
    if not claims:
        return None
    return sum(1 for claim in claims if claim.supported) / len(claims)


def context_relevance(useful: Sequence[bool]) -> float | None:
    """Share of retrieved chunks that helped the answer, ignoring their order; undefined without chunks."""
    if not useful:
        return None
    return sum(1 for flag in useful if flag) / len(useful)


def context_precision(useful: Sequence[bool]) -> float | None:
    """Average precision of the useful chunks over rank; 0.0 when none helped, undefined without chunks."""
    if not useful:
        return None
    hits = 0
    total = 0.0
    for rank, flag in enumerate(useful, start=1):
        if flag:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def answer_relevance(
    similarities: Sequence[float],
    noncommittal: Sequence[bool],
    strict: bool = False,
    abstained: bool = False,
) -> float | None:
    """Mean clipped cosine of the reverse questions to the question, discounted for noncommittal ones."""
    if not similarities:
        return None
    if len(noncommittal) not in (0, len(similarities)):
        raise ValueError("noncommittal flags must match the reverse questions one to one")
    mean = sum(min(max(s, 0.0), 1.0) for s in similarities) / len(similarities)
    if abstained or not noncommittal:
        return mean
    evasive = sum(1 for flag in noncommittal if flag)
    if strict:
        return 0.0 if evasive else mean
    return mean * (1.0 - evasive / len(noncommittal))


def score(verdicts: Verdicts, similarities: Sequence[float], strict: bool = False) -> Scores:
    """All four metrics of one judged trace from its verdicts and reverse-question similarities."""
    return Scores(
        faithfulness=faithfulness(verdicts.claims),
        answer_relevance=answer_relevance(
            similarities, verdicts.noncommittal, strict=strict, abstained=verdicts.abstained
        ),
        context_relevance=context_relevance(verdicts.chunk_useful),
        context_precision=context_precision(verdicts.chunk_useful),
    )
