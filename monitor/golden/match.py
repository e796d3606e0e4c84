"""Match a live question to the closest golden question: lexical prefilter, then e5 confirmation.

e5 cosines are compressed (unrelated Vietnamese questions still score 0.78-0.90) and unaccented text
clusters together, so the embedding compares the *normalized* intent words of both sides and its
cosine is rescaled from a floor before it is blended with the lexical score. A match needs the blend
over ``threshold`` and a ``margin`` over the second-best entry: a question close to two entries is
ambiguous, and a wrong reference check is worse than none. The embedding runs only when some entry is
lexically close (``prefilter``), since this runs on every trace.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from monitor.embeddings import Embedder, Vectors
from monitor.golden.model import GoldenEntry, GoldenSet
from monitor.golden.text import TermWeights, Vocabulary, lexical_similarity, terms

# Fitted on tests/data/golden_match/{q01..q05,negatives}.yaml (grid over weight, threshold, margin):
# there, hard negatives peak at 0.53 and paraphrases bottom out at 0.64; 0.58 sits between them.
DEFAULT_MATCH_THRESHOLD = 0.58
DEFAULT_MATCH_MARGIN = 0.10
DEFAULT_LEXICAL_WEIGHT = 0.5
# e5-small's cosine between unrelated normalized questions sits around here; below it means nothing.
SEMANTIC_FLOOR = 0.85


@dataclass(frozen=True)
class GoldenMatch:
    """The golden entry a question matched, with the blended, lexical and semantic scores."""

    entry: GoldenEntry
    similarity: float
    lexical: float
    semantic: float
    margin: float


@dataclass(frozen=True)
class Candidate:
    """One entry's scores for a question (diagnostics and threshold fitting)."""

    entry: GoldenEntry
    similarity: float
    lexical: float
    semantic: float | None


def lossless_prefilter(threshold: float, lexical_weight: float) -> float:
    """The lexical score below which no semantic score can lift the blend to ``threshold``."""
    if lexical_weight <= 0.0:
        return 0.0
    return max(0.0, (threshold - (1.0 - lexical_weight)) / lexical_weight)


class GoldenMatcher:
    """Finds the golden entry a live question asks, or None; build once, call ``match`` per trace.

    ``prefilter`` defaults to the lossless bound: skipping the embedding below it never changes a result.
    """

    def __init__(
        self,
        golden: GoldenSet,
        embedder: Embedder,
        threshold: float = DEFAULT_MATCH_THRESHOLD,
        k: int = 5,
        *,
        margin: float = DEFAULT_MATCH_MARGIN,
        prefilter: float | None = None,
        lexical_weight: float = DEFAULT_LEXICAL_WEIGHT,
        vocabulary: Vocabulary | None = None,
    ) -> None:
        self.golden, self.threshold, self.k = golden, threshold, k
        self.margin, self.lexical_weight = margin, lexical_weight
        self.prefilter = lossless_prefilter(threshold, lexical_weight) if prefilter is None else prefilter
        self._embedder = embedder
        self._vocab = vocabulary or Vocabulary.load()
        keys = [self._key(e.question) for e in golden.entries]
        self._terms = [terms(key) for key in keys]
        self._weights = TermWeights(self._terms)
        self._vectors: Vectors = embedder.embed([" ".join(key) for key in keys], "query")

    def _key(self, question: str) -> tuple[str, ...]:
        return self._vocab.tokens(question) or tuple(question.split())

    def match(self, question: str) -> GoldenMatch | None:
        """The entry this question asks for, or None when none is close enough and clearly ahead."""
        ranked = self.candidates(question)
        best = ranked[0] if ranked else None
        if best is None or best.semantic is None or best.similarity < self.threshold:
            return None
        margin = best.similarity - (ranked[1].similarity if len(ranked) > 1 else 0.0)
        if margin < self.margin:
            return None
        return GoldenMatch(best.entry, best.similarity, best.lexical, best.semantic, margin)

    def candidates(self, question: str, prefilter: bool = True) -> list[Candidate]:
        """Every entry scored for ``question``, best first; lexical only when the prefilter rejects it."""
        key = self._key(question)
        query = terms(key)
        lexical = np.array([lexical_similarity(query, t, self._weights) for t in self._terms])
        if not len(lexical):
            return []
        if prefilter and lexical.max() < self.prefilter:
            return self._ranked(lexical, None)
        cosines = (self._embedder.embed([" ".join(key)], "query") @ self._vectors.T)[0]
        return self._ranked(lexical, cosines)

    def _ranked(self, lexical: np.ndarray, cosines: np.ndarray | None) -> list[Candidate]:
        if cosines is None:
            blend = self.lexical_weight * lexical
        else:
            semantic = np.clip((cosines - SEMANTIC_FLOOR) / (1.0 - SEMANTIC_FLOOR), 0.0, 1.0)
            blend = self.lexical_weight * lexical + (1.0 - self.lexical_weight) * semantic
        order = np.argsort(-blend, kind="stable")
        return [
            Candidate(
                entry=self.golden.entries[i],
                similarity=float(blend[i]),
                lexical=float(lexical[i]),
                semantic=None if cosines is None else float(cosines[i]),
            )
            for i in order
        ]
