"""The local judge's one embedding feature, ``answer_similarity``: what it embeds, when it embeds
nothing, its sentence cache, and how the model reads a feature that was not measured."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
import pytest

from monitor.embeddings import E5_DIM, Kind, VectorCache, Vectors
from monitor.exceptions import ConfigError
from monitor.judge.base import JudgeChunk, JudgeInput
from monitor.judge.local import _SENTENCE_VECTORS, LocalJudge
from monitor.judge.support import FEATURES, SupportModel

SIMILARITY = FEATURES.index("answer_similarity")
CHUNK = (
    "Khách được đổi trả trong 7 ngày kể từ khi nhận hàng. "
    "Phí vận chuyển là 30.000 đồng cho mọi đơn. "
    "Cửa hàng mở cửa từ thứ hai đến thứ bảy."
)


class ScriptedEmbedder:
    """A deterministic stand-in for e5 (a unit vector per kind and text) that records its calls."""

    name = "scripted"

    def __init__(self) -> None:
        self.calls: list[tuple[Kind, tuple[str, ...]]] = []

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        self.calls.append((kind, tuple(texts)))
        rows = [self.row(t, kind) for t in texts]
        return np.stack(rows) if rows else np.zeros((0, E5_DIM), np.float32)

    @staticmethod
    def row(text: str, kind: Kind) -> Vectors:
        seed = int.from_bytes(hashlib.sha256(f"{kind}:{text}".encode()).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(E5_DIM).astype(np.float32)
        normalized: Vectors = v / np.linalg.norm(v)
        return normalized

    def close(self) -> None:
        """Nothing to release."""

    def texts(self, kind: Kind) -> list[str]:
        return [t for k, texts in self.calls if k == kind for t in texts]


def item(answer: str, chunk: str = CHUNK, language: str = "vi") -> JudgeInput:
    return JudgeInput("t-1", "Đổi trả trong bao lâu?", answer, (JudgeChunk("c1", chunk),), language)


def similarity(judge: LocalJudge, trace: JudgeInput) -> float:
    return float(judge.measure(trace).features[0, SIMILARITY])


@pytest.fixture
def embedder() -> ScriptedEmbedder:
    return ScriptedEmbedder()


@pytest.fixture
def judge(embedder: ScriptedEmbedder) -> LocalJudge:
    return LocalJudge(embedder, answer_relevance=False, similarity=True)


def test_one_claim_answer_is_compared_with_the_sentence_covering_most_of_its_words(
    judge: LocalJudge, embedder: ScriptedEmbedder
) -> None:
    """The answer's opening is embedded as a passage and only the best-covering context sentence as a
    query (not the shipping or opening-hours sentence); the feature is their cosine."""
    answer = "Bạn được đổi trả trong 7 ngày."
    value = similarity(judge, item(answer))
    best = "Khách được đổi trả trong 7 ngày kể từ khi nhận hàng."
    assert embedder.texts("passage") == [answer]
    assert embedder.texts("query") == [best]
    expected = float(ScriptedEmbedder.row(answer, "passage") @ ScriptedEmbedder.row(best, "query"))
    assert value == pytest.approx(expected, abs=1e-6)


def test_an_answer_of_several_claims_embeds_nothing(judge: LocalJudge, embedder: ScriptedEmbedder) -> None:
    """Over ``similarity.max_claims`` (1) claims the feature is not measured (NaN) and e5 is not called,
    while a one-claim answer over the same chunk is measured."""
    several = judge.measure(item("Bạn được đổi trả trong 7 ngày. Cửa hàng mở cửa từ thứ hai."))
    assert len(several.claims) == 2
    assert np.isnan(several.features[:, SIMILARITY]).all()
    assert embedder.calls == []
    assert not math.isnan(similarity(judge, item("Cửa hàng mở cửa từ thứ hai.")))


def test_a_claim_already_capped_at_zero_embeds_nothing(judge: LocalJudge, embedder: ScriptedEmbedder) -> None:
    """A number no chunk holds caps the claim at 0 whatever e5 says: nothing is embedded; the same claim
    with the chunk's number is measured."""
    assert math.isnan(similarity(judge, item("Bạn được đổi trả trong 9 ngày.")))
    assert embedder.calls == []
    assert not math.isnan(similarity(judge, item("Bạn được đổi trả trong 7 ngày.")))


def test_an_answer_in_another_language_than_its_chunks_embeds_nothing(
    judge: LocalJudge, embedder: ScriptedEmbedder
) -> None:
    """An English answer over Vietnamese chunks shares no words with them, so no sentence is picked; a
    Vietnamese answer over the same chunks is measured."""
    english = item("You can return items within 7 days of delivery.", language="en")
    assert math.isnan(similarity(judge, english))
    assert embedder.calls == []
    assert not math.isnan(similarity(judge, item("Bạn được đổi trả trong 7 ngày.")))


def test_the_judge_measures_it_when_the_rules_have_a_similarity_model(embedder: ScriptedEmbedder) -> None:
    """By default (``similarity=None``) the feature is measured when the rules hold a
    ``similarity_model``; ``similarity=False`` embeds nothing for support."""
    default = LocalJudge(embedder, answer_relevance=False)
    assert default.rules.similarity_model is not None
    assert not math.isnan(similarity(default, item("Bạn được đổi trả trong 7 ngày.")))
    embedder.calls.clear()
    off = LocalJudge(embedder, answer_relevance=False, similarity=False)
    assert math.isnan(similarity(off, item("Bạn được đổi trả trong 7 ngày.")))
    assert embedder.calls == []


