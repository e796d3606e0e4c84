"""Judge-human agreement: confusion counts, Cohen's kappa, error rates, cost-minimizing threshold, gauge."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from prometheus_client import CollectorRegistry

from monitor.metrics import Metrics
from monitor.review import Case, Label, ReviewStore, Status
from monitor.review.agreement import (
    Judged,
    agreement,
    best_threshold,
    confusion,
    judged_pairs,
    refresh_agreement_gauge,
)

NOW = datetime(2026, 9, 28, tzinfo=UTC)


def _case(trace_id: str, verdict: str | None, **scores: float | None) -> Case:
    label = Label(verdict=verdict, labelled_at=NOW) if verdict else None  # type: ignore[arg-type]
    return Case(
        trace_id=trace_id,
        trace={},
        result={"scores": scores},
        flags=(),
        status=Status.PENDING,
        created_at=NOW,
        updated_at=NOW,
        label=label,
    )


def _pairs(*rows: tuple[float, bool]) -> list[Judged]:
    return [Judged(score, bad) for score, bad in rows]


def test_confusion_counts_and_rates() -> None:
    """Scores below the threshold fail; rates divide by the reviewer's bad and ok counts."""
    pairs = _pairs((0.2, True), (0.9, True), (0.85, True), (0.3, False), (0.95, False), (0.99, False))
    c = confusion(pairs, 0.8)
    assert (c.true_fail, c.false_pass, c.false_fail, c.true_pass) == (1, 2, 1, 2)
    assert c.false_pass_rate == pytest.approx(2 / 3)
    assert c.false_fail_rate == pytest.approx(1 / 3)
    assert c.accuracy == pytest.approx(3 / 6)
    assert confusion(pairs, 0.85).true_fail == 1  # a score equal to the threshold passes


def test_kappa_textbook_example() -> None:
    """The classic 50-item table (20 agree fail, 15 agree pass, 5 and 10 disagree) gives kappa 0.4."""
    pairs = _pairs(*[(0.1, True)] * 20, *[(0.1, False)] * 5, *[(0.9, True)] * 10, *[(0.9, False)] * 15)
    c = confusion(pairs, 0.5)
    assert c.accuracy == pytest.approx(0.7)
    assert c.kappa == pytest.approx(0.4)


def test_kappa_perfect_and_undefined() -> None:
    """Perfect agreement is 1; when both raters give one answer throughout, kappa is undefined."""
    assert confusion(_pairs((0.1, True), (0.9, False)), 0.5).kappa == pytest.approx(1.0)
    assert confusion(_pairs((0.9, False), (0.95, False)), 0.5).kappa is None
    assert confusion([], 0.5).kappa is None


@pytest.mark.parametrize(("cost_fp", "cost_ff"), [(5.0, 1.0), (1.0, 1.0), (1.0, 5.0)])
def test_best_threshold_is_minimal_cost(cost_fp: float, cost_ff: float) -> None:
    """No threshold on a fine grid has a lower cost than the suggested one."""
    pairs = _pairs(
        (0.3, True),
        (0.55, True),
        (0.72, True),
        (0.78, True),
        (0.5, False),
        (0.75, False),
        (0.82, False),
        (0.9, False),
        (0.95, False),
    )
    best = best_threshold(pairs, cost_fp, cost_ff, current=0.8)
    best_cost = confusion(pairs, best).cost(cost_fp, cost_ff)
    grid = [i / 1000 for i in range(1002)]
    assert best_cost <= min(confusion(pairs, t).cost(cost_fp, cost_ff) for t in grid)


def test_costlier_false_pass_raises_threshold() -> None:
    """When a missed wrong answer costs more, the suggested threshold does not go down."""
    pairs = _pairs((0.3, True), (0.72, True), (0.78, True), (0.5, False), (0.75, False), (0.82, False))
    cheap = best_threshold(pairs, 1.0, 5.0, current=0.5)
    dear = best_threshold(pairs, 5.0, 1.0, current=0.5)
    assert dear > cheap
    assert confusion(pairs, dear).false_pass == 0


def test_agreement_skips_unlabelled_and_unscored() -> None:
    """Only labelled cases with a numeric score count, per metric."""
    cases = [
        _case("a", "bad", faithfulness=0.4, answer_relevance=0.9),
        _case("b", "ok", faithfulness=0.9, answer_relevance=None),
        _case("c", None, faithfulness=0.1),
        _case("d", "bad", faithfulness=None, context_relevance=0.2),
    ]
    report = agreement(cases, {"faithfulness": 0.8, "answer_relevance": 0.7, "context_relevance": 0.5})
    by_metric = {m.metric: m for m in report.metrics}
    assert report.labelled == 3
    assert by_metric["faithfulness"].at_threshold.n == 2
    assert by_metric["faithfulness"].at_threshold.kappa == pytest.approx(1.0)
    assert by_metric["answer_relevance"].at_threshold.false_pass == 1
    assert by_metric["context_relevance"].at_threshold.true_fail == 1
    assert len(judged_pairs(cases, "faithfulness")) == 2


def test_gauge_from_store(store: ReviewStore, add_case: Callable[..., str]) -> None:
    """refresh_agreement_gauge publishes kappa per metric from the store's labelled cases."""
    for trace_id, faith, verdict in [
        ("a", 0.3, "bad"),
        ("b", 0.9, "ok"),
        ("c", 0.6, "bad"),
        ("d", 0.95, "bad"),
    ]:
        add_case(trace_id, faithfulness=faith)
        store.label(trace_id, verdict)  # type: ignore[arg-type]
    add_case("unlabelled", faithfulness=0.1)
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    refresh_agreement_gauge(store, metrics.judge_human_agreement, {"faithfulness": 0.8})
    expected = confusion(_pairs((0.3, True), (0.9, False), (0.6, True), (0.95, True)), 0.8).kappa
    assert expected is not None
    got = registry.get_sample_value("ragmon_judge_human_agreement", {"metric": "faithfulness"})
    assert got == pytest.approx(expected)
    # context_relevance is 0.5 for every case and the reviewers disagree among themselves: kappa 0 is defined.
    assert registry.get_sample_value("ragmon_judge_human_agreement", {"metric": "context_relevance"}) == 0.0


def test_gauge_drops_undefined_kappa(store: ReviewStore, add_case: Callable[..., str]) -> None:
    """When kappa becomes undefined the metric's series is removed rather than left stale."""
    registry = CollectorRegistry()
    gauge = Metrics(registry).judge_human_agreement
    gauge.labels("faithfulness").set(0.7)
    add_case("a", faithfulness=0.9)
    store.label("a", "ok")
    refresh_agreement_gauge(store, gauge, {"faithfulness": 0.8})
    assert registry.get_sample_value("ragmon_judge_human_agreement", {"metric": "faithfulness"}) is None
