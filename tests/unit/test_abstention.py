"""Honest abstentions, by phrase and by clause: a denial and a source in one sentence, whatever
stands between them; the same packs drive the golden check and the local judge."""

from __future__ import annotations

import pytest

from monitor.exceptions import ConfigError
from monitor.golden import AbstentionDetector
from monitor.golden.abstain import AbstentionClauses
from monitor.judge.local import LocalJudgeRules


@pytest.fixture(scope="module")
def detector() -> AbstentionDetector:
    return AbstentionDetector.load()


@pytest.mark.parametrize(
    "answer",
    [
        "Xin lỗi, chính sách của BanHang không nói về hoàn tiền khi hủy đơn.",
        "Mình không tìm thấy ưu đãi phí ship nào dành riêng cho Plus trong tài liệu, bạn liên hệ CSKH nhé.",
        "chinh sach cua shop khong de cap viec nay a",
        "Sorry, I can't find anything about cruise roaming in our documents.",
        "The policy doesn't say anything about pets.",
        "我们的政策里没有提到这项服务。",
        "资料中查不到相关规定，请联系客服。",
        "در اسناد ما به این موضوع اشاره نشده است.",
        "The documents that I have don't cover mortgages, sorry.",
        "I have no information on mortgages.",
        "متأسفم، اطلاعاتی درباره وام مسکن ندارم.",
        "در این مورد اطلاعی نداریم.",
        "Sorry, Skyline Mobile's documents don't cover that.",
        "That isn't covered by the documents I have, sorry.",
        "The information I have doesn't cover cruise roaming.",
        "Cruise roaming is not covered in our documents, sorry.",
        "Mình không thấy ưu đãi vận chuyển riêng cho Plus trong chính sách.",
        "اطلاعاتی درباره وام مسکن نداریم.",
        "现有条款没有说明，我无法确定。",
    ],
)
def test_a_denial_of_a_source_abstains(detector: AbstentionDetector, answer: str) -> None:
    assert detector.abstains(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Bạn được đổi trả trong 7 ngày kể từ ngày nhận hàng.",
        "Nếu không tìm thấy đơn hàng, bạn kiểm tra email. Chính sách đổi trả là 7 ngày.",
        "Our policy doesn't cover water damage.",
        "The plan does not include roaming; the policy gives 2 GB abroad.",
        "退货政策是七天内可以退。",
        "این طرح هزینه نصب ندارد و اطلاعات تماس شما محفوظ است.",
        "The documents you need for a mortgage are your ID and payslips.",
        "Dental treatment isn't covered by the Basic plan.",  # an exclusion of the policy: a fact
        "Cosmetic surgery is not covered in the standard policy.",
        "من این شرایط را ندارم ولی بیمه تکمیلی دارم.",  # "not having" the conditions, not information
        "برای این طرح هزینه نصب نداریم و شرایط نصب ساده است.",  # "we charge no installation fee"
    ],
)
def test_a_fact_or_a_denial_without_a_source_does_not(detector: AbstentionDetector, answer: str) -> None:
    """The denial and the source must share a sentence; an exclusion ("doesn't cover") is a fact."""
    assert not detector.abstains(answer)


FACTS_NEAR_ABSTENTION = [
    "Roaming is covered by our documents: 5 GB a month in Asia.",  # no negation, no denial
    "Nếu không thấy email xác nhận trong 24 giờ, hệ thống sẽ tự động hoàn tiền 100%.",  # not "trong <source>"
    "ما هزینه اطلاع‌رسانی نداریم.",  # "notification" starts like "information": whole words only
    "退货期为7天。如无法确定商品是否损坏，请联系客服。",  # nobody says "I cannot tell"
]


@pytest.mark.parametrize("answer", FACTS_NEAR_ABSTENTION)
def test_a_fact_near_an_abstention_is_a_claim(detector: AbstentionDetector, answer: str) -> None:
    """A fact sharing words with an abstention does not abstain and is judged as a claim."""
    assert not detector.abstains(answer)
    assert LocalJudgeRules.load().is_claim(answer)


def test_the_local_judge_does_not_check_an_abstaining_sentence_as_a_claim() -> None:
    rules = LocalJudgeRules.load()
    assert not rules.is_claim("Xin lỗi, chính sách của BanHang không nói về hoàn tiền khi hủy đơn.")
    assert rules.is_claim("Tiền hoàn về tài khoản trong 5 ngày làm việc.")


def test_clauses_are_data_and_a_bad_shape_is_named() -> None:
    clauses = AbstentionClauses.load(
        [{"abstention_clauses": {"denials": ["nicht erwähnt"], "sources": ["Richtlinie"]}}]
    )
    assert clauses.abstains("In der Richtlinie ist das nicht erwähnt.")
    assert not AbstentionClauses().abstains("anything")
    with pytest.raises(ConfigError, match="abstention_clauses"):
        AbstentionClauses.load([{"abstention_clauses": {"denials": "nicht erwähnt"}}])


@pytest.mark.parametrize(
    "answer",
    [
        "I can't answer that from our policies; support on 611 may help.",
        "这个问题超出了我们资料的范围，请咨询人工客服。",
    ],
)
def test_more_refusals_abstain(detector: AbstentionDetector, answer: str) -> None:
    assert detector.abstains(answer)


def test_clause_groups_keep_their_denials_to_their_sources() -> None:
    """A listed group pairs its denials with its own sources only; the first groups merge as before."""
    clauses = AbstentionClauses.load(
        [
            {"abstention_clauses": [{"denials": ["not found"], "sources": ["documents"]},
                                    {"denials": ["no"], "sources": ["information"]}]},
            {"abstention_clauses": {"denials": ["not mentioned"], "sources": ["policy"]}},
        ]
    )  # fmt: skip
    assert clauses.abstains("I have no information on that.")
    assert clauses.abstains("The policy: not found.")  # the first groups of both packs are one
    assert not clauses.abstains("There are no documents for that.")  # "no" pairs with information only
    with pytest.raises(ConfigError, match="abstention_clauses"):
        AbstentionClauses.load([{"abstention_clauses": [{"denials": "no"}]}])
