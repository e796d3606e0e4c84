"""The local judge on correct telecom answers it used to score low (opening hours, every day, contact
pointers, spelled numbers, stated conditions), each with its hard negative."""

from __future__ import annotations

import asyncio

import pytest

from monitor.embeddings import LocalE5Embedder
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.local import LocalJudge
from monitor.judge.support import FEATURES

HOURS = (
    "SP-1. Phone support is open 8:00-22:00 local time, seven days a week: call 611 from your Skyline "
    "phone or 1-800-555-0142 from any phone. Premium subscribers also have a priority phone line that "
    "is open 24/7."
)
RETURNS = (
    "CT-2. You can return a phone bought from Skyline Mobile within 14 days of delivery. Refunds go back "
    "to the original payment method within 5 business days after the device reaches our warehouse."
)
PREMIUM = (
    "CT-3. Premium subscribers who buy a device in the Skyline online store have thirty days from "
    "delivery to return it."
)


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge(LocalE5Embedder(), answer_relevance=False)


def _item(answer: str, chunks: list[str], language: str = "en") -> JudgeInput:
    return JudgeInput("t", "q", answer, tuple(JudgeChunk(f"c{i}", c) for i, c in enumerate(chunks)), language)


def run(judge: LocalJudge, answer: str, chunks: list[str], language: str = "en") -> JudgeResult:
    return asyncio.run(judge.judge(_item(answer, chunks, language)))


def claims(judge: LocalJudge, answer: str, chunks: list[str], language: str = "en") -> list[str]:
    return [c.text for c in judge.measure(_item(answer, chunks, language)).claims]


def numbers_bad(judge: LocalJudge, answer: str, chunks: list[str], language: str = "en") -> list[float]:
    measured = judge.measure(_item(answer, chunks, language))
    return [float(v) for v in measured.features[:, FEATURES.index("numbers_bad")]]


def test_opening_hours_in_am_pm_agree_with_the_24_hour_clock(judge: LocalJudge) -> None:
    """ "8 am to 10 pm, seven days a week, on 611 or 1-800-555-0142" is the policy's "8:00-22:00" with
    its numbers; a wrong closing time is in no chunk."""
    answer = "8 am to 10 pm, seven days a week, on 611 or 1-800-555-0142."
    assert numbers_bad(judge, answer, [HOURS]) == [0.0]
    assert (run(judge, answer, [HOURS]).scores.faithfulness or 0.0) >= 0.8
    assert numbers_bad(judge, "8 am to 9 pm, seven days a week, on 611 or 1-800-555-0142.", [HOURS]) == [1.0]


def test_every_day_is_a_day_set_not_one_week(judge: LocalJudge) -> None:
    """ "一周七天" is "seven days a week" (every day), not a quantity of one week; "一周六天" is read and
    is in no chunk."""
    answer = "早上8点到晚上10点，一周七天都有人工客服。"
    result = run(judge, answer, [HOURS], "zh")
    assert [c.supported for c in result.verdicts.claims] == [True]  # the other claim holds no number
    assert result.scores.faithfulness == 1.0
    wrong = run(judge, "早上8点到晚上10点，一周六天都有人工客服。", [HOURS], "zh")
    assert [c.supported for c in wrong.verdicts.claims] == [True, False]
    assert numbers_bad(judge, "Support is open 8:00-22:00, six days a week.", [HOURS]) == [1.0]


def test_a_contact_pointer_with_the_chunks_number_is_no_claim(judge: LocalJudge) -> None:
    """ "For anything else, contact Skyline support on 611" over the chunk with 611 says where to ask;
    another number beside the chunks' 611 is a wrong hotline and a claim in no chunk."""
    answer = "Refunds take up to five business days. For anything else, contact Skyline support on 611."
    assert claims(judge, answer, [RETURNS, HOURS]) == ["Refunds take up to five business days"]
    wrong = "Refunds take up to five business days. For anything else, contact Skyline support on 612."
    assert claims(judge, wrong, [RETURNS, HOURS])[1] == "For anything else, contact Skyline support on 612"
    assert numbers_bad(judge, wrong, [RETURNS, HOURS]) == [0.0, 1.0]


