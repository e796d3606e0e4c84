"""Correct simulated answers the local judge flagged (issue 11 item 5): a condition named in another
word, a restriction marker, a negation copied from a chunk, abstentions the packs did not know."""

from __future__ import annotations

import asyncio

import pytest

from monitor.embeddings import LocalE5Embedder
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.local import LocalJudge
from monitor.judge.support import FEATURES

PLUS = "DT-3. Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
FIBRE = "SP-1. سرویس فیبر نوری با سرعت ۱۰۰ مگابیت بر ثانیه فقط در تهران، مشهد و اصفهان ارائه می‌شود."
# the general case beside each condition-bound value: dropping the condition tells everyone the exception
RULED = "DT-1. Khách hàng được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng. " + PLUS
FIBRE_RULED = "SP-0. سرویس ADSL با سرعت ۱۶ مگابیت بر ثانیه در همه شهرها ارائه می‌شود. " + FIBRE
FEES = [
    "CP-2. Bệnh nhân có thẻ BHYT hợp lệ được giảm 80% chi phí khám. "
    "Bệnh nhân không có BHYT trả 100% chi phí khám.",
    "CP-1. Phí khám tổng quát là 300.000 đồng một lượt; phí khám chuyên khoa là 450.000 đồng một lượt.",
]


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge(LocalE5Embedder())


def _item(question: str, answer: str, chunks: list[str], language: str | None = None) -> JudgeInput:
    chunked = tuple(JudgeChunk(f"c{i + 1}", c) for i, c in enumerate(chunks))
    return JudgeInput("t-1", question, answer, chunked, language=language)


def feature(judge: LocalJudge, name: str, answer: str, chunks: list[str], question: str = "q") -> float:
    """The feature of the answer's first claim."""
    return float(judge.measure(_item(question, answer, chunks)).features[0, FEATURES.index(name)])


def run(judge: LocalJudge, question: str, answer: str, chunks: list[str]) -> JudgeResult:
    return asyncio.run(judge.judge(_item(question, answer, chunks)))


def test_one_word_of_a_named_condition_keeps_it(judge: LocalJudge) -> None:
    """ "Plus" carries the chunk's "thành viên BanHang Plus": no dropped condition; a claim naming
    neither drops it, and so does one whose question names neither."""
    assert (
        feature(judge, "condition_dropped", "Ưu đãi Plus là đổi trả hàng thời trang trong 30 ngày.", [RULED])
        == 0
    )
    assert feature(judge, "condition_dropped", "Hàng thời trang được đổi trả trong 30 ngày.", [RULED]) == 1
    asked = feature(
        judge, "condition_dropped", "30 ngày bạn nhé.", [RULED], question="plus thi tra ao may ngay"
    )
    assert asked == 0


def test_a_restriction_marker_is_kept_by_the_words_after_it(judge: LocalJudge) -> None:
    """ "فقط" (only) restricts to the cities after it: a claim naming them keeps the restriction, one
    without them drops it."""
    cities = "در تهران، مشهد و اصفهان فیبر نوری با سرعت ۱۰۰ مگابیت بر ثانیه ارائه می‌شود."
    assert feature(judge, "condition_dropped", cities, [FIBRE_RULED]) == 0
    everyone = "سرویس فیبر نوری با سرعت ۱۰۰ مگابیت بر ثانیه ارائه می‌شود."
    assert feature(judge, "condition_dropped", everyone, [FIBRE_RULED]) == 1


def test_a_negation_the_chunks_state_is_no_flip(judge: LocalJudge) -> None:
    """ "Không có BHYT thì ... 100%" copies the chunk's own "không có BHYT" while its best window is the
    fee sentence: no flip, supported. Without that negation in any chunk the flip stays."""
    answer = (
        "Không có BHYT thì bạn trả 100% chi phí khám ạ: khám tổng quát 300.000 đồng một lượt, "
        "khám chuyên khoa 450.000 đồng một lượt."
    )
    assert feature(judge, "flip", answer, FEES) == 0
    result = run(judge, "ko có bhyt thì khám tổng quát hết bao nhiêu", answer, FEES)
    assert result.scores.faithfulness is not None and result.scores.faithfulness >= 0.8
    chunk = "Chính sách này không áp dụng cho hàng giảm giá."
    assert feature(judge, "flip", "Chính sách này áp dụng cho hàng giảm giá.", [chunk]) == 1
    assert (
        feature(
            judge,
            "flip",
            "Chính sách này không được dùng cho hàng giảm giá.",
            ["Chính sách này dùng cho hàng giảm giá."],
        )
        == 1
    )


