"""How far the judge agrees with reviewers, and which threshold it should use (seed 000 §5, seed 003 §14).

For each metric, a labelled case gives a pair: the judge's score and the reviewer's verdict. The judge
*fails* a case when its score is below the metric's threshold; a reviewer's ``bad`` means the case
*should* fail. Then:

- false pass: the reviewer says bad, the judge passes it (the costly miss: a wrong answer goes unseen);
- false fail: the reviewer says ok, the judge fails it (a false alarm: reviewer time);
- false-pass rate = false passes / cases reviewers called bad; false-fail rate = false fails / ok cases;
- Cohen's kappa = (p_o - p_e) / (1 - p_e), agreement beyond what the two raters' base rates give by chance.

The suggested threshold minimizes ``cost_false_pass * false passes + cost_false_fail * false fails``
over every threshold that splits the labelled scores differently; ties go to the one nearest the
current threshold, so the suggestion moves only when the data says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from monitor.review.models import Case, CaseFilter

METRICS = ("faithfulness", "answer_relevance", "context_relevance")
# Production targets; the daemon passes the thresholds of rules/flags.yaml instead when it has them.
DEFAULT_THRESHOLDS: Mapping[str, float] = {
    "faithfulness": 0.8,
    "answer_relevance": 0.7,
    "context_relevance": 0.5,
}
DEFAULT_COST_FALSE_PASS = 5.0
DEFAULT_COST_FALSE_FAIL = 1.0


@dataclass(frozen=True, slots=True)
class Judged:
    """One labelled case for one metric: the judge's score and whether the reviewer said it should fail."""

    score: float
    human_bad: bool


