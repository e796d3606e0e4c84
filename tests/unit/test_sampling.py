"""The sampling policy: deterministic salted draws, priorities, the random baseline, and the budget."""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
import yaml
from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from monitor.exceptions import ConfigError
from monitor.metrics import Metrics
from monitor.sampling import REASONS, SAMPLE_ALL, SamplingPolicy, TraceSignals, uniform
from monitor.trace import Chunk, Trace

ALL_SIGNALS = TraceSignals(
    negative_feedback=True,
    no_citation=True,
    invalid_citation=True,
    empty_retrieval=True,
    top_score=0.1,
    numeric_finding=True,
    golden_match=True,
)


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _fresh_structlog() -> Iterator[None]:
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


def rules(**overrides: Any) -> dict[str, Any]:
    """The packaged rule pack as a dict, with top-level overrides."""
    data = yaml.safe_load(
        (importlib.resources.files("monitor") / "rules" / "sampling.yaml").read_text("utf-8")
    )
    assert isinstance(data, dict)
    return {**data, **overrides}


def write(tmp_path: Path, data: dict[str, Any], name: str = "sampling.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def trace(trace_id: str, answer: str = "Bạn có 7 ngày để đổi trả.", index: str | None = None) -> Trace:
    chunk = Chunk(chunk_id="c1", text="Khách hàng được đổi trả trong 7 ngày kể từ ngày nhận hàng.")
    return Trace(
        trace_id=trace_id,
        question="Tôi có bao nhiêu ngày để đổi trả?",
        answer=answer,
        retrieved_chunks=(chunk,),
        index_version=index,
    )


def policy_with(
    tmp_path: Path, clock: FakeClock | None = None, metrics: Metrics | None = None, **kw: Any
) -> SamplingPolicy:
    return SamplingPolicy.from_file(write(tmp_path, rules(**kw)), clock=clock or FakeClock(), metrics=metrics)


def test_packaged_rules_load_with_negative_feedback_on_top() -> None:
    """The shipped pack loads; negative feedback is always picked and outranks every other reason."""
    policy = SamplingPolicy.load()
    assert all(policy.picks("negative_feedback", f"t{i}") for i in range(500))
    assert all(
        policy.priority("negative_feedback") > policy.priority(r) for r in REASONS if r != "negative_feedback"
    )
    assert 0 < policy.low_score_threshold < 1


def test_uniform_is_in_unit_interval_and_depends_on_every_part() -> None:
    """The draw lies in [0, 1) and changes with the salt, the reason and the trace id."""
    base = uniform("s", "random", "t1")
    assert 0.0 <= base < 1.0
    assert (
        len(
            {
                base,
                uniform("s2", "random", "t1"),
                uniform("s", "no_citation", "t1"),
                uniform("s", "random", "t2"),
            }
        )
        == 4
    )


def test_uniform_is_the_blake2b_of_the_whole_key(tmp_path: Path) -> None:
    """A draw is the 8-byte blake2b of ``salt, reason, trace id`` joined by unit separators, read as an
    unsigned integer over 2**64: replicas and older versions pick the same traces, whatever the
    hashing shortcut (the prepared prefix is copied per draw, and must not be changed by a draw)."""
    for salt, reason, trace_id in [
        ("s", "random", "t1"),
        ("salt", "no_citation", "xyz-0000042"),
        ("s", "random", ""),
    ]:
        key = f"{salt}\x1f{reason}\x1f{trace_id}".encode()
        expected = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") / 2**64
        assert uniform(salt, reason, trace_id) == expected
    policy = policy_with(tmp_path)
    ids = [f"t-{i}" for i in range(200)]
    first = [policy.picks("random", i) for i in ids]
    assert [policy.picks("random", i) for i in ids] == first  # the prepared state is not consumed
    probability = policy._draws["random"][1]
    assert first == [uniform(policy.salt, "random", i) < probability for i in ids]


def test_draws_agree_across_instances_with_the_same_salt(tmp_path: Path) -> None:
    """Two replicas loading the same salt pick exactly the same traces for every reason."""
    a, b = policy_with(tmp_path), SamplingPolicy.from_file(write(tmp_path, rules(), "copy.yaml"))
    ids = [f"trace-{i}" for i in range(2000)]
    assert [a.candidates(trace(i), ALL_SIGNALS) for i in ids] == [
        b.candidates(trace(i), ALL_SIGNALS) for i in ids
    ]


def test_a_different_salt_changes_the_random_picks(tmp_path: Path) -> None:
    """Changing the salt draws a different random sample."""
    a = policy_with(tmp_path, salt="one")
    b = SamplingPolicy.from_file(write(tmp_path, rules(salt="two"), "two.yaml"))
    ids = [f"trace-{i}" for i in range(5000)]
    picked_a = {i for i in ids if a.picks("random", i)}
    picked_b = {i for i in ids if b.picks("random", i)}
    assert picked_a and picked_b and picked_a != picked_b


def test_random_baseline_hits_about_two_percent() -> None:
    """Over 20k ids the 2% baseline picks 1.5%..2.5% (about five standard deviations of slack)."""
    policy = SamplingPolicy.load()
    hits = sum(policy.picks("random", f"req-{i:06d}") for i in range(20_000))
    assert 300 <= hits <= 500


def test_probability_one_always_and_zero_never_picks(tmp_path: Path) -> None:
    """A reason at 1.0 picks every trace; at 0.0 it picks none."""
    data = rules()
    data["reasons"]["no_citation"] = {"probability": 1.0, "priority": 40}
    data["reasons"]["low_retrieval_score"] = {"probability": 0.0, "priority": 30}
    policy = SamplingPolicy.from_file(write(tmp_path, data))
    ids = [f"x{i}" for i in range(3000)]
    assert all(policy.picks("no_citation", i) for i in ids)
    assert not any(policy.picks("low_retrieval_score", i) for i in ids)


def test_candidates_are_ordered_by_priority(tmp_path: Path) -> None:
    """Every applying reason at probability 1 comes back, highest priority first."""
    data = rules()
    data["reasons"] = {name: {"probability": 1.0, "priority": 10 * i} for i, name in enumerate(REASONS)}
    policy = SamplingPolicy.from_file(write(tmp_path, data))
    assert policy.candidates(trace("t"), ALL_SIGNALS) == list(reversed(REASONS))


@pytest.mark.parametrize(
    ("top_score", "applies"), [(0.1, True), (0.4999, True), (0.5, False), (0.9, False), (None, False)]
)
def test_low_retrieval_score_threshold(top_score: float | None, applies: bool) -> None:
    """low_retrieval_score applies strictly below the threshold, never when there is no score."""
    policy = SamplingPolicy.load()
    assert policy.low_score_threshold == 0.5
    assert ("low_retrieval_score" in policy.applicable(TraceSignals(top_score=top_score))) is applies


def test_no_signal_leaves_only_the_random_draw() -> None:
    """A clean trace is a candidate only when the random baseline picks it."""
    policy = SamplingPolicy.load()
    for i in range(300):
        picked = policy.candidates(trace(f"t{i}"), TraceSignals(top_score=0.9))
        assert picked == (["random"] if policy.picks("random", f"t{i}") else [])


def test_not_sampled_consumes_nothing(tmp_path: Path) -> None:
    """Admitting no reasons judges nothing and leaves the budget whole."""
    policy = policy_with(tmp_path)
    before = policy.budget.levels()
    admission = policy.admit(trace("t"), [])
    assert not admission.judged and admission.primary is None and admission.skipped_reason is None
    assert policy.budget.levels() == before


def test_over_budget_high_priority_wins_and_skips_are_reported(tmp_path: Path) -> None:
    """Over budget, low-priority traces are skipped, counted and logged; negative feedback gets in."""
    metrics = Metrics(CollectorRegistry())
    budget = {"traces_per_minute": 4, "tokens_per_hour": None, "reserve": 0.5}
    policy = policy_with(tmp_path, metrics=metrics, budget=budget)
    with capture_logs() as logs:
        low = [policy.admit(trace(f"low-{i}"), ["low_retrieval_score"]) for i in range(4)]
        urgent = policy.admit(trace("urgent"), ["low_retrieval_score", "negative_feedback"])
    assert [a.judged for a in low] == [True, True, False, False]
    assert low[2].skipped_reason == "low_retrieval_score" and low[2].reasons == ("low_retrieval_score",)
    assert urgent.judged and urgent.primary == "negative_feedback"
    assert urgent.reasons == ("negative_feedback", "low_retrieval_score")
    skipped = metrics.registry.get_sample_value(
        "ragmon_sampling_skipped_total", {"reason": "low_retrieval_score"}
    )
    assert skipped == 2.0
    events = [e for e in logs if e["event"] == "sampling_skipped"]
    assert [(e["trace_id"], e["reason"]) for e in events] == [
        ("low-2", "low_retrieval_score"),
        ("low-3", "low_retrieval_score"),
    ]
    assert all(e["reasons"] == ["low_retrieval_score"] and e["estimated_tokens"] > 0 for e in events)


def test_budget_refills_with_the_injected_clock(tmp_path: Path) -> None:
    """A skipped reason is admitted again once a minute's refill has come in."""
    clock = FakeClock()
    policy = policy_with(
        tmp_path, clock, budget={"traces_per_minute": 2, "tokens_per_hour": None, "reserve": 0.0}
    )
    assert [policy.admit(trace(f"a{i}"), ["no_citation"]).judged for i in range(3)] == [True, True, False]
    clock.now += 30
    assert policy.admit(trace("b"), ["no_citation"]).judged
    assert not policy.admit(trace("c"), ["no_citation"]).judged


def test_token_budget_uses_the_text_estimate(tmp_path: Path) -> None:
    """The hourly token bucket refuses a trace whose estimated judge tokens it cannot cover."""
    budget = {"traces_per_minute": None, "tokens_per_hour": 3000, "reserve": 0.0}
    policy = policy_with(
        tmp_path, budget=budget, estimate={"prompt_overhead_tokens": 1000, "text_factor": 1.0}
    )
    small = trace("small", answer="ok")
    assert policy.estimate_tokens(small) > 1000
    first = policy.admit(small, ["no_citation"])
    assert first.judged and first.spent_tokens == policy.estimate_tokens(small)
    assert policy.admit(trace("big", answer="退" * 1500), ["no_citation"]).skipped_reason == "no_citation"


def test_random_label_needs_the_budget_at_random_priority(tmp_path: Path) -> None:
    """Under pressure, a random pick judged only thanks to negative feedback is not labelled random."""
    policy = policy_with(tmp_path, budget={"traces_per_minute": 10, "tokens_per_hour": None, "reserve": 1.0})
    calm = policy.admit(trace("calm"), ["random", "no_citation"])
    assert calm.judged and calm.random_baseline and calm.primary == "random"
    while policy.admit(trace("filler"), ["random"]).judged:
        pass
    pressed = policy.admit(trace("pressed"), ["random", "negative_feedback"])
    assert pressed.judged and not pressed.random_baseline and pressed.primary == "negative_feedback"


def test_targeted_only_admission_is_not_random(tmp_path: Path) -> None:
    """A trace picked only by targeted reasons is labelled targeted."""
    admission = policy_with(tmp_path).admit(trace("t"), ["golden_match"])
    assert admission.judged and not admission.random_baseline


def test_sample_all_judges_everything_outside_the_budget(tmp_path: Path) -> None:
    """sample_all picks every trace under reason sample_all, ignores the budget and labels it random."""
    data = rules(budget={"traces_per_minute": 1, "tokens_per_hour": None, "reserve": 0.0})
    policy = SamplingPolicy.from_file(write(tmp_path, data), sample_all=True, clock=FakeClock())
    admissions = []
    for i in range(50):
        candidates = policy.candidates(trace(f"t{i}"), TraceSignals(golden_match=True))
        assert candidates[0] == SAMPLE_ALL and "golden_match" in candidates
        admissions.append(policy.admit(trace(f"t{i}"), candidates))
    assert all(a.judged and a.primary == SAMPLE_ALL and a.random_baseline for a in admissions)
    assert policy.budget.levels()["traces"] == 1.0


def test_refund_returns_the_budget(tmp_path: Path) -> None:
    """A refunded admission (cache hit) gives its trace slot and tokens back."""
    policy = policy_with(
        tmp_path, budget={"traces_per_minute": 1, "tokens_per_hour": 100_000, "reserve": 0.0}
    )
    first = policy.admit(trace("a"), ["no_citation"])
    assert first.judged and not policy.admit(trace("b"), ["no_citation"]).judged
    policy.refund(first)
    assert policy.budget.levels() == {"traces": 1.0, "tokens": 100_000.0}
    assert policy.admit(trace("c"), ["no_citation"]).judged


def test_unknown_reason_at_admission_is_a_programming_error(tmp_path: Path) -> None:
    """Admitting a reason the policy does not know raises instead of guessing a priority."""
    with pytest.raises(ValueError, match="bogus"):
        policy_with(tmp_path).admit(trace("t"), ["bogus"])


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d["reasons"]["random"].update(probability=1.5), "reasons.random.probability"),
        (lambda d: d["reasons"].update(negative_feedbak={"probability": 1.0, "priority": 1}), "reasons"),
        (lambda d: d.pop("salt"), "salt"),
        (lambda d: d["budget"].update(reserve=-0.1), "budget.reserve"),
        (lambda d: d.update(surprise=1), "surprise"),
    ],
)
def test_bad_rules_name_file_and_field(tmp_path: Path, mutate: Any, field: str) -> None:
    """A bad rule pack raises ConfigError naming the file and the offending field."""
    data = rules()
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(ConfigError, match=rf"{path}: {field}"):
        SamplingPolicy.from_file(path)


