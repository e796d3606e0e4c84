"""The triad formulas reproduce the numbers of seeds 002 and 003, and stay within their bounds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor import triad
from monitor.judge.base import ClaimVerdict, Verdicts


def _claims(*supported: bool) -> tuple[ClaimVerdict, ...]:
    return tuple(ClaimVerdict(text=f"claim {i}", supported=s) for i, s in enumerate(supported))


@pytest.mark.parametrize(
    ("verdicts", "relevance", "precision"),
    [
        pytest.param([1, 0, 1], 2 / 3, 0.8333, id="seed002-s6-101"),
        pytest.param([0, 1, 1], 2 / 3, 0.5833, id="seed002-s6-011"),
        pytest.param([1, 1, 0], 2 / 3, 1.0, id="seed002-s11-france-110"),
        pytest.param([1, 1, 0, 0, 1], 0.6, 0.8667, id="seed003-retriever-A"),
        pytest.param([0, 0, 1, 1, 1], 0.6, 0.4778, id="seed003-retriever-B"),
        pytest.param([0, 0, 0], 0.0, 0.0, id="nothing-useful"),
    ],
)
def test_context_relevance_and_precision_reproduce_the_seeds(
    verdicts: list[int], relevance: float, precision: float
) -> None:
    """Relevance is the order-blind ratio, precision the average precision over rank (seeds 002, 003)."""
    useful = [bool(v) for v in verdicts]
    assert triad.context_relevance(useful) == pytest.approx(relevance, abs=1e-3)
    assert triad.context_precision(useful) == pytest.approx(precision, abs=1e-3)


def test_reordering_changes_precision_but_not_relevance() -> None:
    """Seed 002 s6: moving the noise chunk to the top drops precision 0.833 -> 0.583, relevance stays."""
    before, after = [True, False, True], [False, True, True]
    assert triad.context_relevance(before) == triad.context_relevance(after)
    assert triad.context_precision(before) - triad.context_precision(after) == pytest.approx(0.25)  # type: ignore[operator]


def test_undefined_metrics_are_none_not_perfect() -> None:
    """No claims, no chunks or no reverse questions give None, never 1.0."""
    assert triad.faithfulness(()) is None
    assert triad.context_relevance(()) is None
    assert triad.context_precision(()) is None
    assert triad.answer_relevance((), ()) is None


def test_france_walkthrough() -> None:
    """Seed 002 s11: 1.0 faithfulness; an invented population claim halves it; precision is unchanged."""
    chunks = (True, True, False)
    sims = (0.97, 0.88, 0.91)
    plain = Verdicts(_claims(True), chunks, ("q1", "q2", "q3"), (False, False, False))
    invented = Verdicts(_claims(True, False), chunks, ("q1", "q2", "q3"), (False, False, False))
    first, second = triad.score(plain, sims), triad.score(invented, sims)
    assert first.faithfulness == 1.0
    assert second.faithfulness == 0.5
    assert first.context_precision == second.context_precision == 1.0
    assert first.answer_relevance == pytest.approx(0.92)


def test_faithfulness_counts_supported_claims() -> None:
    """Seed 003 s9: two of three claims supported -> 0.667."""
    assert triad.faithfulness(_claims(True, False, True)) == pytest.approx(0.667, abs=1e-3)


def test_soft_relevance_discounts_noncommittal_share() -> None:
    """Soft variant: mean similarity times (1 - share of noncommittal questions)."""
    value = triad.answer_relevance([0.9, 0.6, 0.9], [True, False, False])
    assert value == pytest.approx(0.8 * (2 / 3))


def test_strict_relevance_zeroes_on_any_noncommittal() -> None:
    """Strict variant (Ragas default): one noncommittal question zeroes the score."""
    assert triad.answer_relevance([0.9, 0.9, 0.9], [False, True, False], strict=True) == 0.0
    assert triad.answer_relevance([0.9, 0.9, 0.9], [False, False, False], strict=True) == pytest.approx(0.9)


def test_honest_abstention_is_not_penalized() -> None:
    """An abstention on a question the context cannot answer keeps its similarity, even when strict."""
    sims, flags = [0.8, 0.8, 0.8], [True, True, True]
    assert triad.answer_relevance(sims, flags) == 0.0
    assert triad.answer_relevance(sims, flags, abstained=True) == pytest.approx(0.8)
    assert triad.answer_relevance(sims, flags, strict=True, abstained=True) == pytest.approx(0.8)


def test_negative_cosines_are_clipped() -> None:
    """Similarities outside [0, 1] are clipped so the score stays a share."""
    assert triad.answer_relevance([-0.5, 1.2], [False, False]) == pytest.approx(0.5)


def test_mismatched_noncommittal_flags_are_rejected() -> None:
    """Flags that do not pair with the reverse questions are a programming error."""
    with pytest.raises(ValueError, match="one to one"):
        triad.answer_relevance([0.9, 0.8], [False])


@given(st.lists(st.booleans(), min_size=1, max_size=30))
def test_metrics_stay_in_unit_interval(useful: list[bool]) -> None:
    """Every metric lies in [0, 1] whenever it is defined."""
    for value in (triad.context_relevance(useful), triad.context_precision(useful)):
        assert value is not None and 0.0 <= value <= 1.0


@given(st.lists(st.booleans(), min_size=2, max_size=20), st.data())
def test_promoting_a_useful_chunk_never_lowers_precision(useful: list[bool], data: st.DataObject) -> None:
    """Swapping a useful chunk above a useless one raises or keeps precision; relevance is unchanged."""
    pairs = [i for i in range(len(useful) - 1) if not useful[i] and useful[i + 1]]
    if not pairs:
        return
    i = data.draw(st.sampled_from(pairs))
    swapped = useful[:i] + [True, False] + useful[i + 2 :]
    assert triad.context_precision(swapped) > triad.context_precision(useful)  # type: ignore[operator]
    assert triad.context_relevance(swapped) == triad.context_relevance(useful)
