"""Section retrieval metrics: seed 000 section 4's worked numbers, edge cases and properties."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.retrieval import (
    first_hit_rank,
    hit_at_k,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank,
    score_ranking,
)

POLICY = Path(__file__).parents[1] / "data" / "banhang" / "policy.json"


@pytest.fixture(scope="module")
def policy() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(POLICY.read_text(encoding="utf-8"))
    return data


def ranking(policy: dict[str, Any], config: str, question: str) -> list[list[str]]:
    chunks = policy["chunkings"][config]
    return [chunks[c] for c in policy["seed_top5"][config][question]]


def test_q05_chunk200_hit_and_recall(policy: dict[str, Any]) -> None:
    """q05 at chunk-200 (c03 then c02): hit@1 = 1, recall@1 = 0.5, recall@3 = 1, RR = 1."""
    ranked = ranking(policy, "chunk-200", "q05")
    expected = {"DT-2", "DT-3"}
    assert hit_at_k(ranked, expected, 1) is True
    assert recall_at_k(ranked, expected, 1) == 0.5
    assert recall_at_k(ranked, expected, 3) == 1.0
    assert reciprocal_rank(ranked, expected, 5) == 1.0


def test_q04_chunk200_first_hit_at_rank_two(policy: dict[str, Any]) -> None:
    """q04 at chunk-200: the right chunk is second, so hit@1 = 0 and RR = 0.5."""
    ranked = ranking(policy, "chunk-200", "q04")
    assert first_hit_rank(ranked, {"DT-5"}) == 2
    assert hit_at_k(ranked, {"DT-5"}, 1) is False
    assert reciprocal_rank(ranked, {"DT-5"}, 5) == 0.5


def test_q05_chunk800_ndcg(policy: dict[str, Any]) -> None:
    """q05 at chunk-800 has relevant chunks at ranks 1 and 3: nDCG@5 = 1.5 / 1.63 ≈ 0.92."""
    ranked = ranking(policy, "chunk-800", "q05")
    expected_value = 1.5 / (1 + 1 / math.log2(3))
    assert ndcg_at_k(ranked, {"DT-2", "DT-3"}, 5) == pytest.approx(expected_value)
    assert round(ndcg_at_k(ranked, {"DT-2", "DT-3"}, 5), 2) == 0.92


def test_seed_table_averages(policy: dict[str, Any]) -> None:
    """Averaged over the five questions: MRR@5 0.90 -> 0.63, hit@1 0.80 -> 0.40, hit@3 and recall@3 1.00."""
    golden = {"q01": {"DT-1"}, "q02": {"DT-2"}, "q03": {"DT-4"}, "q04": {"DT-5"}, "q05": {"DT-2", "DT-3"}}
    table = {}
    for config in ("chunk-200", "chunk-800"):
        scores = [score_ranking(ranking(policy, config, q), e, 5) for q, e in golden.items()]
        table[config] = {
            "mrr@5": mean(s.reciprocal_rank for s in scores),
            "hit@1": mean(s.hit_at[1] for s in scores),
            "hit@3": mean(s.hit_at[3] for s in scores),
            "recall@3": mean(s.recall_at[3] for s in scores),
        }
    assert table["chunk-200"] == pytest.approx({"mrr@5": 0.90, "hit@1": 0.80, "hit@3": 1.0, "recall@3": 1.0})
    assert table["chunk-800"] == pytest.approx(
        {"mrr@5": 0.633, "hit@1": 0.40, "hit@3": 1.0, "recall@3": 1.0}, abs=1e-3
    )


def test_miss_and_cutoff() -> None:
    """A relevant chunk beyond k is a miss: rank None, RR 0, hit False, recall 0."""
    ranked = [["A"], ["B"], ["C"]]
    assert first_hit_rank(ranked, {"C"}, k=2) is None
    assert reciprocal_rank(ranked, {"C"}, 2) == 0.0
    assert hit_at_k(ranked, {"C"}, 2) is False
    assert recall_at_k(ranked, {"C"}, 2) == 0.0
    assert ndcg_at_k(ranked, {"C"}, 2) == 0.0


def test_nothing_expected_scores_zero() -> None:
    """With no expected section, recall and nDCG are 0 rather than a division error."""
    assert recall_at_k([["A"]], set(), 1) == 0.0
    assert ndcg_at_k([["A"]], set(), 1) == 0.0


def test_score_ranking_rejects_bad_k() -> None:
    """k below 1 is a programming error."""
    with pytest.raises(ValueError, match="k must be"):
        score_ranking([["A"]], {"A"}, 0)


def test_score_ranking_cutoffs_stop_at_k() -> None:
    """Cut-offs above k are dropped and k itself is always present."""
    scores = score_ranking([["A"], ["B"]], {"B"}, 2, cutoffs=(1, 3, 10))
    assert sorted(scores.hit_at) == [1, 2]
    assert scores.hit_at_k is True
    assert scores.recall_at_k == 1.0


sections = st.sampled_from(["A", "B", "C", "D", "E"])
rankings = st.lists(st.lists(sections, max_size=3), max_size=8)


@given(rankings, st.sets(sections, min_size=1), st.integers(1, 8))
def test_metrics_bounds_and_consistency(ranked: list[list[str]], expected: set[str], k: int) -> None:
    """Every metric lies in [0, 1]; RR is 1/rank; hit@k and nDCG > 0 agree with the first-hit rank."""
    rank = first_hit_rank(ranked, expected, k)
    rr = reciprocal_rank(ranked, expected, k)
    assert rr == (1.0 / rank if rank else 0.0)
    assert hit_at_k(ranked, expected, k) == (rank is not None)
    assert 0.0 <= recall_at_k(ranked, expected, k) <= 1.0
    assert 0.0 <= ndcg_at_k(ranked, expected, k) <= 1.0 + 1e-12
    assert (ndcg_at_k(ranked, expected, k) > 0) == (rank is not None)


@given(rankings, st.sets(sections, min_size=1), st.integers(1, 7))
def test_hit_and_recall_grow_with_k(ranked: list[list[str]], expected: set[str], k: int) -> None:
    """hit@k and recall@k never fall when k grows (they ignore order, unlike RR)."""
    assert hit_at_k(ranked, expected, k) <= hit_at_k(ranked, expected, k + 1)
    assert recall_at_k(ranked, expected, k) <= recall_at_k(ranked, expected, k + 1)