def test_unparseable_yaml_and_missing_file_are_config_errors(tmp_path: Path) -> None:
    """Broken YAML or a missing file raise ConfigError with the file name."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("reasons: [unclosed", encoding="utf-8")
    with pytest.raises(ConfigError, match="broken.yaml: invalid YAML"):
        SamplingPolicy.from_file(broken)
    with pytest.raises(ConfigError, match="missing.yaml: not found"):
        SamplingPolicy.from_file(tmp_path / "missing.yaml")


# The shared budget spent: one trace a minute, nothing left after the first.
SPENT = {"traces_per_minute": 1, "tokens_per_hour": None, "reserve": 0.0}


def test_packaged_budget_has_a_random_floor_and_a_negative_feedback_overflow() -> None:
    """The shipped pack guarantees 30 random judgements per version per hour and 400 complaints a minute."""
    policy = SamplingPolicy.load()
    assert policy.floor.per_hour == 30
    assert policy.budget.overflow is not None and policy.budget.overflow.capacity == 400


def test_random_floor_judges_random_draws_the_budget_cannot_pay(tmp_path: Path) -> None:
    """Budget spent: a random draw under its version's floor is judged as random, outside the budget."""
    metrics = Metrics(CollectorRegistry())
    clock = FakeClock()
    clock.now = 3600.0 * 10 + 600  # ten minutes into an hour: 6 of a floor of 30 allowed so far
    policy = policy_with(tmp_path, clock, metrics, budget={**SPENT, "random_floor_per_hour": 30})
    assert policy.admit(trace("first", index="i1"), ["no_citation"]).lane == "budget"
    admissions = [policy.admit(trace(f"r{n}", index="i1"), ["random"]) for n in range(8)]
    assert [a.judged for a in admissions] == [True] * 6 + [False] * 2
    assert all(a.random_baseline and a.lane == "random_floor" and a.spent_tokens == 0 for a in admissions[:6])
    assert admissions[6].skipped_reason == "random"
    assert policy.budget.levels()["traces"] == 0.0
    labels = {"lane": "random_floor"}
    assert metrics.registry.get_sample_value("ragmon_sampling_guaranteed_total", labels) == 6.0