@pytest.mark.parametrize(
    ("answer", "language"),
    [
        ("Sorry, our documents don't say anything about the pool. Please check with the front desk.", "en"),
        ("Sorry, our documents don't cover lost keys. Please contact the team at your studio.", "en"),
        ("Xin lỗi, chính sách không nói về hồ bơi. Vui lòng liên hệ quầy lễ tân của chi nhánh.", "vi"),
        ("抱歉，现有条款没有提到泳池。请咨询门店前台。", "zh"),
        ("متأسفانه در مستندات چیزی درباره استخر پیدا نکردم. لطفاً با پذیرش باشگاه تماس بگیرید.", "fa"),
    ],
)
def test_a_referral_after_an_abstention_is_no_claim(judge: LocalJudge, answer: str, language: str) -> None:
    """ "Please check with the front desk", "请咨询门店前台": where to ask, in any words, not a policy fact
    to check (the unseen gym domain's abstentions were scored on it and flagged low_faithfulness)."""
    chunk = "GY-1. Members may bring one guest per visit. Guests pay a $15 day fee."
    result = run(judge, "is there a pool?", answer, [chunk])
    assert result.verdicts.claims == (), language
    assert result.scores.faithfulness is None


def test_a_referral_with_a_number_is_still_a_claim(judge: LocalJudge) -> None:
    """The hard case: a request carrying a quantity states a fact ("within 14 days")."""
    answer = "Please contact the front desk within 14 days to book a guest pass."
    chunk = "GY-1. Members may bring one guest per visit. Guests pay a $15 day fee."
    assert run(judge, "guest pass?", answer, [chunk]).verdicts.claims


@pytest.mark.parametrize(
    "question, answer, chunk",
    [
        (
            "投保體檢要嗎",
            "现有条款没有提到投保是否需要体检，我无法确定，请联系人工客服确认。",
            "KF-2. 保单签收后有15天犹豫期。",
        ),
        (
            "آیا مودم اجاره می‌دهید؟",
            "متأسفانه پاسخ این سؤال را در مستندات پیدا نکردم؛ با پشتیبانی تماس بگیرید.",
            FIBRE,
        ),
        (
            "plus thi ship co mat tien k",
            "Mình không thấy ưu đãi vận chuyển riêng cho Plus trong chính sách. "
            "Bạn liên hệ CSKH để hỏi thêm nhé.",
            PLUS,
        ),
    ],
)
def test_honest_abstentions_are_neither_claims_nor_irrelevant(
    judge: LocalJudge, question: str, answer: str, chunk: str
) -> None:
    """ "我无法确定", "در مستندات پیدا نکردم", "không thấy ... trong chính sách": no claims, no context or
    answer relevance to flag."""
    result = run(judge, question, answer, [chunk])
    assert result.verdicts.abstained
    assert result.verdicts.claims == ()
    assert result.scores.faithfulness is None and result.scores.answer_relevance is None


def test_the_persian_semicolon_ends_a_claim_and_only_said_keeps_a_restriction(judge: LocalJudge) -> None:
    """ "؛" ends a sentence like ";" does, so a list after it is not prefixed with the sentence before;
    each city's claim says "فقط" (only) itself and keeps the restriction."""
    answer = "سرعت ADSL تا ۱۶ مگابیت بر ثانیه است؛ فیبر نوری ۱۰۰ مگابیت بر ثانیه فقط در تهران، مشهد و اصفهان."
    chunk = "SP-1. سرعت اینترنت خانگی ADSL تا ۱۶ مگابیت بر ثانیه است. " + FIBRE.removeprefix("SP-1. ")
    measured = judge.measure(_item("سرعت اینترنت خانگی شما چقدر است؟", answer, [chunk]))
    assert [c.text for c in measured.claims][:2] == [
        "سرعت ADSL تا ۱۶ مگابیت بر ثانیه است",
        "فیبر نوری ۱۰۰ مگابیت بر ثانیه فقط در تهران",
    ]
    assert not measured.features[:, FEATURES.index("condition_dropped")].any()
