"""Ranked-retrieval metrics over policy sections (seed 000 section 4): hit@k, recall@k, RR, nDCG@k.

Labels name sections ("DT-1"), not chunk ids, because chunk ids change with every re-chunking. A
ranking is the list of retrieved chunks in rank order, each given as the set of sections it contains;
a chunk is relevant when it contains at least one expected section.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

Ranking = Sequence[Collection[str]]


def _relevant(chunk: Collection[str], expected: Collection[str]) -> bool:
    return any(section in expected for section in chunk)


def first_hit_rank(ranking: Ranking, expected: Collection[str], k: int | None = None) -> int | None:
    """1-based rank of the first chunk holding an expected section within the top k, None when none does."""
    top = ranking if k is None else ranking[:k]
    return next((rank for rank, chunk in enumerate(top, 1) if _relevant(chunk, expected)), None)


def reciprocal_rank(ranking: Ranking, expected: Collection[str], k: int) -> float:
    """1 / first-hit rank within the top k, 0 when the top k holds no expected section (TREC-8)."""
    rank = first_hit_rank(ranking, expected, k)
    return 1.0 / rank if rank else 0.0


def hit_at_k(ranking: Ranking, expected: Collection[str], k: int) -> bool:
    """Whether the top k holds at least one chunk with an expected section."""
    return first_hit_rank(ranking, expected, k) is not None


def recall_at_k(ranking: Ranking, expected: Collection[str], k: int) -> float:
    """Share of the expected sections present anywhere in the top k; 0 when nothing is expected."""
    wanted = set(expected)
    if not wanted:
        return 0.0
    found: set[str] = set()
    for chunk in ranking[:k]:
        found.update(wanted.intersection(chunk))
    return len(found) / len(wanted)


def ndcg_at_k(ranking: Ranking, expected: Collection[str], k: int) -> float:
    """Binary-gain nDCG@k; the ideal order puts the retrieved relevant chunks first (0 when none)."""
    gains = [1.0 if _relevant(chunk, expected) else 0.0 for chunk in ranking]
    ideal = sorted(gains, reverse=True)
    idcg = _dcg(ideal[:k])
    return _dcg(gains[:k]) / idcg if idcg else 0.0


def _dcg(gains: Sequence[float]) -> float:
    return math.fsum((2.0**gain - 1.0) / math.log2(rank + 1) for rank, gain in enumerate(gains, 1))


@dataclass(frozen=True)
class RetrievalScores:
    """All the section metrics of one ranking at cut-off k (and at smaller cut-offs for hit/recall)."""

    k: int
    first_hit_rank: int | None
    reciprocal_rank: float
    hit_at: dict[int, bool]
    recall_at: dict[int, float]
    ndcg_at_k: float

    @property
    def hit_at_k(self) -> bool:
        """hit@k at this ranking's cut-off."""
        return self.hit_at[self.k]

    @property
    def recall_at_k(self) -> float:
        """recall@k at this ranking's cut-off."""
        return self.recall_at[self.k]


def score_ranking(
    ranking: Ranking, expected: Collection[str], k: int, cutoffs: Sequence[int] = (1, 3)
) -> RetrievalScores:
    """Compute every section metric of ``ranking`` at ``k`` and hit/recall at each of ``cutoffs``."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    points = sorted({c for c in cutoffs if 1 <= c <= k} | {k})
    return RetrievalScores(
        k=k,
        first_hit_rank=first_hit_rank(ranking, expected, k),
        reciprocal_rank=reciprocal_rank(ranking, expected, k),
        hit_at={c: hit_at_k(ranking, expected, c) for c in points},
        recall_at={c: recall_at_k(ranking, expected, c) for c in points},
        ndcg_at_k=ndcg_at_k(ranking, expected, k),
    )