def test_a_contact_pointer_the_chunks_cannot_check_is_no_claim(judge: LocalJudge) -> None:
    """Chunks stating no contact number cannot check "gọi 611": a pointer, like "liên hệ CSKH"; a
    pointer with a quantity ("call 611 within 30 days") is still a claim."""
    answer = "Trong vòng 14 ngày từ ngày giao hàng. Cần hỗ trợ thêm, gọi 611."
    assert claims(judge, answer, [RETURNS], "vi") == ["Trong vòng 14 ngày từ ngày giao hàng"]
    assert run(judge, answer, [RETURNS], "vi").scores.faithfulness == 1.0
    timed = "You can return it within 14 days. Call 611 within 30 days."
    assert numbers_bad(judge, timed, [RETURNS]) == [0.0, 1.0]


def test_spelled_numbers_agree_with_digits_and_a_wrong_one_does_not(judge: LocalJudge) -> None:
    """ "five business days" and "năm ngày làm việc" are the chunk's "5 business days"; "six" is not."""
    assert numbers_bad(judge, "Refunds take up to five business days.", [RETURNS]) == [0.0]
    assert numbers_bad(judge, "Hoàn tiền trong năm ngày làm việc.", [RETURNS], "vi") == [0.0]
    assert numbers_bad(judge, "Refunds take up to six business days.", [RETURNS]) == [1.0]


def test_a_conditional_value_with_its_condition_drops_none(judge: LocalJudge) -> None:
    """ "If you're a Premium subscriber ..., thirty days" carries the chunk's "Premium subscribers" (one
    form of the word for another); "thirty days" for everyone still drops it."""
    stated = "If you're a Premium subscriber who bought it in the online store, you have thirty days."
    row = judge.measure(_item(stated, [RETURNS, PREMIUM])).features
    assert float(row[0, FEATURES.index("condition_dropped")]) == 0.0
    dropped = judge.measure(_item("You have thirty days to return a device.", [RETURNS, PREMIUM])).features
    assert float(dropped[0, FEATURES.index("condition_dropped")]) == 1.0


def test_a_value_for_everyone_but_the_excluded_drops_no_condition(judge: LocalJudge) -> None:
    """ "All plans except Premium include 5 GB" gives 5 GB to every other plan: "You get 5 GB" drops no
    condition, while Premium's own 50 GB for everyone still does."""
    chunks = [
        "RM-1. All plans except Premium include 5 GB of roaming data per month in the EU zone.",
        "RM-3. Premium subscribers have a roaming data allowance of 50 GB per month in the EU zone.",
    ]
    dropped = FEATURES.index("condition_dropped")
    other = judge.measure(_item("You get 5 GB of roaming data per month in the EU zone.", chunks)).features
    assert float(other[0, dropped]) == 0.0
    general = judge.measure(_item("You get 50 GB of roaming data per month in the EU zone.", chunks)).features
    assert float(general[0, dropped]) == 1.0


def test_a_section_label_is_no_contact_number(judge: LocalJudge) -> None:
    """ "SP-4. If your phone is lost, call support" states no phone line ("4" labels the section): it
    cannot check "call 611", while a chunk with the line 611 makes "call 612" a claim."""
    lost = "SP-4. If your phone is lost, call support and we block the line within 1 hour."
    answer = "We block the line within 1 hour. Then call 611."
    assert claims(judge, answer, [lost]) == ["We block the line within 1 hour"]
    assert claims(judge, "We block the line within 1 hour. Then call 612.", [lost, HOURS])[1:] == [
        "Then call 612"
    ]


def test_a_contact_pointer_stating_hours_is_a_claim(judge: LocalJudge) -> None:
    """ "Call 611 between 8 am and 10 pm" also states the hours: a claim, and a wrong hour is in no chunk."""
    answer = "Call 611 between 8 am and 10 pm, any day of the week."
    assert claims(judge, answer, [HOURS]) == [answer.rstrip(".")]
    assert claims(judge, "Call 611 or 1-800-555-0142 for help.", [HOURS]) == []