@dataclass(frozen=True, slots=True)
class Confusion:
    """Judge against reviewer at one threshold; "fail" is the positive class."""

    true_fail: int
    false_pass: int
    false_fail: int
    true_pass: int

    @property
    def n(self) -> int:
        return self.true_fail + self.false_pass + self.false_fail + self.true_pass

    @property
    def accuracy(self) -> float | None:
        return (self.true_fail + self.true_pass) / self.n if self.n else None

    @property
    def false_pass_rate(self) -> float | None:
        bad = self.true_fail + self.false_pass
        return self.false_pass / bad if bad else None

    @property
    def false_fail_rate(self) -> float | None:
        ok = self.false_fail + self.true_pass
        return self.false_fail / ok if ok else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa; ``None`` when chance agreement is 1 (both raters gave one answer throughout)."""
        n = self.n
        if not n:
            return None
        judge_fail = (self.true_fail + self.false_fail) / n
        human_bad = (self.true_fail + self.false_pass) / n
        chance = judge_fail * human_bad + (1 - judge_fail) * (1 - human_bad)
        if math.isclose(chance, 1.0):
            return None
        return ((self.true_fail + self.true_pass) / n - chance) / (1 - chance)

    def cost(self, cost_false_pass: float, cost_false_fail: float) -> float:
        return cost_false_pass * self.false_pass + cost_false_fail * self.false_fail


def confusion(pairs: Iterable[Judged], threshold: float) -> Confusion:
    """Count agreements and both kinds of error when the judge fails scores below ``threshold``."""
    tf = fp = ff = tp = 0
    for pair in pairs:
        judge_fails = pair.score < threshold
        if pair.human_bad:
            tf, fp = (tf + 1, fp) if judge_fails else (tf, fp + 1)
        else:
            ff, tp = (ff + 1, tp) if judge_fails else (ff, tp + 1)
    return Confusion(true_fail=tf, false_pass=fp, false_fail=ff, true_pass=tp)


def best_threshold(
    pairs: list[Judged], cost_false_pass: float, cost_false_fail: float, current: float
) -> float:
    """The threshold with the lowest total cost; ties go to the one nearest ``current``."""
    scores = sorted({p.score for p in pairs})
    if not scores:
        return current
    # Each distinct score splits the cases differently; one step past the top fails everything.
    candidates = {*scores, current, math.nextafter(scores[-1], math.inf)}
    return min(
        sorted(candidates),
        key=lambda t: (confusion(pairs, t).cost(cost_false_pass, cost_false_fail), abs(t - current)),
    )


@dataclass(frozen=True, slots=True)
class MetricAgreement:
    """Agreement for one metric at its current threshold, and the cost-minimizing threshold."""

    metric: str
    threshold: float
    at_threshold: Confusion
    best_threshold: float
    at_best: Confusion

    def to_json(self, cost_false_pass: float, cost_false_fail: float) -> dict[str, Any]:
        now, best = self.at_threshold, self.at_best
        return {
            "metric": self.metric,
            "n": now.n,
            "threshold": self.threshold,
            "accuracy": now.accuracy,
            "kappa": now.kappa,
            "false_pass_rate": now.false_pass_rate,
            "false_fail_rate": now.false_fail_rate,
            "cost": now.cost(cost_false_pass, cost_false_fail),
            "best_threshold": self.best_threshold,
            "best_cost": best.cost(cost_false_pass, cost_false_fail),
            "best_false_pass_rate": best.false_pass_rate,
            "best_false_fail_rate": best.false_fail_rate,
        }


@dataclass(frozen=True, slots=True)
class AgreementReport:
    """Judge-human agreement for every metric over the labelled cases."""

    labelled: int
    cost_false_pass: float
    cost_false_fail: float
    metrics: tuple[MetricAgreement, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "labelled": self.labelled,
            "cost_false_pass": self.cost_false_pass,
            "cost_false_fail": self.cost_false_fail,
            "metrics": [m.to_json(self.cost_false_pass, self.cost_false_fail) for m in self.metrics],
        }


def judged_pairs(cases: Iterable[Case], metric: str) -> list[Judged]:
    """The (score, reviewer verdict) pairs of labelled cases where the judge scored ``metric``."""
    pairs = []
    for case in cases:
        score = case.scores.get(metric)
        if case.label is None or isinstance(score, bool) or not isinstance(score, (int, float)):
            continue
        pairs.append(Judged(score=float(score), human_bad=case.label.verdict == "bad"))
    return pairs


def agreement(
    cases: Iterable[Case],
    thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS,
    cost_false_pass: float = DEFAULT_COST_FALSE_PASS,
    cost_false_fail: float = DEFAULT_COST_FALSE_FAIL,
) -> AgreementReport:
    """Agreement per metric of ``METRICS`` (and any other metric ``thresholds`` names)."""
    labelled = [case for case in cases if case.label is not None]
    results = []
    for metric in dict.fromkeys([*METRICS, *thresholds]):
        threshold = thresholds.get(metric, DEFAULT_THRESHOLDS.get(metric, 0.5))
        pairs = judged_pairs(labelled, metric)
        best = best_threshold(pairs, cost_false_pass, cost_false_fail, threshold)
        now = confusion(pairs, threshold)
        results.append(MetricAgreement(metric, threshold, now, best, confusion(pairs, best)))
    return AgreementReport(len(labelled), cost_false_pass, cost_false_fail, tuple(results))


class _Labelled(Protocol):
    def list_cases(self, where: CaseFilter | None = None, **filters: Any) -> list[Case]: ...


class _LabelledGauge(Protocol):
    def labels(self, *values: str) -> Any: ...

    def remove(self, *values: str) -> None: ...


def publish(report: AgreementReport, gauge: _LabelledGauge) -> None:
    """Set ``ragmon_judge_human_agreement{metric}`` to each kappa; drop the series when kappa is undefined."""
    for item in report.metrics:
        kappa = item.at_threshold.kappa
        if kappa is not None:
            gauge.labels(item.metric).set(kappa)
            continue
        try:
            gauge.remove(item.metric)
        except KeyError:
            continue  # never set: nothing to drop


def refresh_agreement_gauge(
    store: _Labelled,
    gauge: _LabelledGauge,
    thresholds: Mapping[str, float] = DEFAULT_THRESHOLDS,
) -> AgreementReport:
    """Recompute agreement from the store's labelled cases and publish kappa on ``gauge``."""
    report = agreement(store.list_cases(labelled=True), thresholds)
    publish(report, gauge)
    return report
