"""The review's two findings: a condition's generic group noun does not keep its tier, and a negation the
chunks state of another subject does not excuse a flipped claim; each with its hard negative. And the
dropped-condition cap is the conditional check's verdict, the pipeline's when it ran."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from monitor.conditional import ConditionalReport
from monitor.conditional.model import ConditionalFinding
from monitor.embeddings import LocalE5Embedder
from monitor.judge.base import JudgeChunk, JudgeInput, judge_input
from monitor.judge.local import LocalJudge
from monitor.judge.support import FEATURES
from monitor.numeric import Quantity
from monitor.trace import validate_trace

PLUS = "DT-3. Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
PREMIUM = "Premium subscribers get 50 GB of roaming data each month."
REFUNDS = [
    "HT-1. Thành viên Plus được hoàn tiền trong 30 ngày.",
    "HT-2. Khách chưa là thành viên không được hoàn tiền.",
]


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge(LocalE5Embedder())


def feature(judge: LocalJudge, name: str, answer: str, chunks: list[str], question: str = "q") -> float:
    """The feature of the answer's first claim."""
    chunked = tuple(JudgeChunk(f"c{i + 1}", c) for i, c in enumerate(chunks))
    item = JudgeInput("t-1", question, answer, chunked)
    return float(judge.measure(item).features[0, FEATURES.index(name)])


# the general case beside the members' value: a claim dropping the condition tells everyone the exception
RULED_VI = "DT-1. Khách hàng được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng. " + PLUS
RULED_EN = "Other plans get 10 GB of roaming data each month. " + PREMIUM


@pytest.mark.parametrize(
    ("answer", "chunk", "dropped"),
    [
        ("Thành viên được đổi trả hàng thời trang trong 30 ngày.", RULED_VI, 1.0),  # the group noun alone
        ("Thành viên Plus được đổi trả hàng thời trang trong 30 ngày.", RULED_VI, 0.0),
        ("Subscribers get 50 GB of roaming data each month.", RULED_EN, 1.0),
        ("Premium users get 50 GB of roaming data each month.", RULED_EN, 0.0),
        # a bare group noun names everyone the policy speaks to: no condition to drop
        ("Members get 50 GB of roaming data.", "Members get 50 GB of roaming data each month.", 0.0),
        ("You get 50 GB of roaming data.", "Members get 50 GB of roaming data each month.", 0.0),
    ],
)
def test_a_generic_group_noun_does_not_keep_a_named_tier(
    judge: LocalJudge, answer: str, chunk: str, dropped: float
) -> None:
    """ "thành viên" / "subscribers" carry no tier: a claim saying only them drops "thành viên BanHang
    Plus" / "Premium subscribers" beside the general case; one saying the tier keeps it, and a sentence
    naming only the group ("Members get ...") binds no condition (monitor.conditional's verdict)."""
    assert feature(judge, "condition_dropped", answer, [chunk]) == dropped


def test_a_negation_stated_of_another_subject_still_flips(judge: LocalJudge) -> None:
    """ "không được hoàn tiền" is stated of non-members: it does not excuse "Thành viên Plus không được
    hoàn tiền", a copy of the members' sentence with its polarity flipped; the non-members' own claim,
    the hard negative, is no flip."""
    assert feature(judge, "flip", "Thành viên Plus không được hoàn tiền trong 30 ngày.", REFUNDS) == 1.0
    assert feature(judge, "flip", "Khách chưa là thành viên không được hoàn tiền.", REFUNDS) == 0.0


def test_a_negation_stated_with_its_clause_is_no_flip(judge: LocalJudge) -> None:
    """A claim whose negated clause is a chunk's sentence, beside a clause from another sentence, spans
    both polarities: no flip; without that negated sentence in the chunks it flips."""
    answer = "Khách chưa là thành viên không được hoàn tiền, thành viên Plus được hoàn tiền trong 30 ngày."
    assert feature(judge, "flip", answer, REFUNDS) == 0.0
    flipped = "Thành viên Plus không được hoàn tiền, khách được hoàn tiền trong 30 ngày."
    assert feature(judge, "flip", flipped, REFUNDS) == 1.0


def test_the_pipelines_conditional_verdict_is_the_judges(judge: LocalJudge) -> None:
    """The cheap path checks every trace; the judge reads its verdict (``told_to_everyone``) instead of
    checking again, and checks itself only when none is given (``ragmon eval judge``)."""
    answer = "Thành viên được đổi trả hàng thời trang trong 30 ngày."
    chunks = (JudgeChunk("c1", RULED_VI),)
    own = JudgeInput("t-1", "q", answer, chunks)
    told = replace(own, told_to_everyone=frozenset({(30.0, "day")}))
    cleared = replace(own, told_to_everyone=frozenset())
    dropped = FEATURES.index("condition_dropped")
    assert judge.measure(own).features[0, dropped] == 1.0
    assert judge.measure(told).features[0, dropped] == 1.0
    assert judge.measure(cleared).features[0, dropped] == 0.0


def test_judge_input_carries_the_conditional_reports_critical_values() -> None:
    """Only a critical finding (the general value beside it) is passed: a warning does not cap."""
    trace = validate_trace(
        {"trace_id": "t-1", "question": "q", "answer": "a", "retrieved_chunks": [{"text": "c"}]}
    )
    critical = ConditionalFinding("30 ngày", Decimal(30), "day", "Plus", (Quantity(Decimal(7), "day", "7"),))
    warning = ConditionalFinding("14 days", Decimal(14), "day", "if unused")
    item = judge_input(trace, ConditionalReport((critical, warning)))
    assert item.told_to_everyone == frozenset({(30.0, "day")})
    assert judge_input(trace).told_to_everyone is None