def test_random_floor_is_per_version(tmp_path: Path) -> None:
    """Each index version has a floor of its own: a busy version does not use up another's."""
    clock = FakeClock()
    clock.now = 3600.0 * 5 + 300  # five minutes in: 3 allowed
    policy = policy_with(tmp_path, clock, budget={**SPENT, "random_floor_per_hour": 30})
    old = [policy.admit(trace(f"o{n}", index="chunk200"), ["random"]).judged for n in range(5)]
    new = [policy.admit(trace(f"n{n}", index="chunk800"), ["random"]).judged for n in range(5)]
    assert old == new == [True] * 3 + [False] * 2


def test_random_floor_labels_random_whatever_else_picked_the_trace(tmp_path: Path) -> None:
    """Under the floor a random draw is random even when negative feedback picked it too (no content bias)."""
    policy = policy_with(tmp_path, budget={**SPENT, "random_floor_per_hour": 30})
    assert policy.admit(trace("filler"), ["no_citation"]).judged
    both = policy.admit(trace("both"), ["random", "negative_feedback"])
    assert both.judged and both.random_baseline and both.primary == "negative_feedback"
    assert both.lane == "random_floor"


def test_random_judgements_of_the_budget_count_towards_the_floor(tmp_path: Path) -> None:
    """Random draws the budget paid for fill the floor first; the floor pays only for what is missing."""
    clock = FakeClock()
    clock.now = 3600.0 * 3 + 600  # 6 allowed
    budget = {"traces_per_minute": 4, "tokens_per_hour": None, "reserve": 0.0, "random_floor_per_hour": 30}
    policy = policy_with(tmp_path, clock, budget=budget)
    lanes = [policy.admit(trace(f"r{n}"), ["random"]).lane for n in range(8)]
    assert lanes == ["budget"] * 4 + ["random_floor"] * 2 + [None] * 2