def test_a_chinese_answer_embeds_nothing(judge: LocalJudge, embedder: ScriptedEmbedder) -> None:
    """Chinese is not in ``similarity.languages`` (e5 alone is weakest there): a one-claim Chinese answer
    is not measured, a Vietnamese one is."""
    chinese = JudgeInput(
        "t-2", "退货期限多久？", "七天内可以退货。", (JudgeChunk("c1", "收货后七天内可以退货。"),), "zh"
    )
    assert math.isnan(similarity(judge, chinese))
    assert embedder.calls == []
    assert not math.isnan(similarity(judge, item("Bạn được đổi trả trong 7 ngày.")))


def test_a_one_claim_answer_is_scored_by_the_similarity_model(judge: LocalJudge) -> None:
    """Where the feature is measured the similarity model scores the claim; an answer of two claims keeps
    the lexical model's probabilities exactly."""
    rules = judge.rules
    assert rules.similarity_model is not None
    one = judge.measure(item("Bạn được đổi trả trong 7 ngày."))
    expected = rules.similarity_model.probability(one.features, one.language)
    assert judge.support(one) == pytest.approx(expected)
    two = judge.measure(item("Bạn được đổi trả trong 7 ngày. Cửa hàng mở cửa từ thứ hai."))
    assert judge.support(two) == pytest.approx(rules.model.probability(two.features, two.language))


def test_a_similar_answer_scores_higher_than_a_dissimilar_one(embedder: ScriptedEmbedder) -> None:
    """The fitted weight is positive: the same claim over the same chunk is more supported when e5 finds
    it closer to its sentence."""
    judge = LocalJudge(embedder, answer_relevance=False)
    measured = judge.measure(item("Bạn được đổi trả trong 7 ngày."))
    near, far = measured.features.copy(), measured.features.copy()
    near[0, SIMILARITY], far[0, SIMILARITY] = 0.95, 0.80
    model = judge.rules.similarity_model
    assert model is not None
    assert model.probability(near, "vi")[0] > model.probability(far, "vi")[0]


def test_a_recurring_chunk_sentence_is_embedded_once(judge: LocalJudge, embedder: ScriptedEmbedder) -> None:
    """Production chunks recur across traces: the second answer over the same chunk embeds only its own
    opening; a new chunk sentence is embedded again."""
    similarity(judge, item("Bạn được đổi trả trong 7 ngày."))
    similarity(judge, item("Đổi trả được trong 7 ngày nhé."))
    assert len(embedder.texts("query")) == 1
    assert len(embedder.texts("passage")) == 2
    similarity(judge, item("Bạn được đổi trả trong 7 ngày.", chunk="Đổi trả trong 7 ngày, giữ hóa đơn."))
    assert len(embedder.texts("query")) == 2


def test_the_judge_sentence_cache_is_bounded() -> None:
    """The judge keeps at most ``_SENTENCE_VECTORS`` sentence rows."""
    embedder = ScriptedEmbedder()
    judge = LocalJudge(embedder, answer_relevance=False, similarity=True)
    cache = judge._sentence_vectors
    for i in range(_SENTENCE_VECTORS + 5):
        cache.embed(embedder, [f"câu số {i}"], "query")
    assert len(cache) == _SENTENCE_VECTORS


def test_vector_cache_evicts_the_least_recently_used_row() -> None:
    """A full cache drops the row used longest ago, keeps one just read, and keys by kind as well as
    text (a query row is not a passage row)."""
    embedder = ScriptedEmbedder()
    cache = VectorCache(2)
    cache.embed(embedder, ["a", "b"], "query")
    cache.embed(embedder, ["a"], "query")  # read: "b" is now the oldest
    cache.embed(embedder, ["c"], "query")
    assert len(cache) == 2
    embedder.calls.clear()
    rows = cache.embed(embedder, ["a", "c", "b"], "query")
    assert embedder.calls == [("query", ("b",))]
    assert rows.shape == (3, E5_DIM)
    np.testing.assert_allclose(rows[0], ScriptedEmbedder.row("a", "query"))
    embedder.calls.clear()
    cache.embed(embedder, ["c"], "passage")
    assert embedder.calls == [("passage", ("c",))]


def test_vector_cache_needs_room_for_a_row() -> None:
    """A cache of no rows is a configuration error, not a cache that silently holds nothing."""
    with pytest.raises(ConfigError):
        VectorCache(0)


def test_a_feature_not_measured_stands_at_its_mean() -> None:
    """The model reads NaN as the feature's mean (standard score 0); another value moves the
    probability."""
    model = SupportModel(
        ("coverage", "answer_similarity"),
        np.array([1.0, 2.0]),
        0.0,
        {"default": (np.array([0.5, 0.8]), np.array([0.2, 0.05]))},
        0.5,
    )
    rows = np.full((3, len(FEATURES)), 0.5)
    rows[:, SIMILARITY] = [float("nan"), 0.8, 0.9]
    p = model.probability(rows, "vi")
    assert p[0] == pytest.approx(p[1])
    assert p[2] > p[1]
