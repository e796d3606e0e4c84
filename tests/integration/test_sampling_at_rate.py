"""The packaged sampling policy at 600 traces a minute of simulated time, through the real cheap stages.

Two simulated hours of BanHang traffic, one trace every 0.1 s of event time (the budget's clock is the
traces' own time, as in ``ragmon replay``): an hour on the healthy chunk-200 index, then seed 000's
chunk-800 deploy for an hour, with inline and late feedback. Each trace goes through message
validation, the cheap signals, the numeric rules and the golden reference checks (the simulator's
golden id stands in for the matcher, as a replay with golden ids does), then the sampler with the
packaged ``rules/sampling.yaml``. At this rate the shared budget is spent within the first minutes:
the random floor and the negative-feedback overflow are what the assertions measure.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from monitor.budget import EventClock
from monitor.feedback_window import FeedbackWindow
from monitor.golden.check import GoldenCheck
from monitor.golden.model import GoldenSet
from monitor.metrics import Metrics
from monitor.sampler import Sampler
from monitor.sampling import SamplingPolicy
from monitor.signals import compute_signals
from monitor.simulate import SimConfig, generate, write_golden, write_sections
from monitor.trace import FeedbackEvent, Trace, validate_message
from tests.support.pipeline import numeric_rules

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

PER_HOUR = 36_000  # 600 traces a minute
FLOOR = 30  # rules/sampling.yaml: budget.random_floor_per_hour
GOOD_INDEX, BAD_INDEX = "kb-2026-09-chunk200", "kb-2026-09-25-chunk800"


@dataclass
class Tally:
    """What the sampler decided, by (index version, clock hour) where it matters."""

    random_judged: Counter[tuple[str, int]] = field(default_factory=Counter)
    random_draws: Counter[tuple[str, int]] = field(default_factory=Counter)
    lanes: Counter[str | None] = field(default_factory=Counter)
    negative: int = 0
    negative_skipped: int = 0


def _golden(tmp: Path) -> GoldenSet:
    write_golden(tmp / "golden.json")
    write_sections(tmp / "sections.json")
    return GoldenSet.load([tmp / "golden.json"], tmp / "sections.json")


def _golden_check(golden: GoldenSet, golden_id: str | None, trace: Trace) -> GoldenCheck | None:
    entry = golden.get(golden_id) if golden_id else None
    if entry is None:
        return None
    numeric = None
    if entry.answerable and entry.expected_answer is not None:
        numeric = numeric_rules().check_reference(
            trace.answer, entry.expected_answer, entry.expected_sources_text
        )
    return GoldenCheck(
        entry_id=entry.id, similarity=1.0, k=5, retrieval=None, numeric=numeric, should_abstain=False
    )


def _hour(trace: Trace, config: SimConfig) -> int:
    assert trace.timestamp is not None
    return int((trace.timestamp - config.start).total_seconds() // 3600)


def _run(tmp: Path, metrics: Metrics) -> Tally:
    config = SimConfig(count=2 * PER_HOUR, seed=11, spacing_s=0.1, bad_deploy_at=PER_HOUR)
    golden = _golden(tmp)
    clock = EventClock()
    policy = SamplingPolicy.load(clock=clock, metrics=metrics)
    sampler = Sampler(policy, FeedbackWindow(), clock)
    numeric = numeric_rules()
    tally = Tally()
    for message in generate(config):
        item = validate_message(message)
        if isinstance(item, FeedbackEvent):
            late = sampler.late(item)
            if late.outcome in ("sampled", "skipped"):
                tally.negative += 1
                tally.negative_skipped += late.outcome == "skipped"
                tally.lanes[late.admission.lane] += 1
            continue
        signals = compute_signals(item)
        report = numeric.check(item.answer, [c.text for c in item.retrieved_chunks])
        check = _golden_check(golden, message["simulation"]["golden"], item)
        admission = sampler.decide(item, signals, report, check)
        key = (item.index_version or "", _hour(item, config))
        tally.random_draws[key] += policy.picks("random", item.trace_id)
        tally.random_judged[key] += admission.random_baseline
        tally.lanes[admission.lane] += 1
        if signals.feedback == "negative":
            tally.negative += 1
            tally.negative_skipped += not admission.judged
    return tally


@pytest.fixture(scope="module")
def at_rate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Tally, Metrics]:
    """Two hours at 600 traces a minute through the sampler (logs captured, not printed)."""
    metrics = Metrics(CollectorRegistry())
    with capture_logs():
        tally = _run(tmp_path_factory.mktemp("sampling-at-rate"), metrics)
    # The figures behind the assertions (shown with pytest -s).
    print(
        f"\nrandom judged {dict(tally.random_judged)} of draws {dict(tally.random_draws)}; "
        f"negative feedback {tally.negative}, skipped {tally.negative_skipped}; lanes {dict(tally.lanes)}"
    )
    return tally, metrics


def test_every_version_gets_the_random_floor_every_hour(at_rate: tuple[Tally, Metrics]) -> None:
    """Each index version's hour holds at least the floor of random judgements, mostly paid by the floor."""
    tally, _ = at_rate
    assert set(tally.random_judged) == {(GOOD_INDEX, 0), (BAD_INDEX, 1)}
    assert all(judged >= FLOOR for judged in tally.random_judged.values()), tally.random_judged
    # About 720 random draws an hour: the budget alone would judge a handful of them.
    assert all(draws > 10 * FLOOR for draws in tally.random_draws.values()), tally.random_draws
    assert tally.lanes["random_floor"] >= FLOOR


def test_no_negative_feedback_is_skipped_under_the_packaged_budget(at_rate: tuple[Tally, Metrics]) -> None:
    """Every complaint, inline or late, healthy or during the incident, is judged."""
    tally, metrics = at_rate
    assert tally.negative > 10_000  # about 46 a minute healthy, 270 during the incident
    assert tally.negative_skipped == 0
    skipped = metrics.registry.get_sample_value(
        "ragmon_sampling_skipped_total", {"reason": "negative_feedback"}
    )
    assert skipped in (None, 0.0)
    # The shared buckets cannot pay for them at this rate: the overflow did.
    assert tally.lanes["negative_feedback_overflow"] > tally.negative / 2


def test_the_shared_budget_is_spent_on_negative_feedback_first(at_rate: tuple[Tally, Metrics]) -> None:
    """Targeted reasons are the ones skipped: golden matches and numeric findings wait, complaints do not."""
    _, metrics = at_rate
    skipped = {
        reason: metrics.registry.get_sample_value("ragmon_sampling_skipped_total", {"reason": reason})
        for reason in ("golden_match", "numeric_finding")
    }
    assert all(count is not None and count > 1000 for count in skipped.values()), skipped
