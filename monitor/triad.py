"""The RAG triad computed from a judge's narrow verdicts: code does the arithmetic, never the model.

- faithfulness       = supported claims / claims (Ragas); no claims -> ``None``, not 1.0. A claim that
  carries a support score (the local judge's support probability) counts by that score instead of 0/1,
  so faithfulness is the expected share of supported claims.
- context_relevance  = useful chunks / retrieved chunks (order-blind: "how clean is the context").
- context_precision  = average precision of the useful verdicts over rank (Ragas/DeepEval; order-aware).
  Seed 002: [1,0,1] -> relevance 0.667, precision 0.833; [0,1,1] -> precision 0.583; [1,1,0] -> 1.0.
- answer_relevance   = mean cosine(question, reverse question_i), clipped to [0, 1], times
  (1 - share of noncommittal reverse questions); ``strict`` zeroes it on any noncommittal one (Ragas
  default). An honest abstention, where the context cannot answer the question, is not penalized for
  being noncommittal (seed 002 section 10).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from monitor.verdicts import ClaimVerdict, Scores, Verdicts


def faithfulness(claims: Sequence[ClaimVerdict]) -> float | None:
    """Share of the answer's claims that the retrieved chunks support (each claim with a support score
    counting by its score); undefined without claims."""
    if not claims:
        return None
    return sum(float(c.supported) if c.score is None else c.score for c in claims) / len(claims)


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


@dataclass(frozen=True, slots=True)
class ScoreInputs:
    """What a metric is computed from: the verdicts, the reverse questions' similarities, the options."""

    verdicts: Verdicts
    similarities: Sequence[float]
    strict: bool = False


@dataclass(frozen=True, slots=True)
class QualityMetric:
    """One quality metric of the catalog: how it is computed, and how the rest of ragmon treats it.

    Everything reads this catalog: the judges' scores (``score``), the histograms (``monitor.metrics``),
    the ``low_<name>`` flags and their bands (``monitor.flags``, bands in ``rules/flags.yaml``), the
    judge-human agreement (``monitor.review.agreement``) and the case view. Adding a metric computed
    from the verdicts is one entry here, its bands in ``rules/flags.yaml``, and a test.
    """

    name: str
    compute: Callable[[ScoreInputs], float | None]
    doc: str
    target: float  # the production target: agreement is measured there when rules/flags.yaml has no band
    agreement: bool = True  # reviewers' verdicts say something about it
    skip_when_abstained: bool = False  # an honest abstention is not flagged for it


QUALITY: tuple[QualityMetric, ...] = (
    QualityMetric(
        "faithfulness",
        lambda i: faithfulness(i.verdicts.claims),
        "Supported claims / claims (Ragas); undefined without claims.",
        target=0.8,
    ),
    QualityMetric(
        "answer_relevance",
        lambda i: answer_relevance(
            i.similarities, i.verdicts.noncommittal, strict=i.strict, abstained=i.verdicts.abstained
        ),
        "Mean cosine of reverse-generated questions to the question, discounted for noncommittal ones.",
        target=0.7,
        skip_when_abstained=True,
    ),
    QualityMetric(
        "context_relevance",
        lambda i: context_relevance(i.verdicts.chunk_useful),
        "Useful chunks / retrieved chunks (order-blind).",
        target=0.5,
        skip_when_abstained=True,
    ),
    QualityMetric(
        "context_precision",
        lambda i: context_precision(i.verdicts.chunk_useful),
        "Average precision of the useful chunks over rank (order-aware).",
        target=0.5,
        agreement=False,
    ),
)
QUALITY_NAMES = tuple(metric.name for metric in QUALITY)


def score(verdicts: Verdicts, similarities: Sequence[float], strict: bool = False) -> Scores:
    """Every metric of the catalog for one judged trace, from its verdicts and reverse-question cosines."""
    inputs = ScoreInputs(verdicts, similarities, strict)
    return Scores(**{metric.name: metric.compute(inputs) for metric in QUALITY})