def test_refund_of_a_floor_judgement_leaves_the_budget_alone(tmp_path: Path) -> None:
    """A cached floor judgement gives nothing back to the buckets (it took nothing) and keeps its count."""
    policy = policy_with(tmp_path, budget={**SPENT, "random_floor_per_hour": 30})
    assert policy.admit(trace("filler"), ["no_citation"]).judged
    floor = policy.admit(trace("r"), ["random"])
    assert floor.lane == "random_floor"
    policy.refund(floor)
    assert policy.budget.levels()["traces"] == 0.0
    assert policy.floor.count((None, None, None)) == 1


def test_negative_feedback_past_the_shared_budget_spends_the_overflow(tmp_path: Path) -> None:
    """Shared buckets spent: negative feedback is judged from the overflow; a flood past it is skipped."""
    metrics = Metrics(CollectorRegistry())
    budget = {**SPENT, "random_floor_per_hour": 0, "negative_feedback_overflow_per_minute": 3}
    policy = policy_with(tmp_path, metrics=metrics, budget=budget)
    assert policy.admit(trace("filler"), ["golden_match"]).lane == "budget"
    complaints = [policy.admit(trace(f"n{n}"), ["negative_feedback", "golden_match"]) for n in range(4)]
    assert [a.lane for a in complaints] == ["negative_feedback_overflow"] * 3 + [None]
    assert complaints[3].skipped_reason == "negative_feedback"
    assert not policy.admit(trace("targeted"), ["golden_match"]).judged
    labels = {"lane": "negative_feedback_overflow"}
    assert metrics.registry.get_sample_value("ragmon_sampling_guaranteed_total", labels) == 3.0
    policy.refund(complaints[0])
    assert policy.admit(trace("again"), ["negative_feedback"]).lane == "negative_feedback_overflow"


def test_negative_feedback_spends_the_shared_budget_first(tmp_path: Path) -> None:
    """While the shared buckets can pay, negative feedback takes them (even the reserve), not the overflow."""
    budget = {"traces_per_minute": 5, "tokens_per_hour": None, "reserve": 1.0, "random_floor_per_hour": 0}
    policy = policy_with(tmp_path, budget=budget)
    lanes = [policy.admit(trace(f"n{n}"), ["negative_feedback"]).lane for n in range(6)]
    assert lanes == ["budget"] * 5 + ["negative_feedback_overflow"]


def test_applicable_lists_every_present_reason_in_catalog_order() -> None:
    """The policy's reasons come in the catalog's order (ties in priority are broken by it)."""
    policy = SamplingPolicy.load()
    assert policy.applicable(ALL_SIGNALS) == list(REASONS)
    assert policy.applicable(TraceSignals()) == ["random"]
