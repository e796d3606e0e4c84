"""The golden matcher on the paraphrase splits (tests/data/golden_match/paraphrases): figures held.

The splits and the fit are described in docs/golden-matching.md; ``scripts/golden_match_defaults.py``
prints the figures asserted here (lexical matcher, shipped defaults, train paraphrases as variants).
The floors sit slightly under what was measured on the test split, which nothing was fitted on.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from monitor.golden import GoldenMatcher, GoldenSet
from monitor.golden.fitting import (
    Outcome,
    Paraphrase,
    figures,
    load_domains,
    load_splits,
    outcomes,
    with_negatives,
    with_variants,
)
from monitor.golden.match import DEFAULT_LEXICAL_MARGIN, DEFAULT_LEXICAL_THRESHOLD

DATA = Path(__file__).parents[1] / "data"
PARAPHRASES = DATA / "golden_match" / "paraphrases"
SPLITS = load_splits(PARAPHRASES)


@pytest.fixture(scope="module")
def golden() -> dict[str, GoldenSet]:
    return load_domains(PARAPHRASES, DATA)


def _outcomes(golden: dict[str, GoldenSet], cases: list[Paraphrase], variants: bool) -> list[Outcome]:
    sets = {d: with_variants(g, SPLITS["train"], d) if variants else g for d, g in golden.items()}
    return outcomes({d: GoldenMatcher(g) for d, g in sets.items()}, cases)


def test_splits_are_disjoint_and_large_enough(golden: dict[str, GoldenSet]) -> None:
    """Three domains; >= 20 paraphrases per golden entry across the splits; hard negatives in every split."""
    texts = [(c.domain, c.text) for cases in SPLITS.values() for c in cases]
    assert len(texts) == len(set(texts))
    per_entry = Counter((c.domain, c.expect) for cases in SPLITS.values() for c in cases if c.expect)
    for domain, g in golden.items():
        assert all(per_entry[(domain, e.id)] >= 20 for e in g.entries), domain
        for cases in SPLITS.values():
            assert sum(c.domain == domain and c.expect is None for c in cases) >= 8


def test_test_split_figures(golden: dict[str, GoldenSet]) -> None:
    """With train paraphrases as variants, the shipped lexical matcher holds its measured test figures."""
    found = figures(
        _outcomes(golden, SPLITS["test"], variants=True), DEFAULT_LEXICAL_THRESHOLD, DEFAULT_LEXICAL_MARGIN
    )
    # Measured: recall 0.844 (103/122), false matches 3.7% of matches, hard negatives matched 4/43.
    assert found.recall >= 0.83
    assert found.false_match_rate <= 0.045
    assert found.negative_match_rate <= 0.10


def test_dev_split_figures(golden: dict[str, GoldenSet]) -> None:
    """On dev, where the threshold was chosen, the false-match budget (5%) holds."""
    found = figures(
        _outcomes(golden, SPLITS["dev"], variants=True), DEFAULT_LEXICAL_THRESHOLD, DEFAULT_LEXICAL_MARGIN
    )
    assert found.recall >= 0.90 and found.within_budget()


def test_dev3_split_figures(golden: dict[str, GoldenSet]) -> None:
    """On dev3 (another writer, one case in six cross-language) the budget holds with train variants."""
    found = figures(
        _outcomes(golden, SPLITS["dev3"], variants=True), DEFAULT_LEXICAL_THRESHOLD, DEFAULT_LEXICAL_MARGIN
    )
    # Measured: recall 0.978 (88/90), false matches 2.2% of matches, hard negatives matched 2/30.
    assert found.recall >= 0.95 and found.false_match_rate <= 0.05


def test_variants_raise_recall(golden: dict[str, GoldenSet]) -> None:
    """Paraphrases promoted as variants match more unseen paraphrases than the golden questions alone."""
    plain = figures(_outcomes(golden, SPLITS["test"], False), DEFAULT_LEXICAL_THRESHOLD, 0.0)
    grown = figures(_outcomes(golden, SPLITS["test"], True), DEFAULT_LEXICAL_THRESHOLD, 0.0)
    assert grown.recall > plain.recall


def test_review_promotes_only_false_matches(golden: dict[str, GoldenSet]) -> None:
    """Simulated review keeps as an entry's negatives exactly the cases the matcher matched to it wrongly."""
    sets = {d: with_variants(g, SPLITS["train"], d) for d, g in golden.items()}
    for domain, g in sets.items():
        matcher = GoldenMatcher(g)
        grown = with_negatives(g, SPLITS["train"], domain, matcher)
        for entry in grown.entries:
            for text in entry.negatives:
                found = matcher.match(text)
                case = next(c for c in SPLITS["train"] if c.domain == domain and c.text == text)
                assert found is not None and found.entry.id == entry.id != case.expect
        kept = GoldenMatcher(grown)
        assert all(kept.match(text) is None for e in grown.entries for text in e.negatives)
