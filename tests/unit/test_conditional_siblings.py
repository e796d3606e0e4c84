"""Conditional check, third unseen-domain round: cases the packs do not name, and currencies quoted in
another language.

A policy often sets a case apart by its subject alone, with no tier word or "only" of any pack: "The
change fee is X. Saver Plus fares change for Y." The check now reads such a sentence as a *sibling case*
of the one before it (same topic, same unit, another value) and names the case by the words before its
value that the first sentence lacks. The policies here are written for these tests (a ferry line, a
bike-share scheme, a language school, a courier, a rail line, a video service, a pharmacy), not
taken from the simulator.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules
from monitor.embeddings import LocalE5Embedder
from monitor.numeric import NumericRules

FERRY_VI = (
    "Đổi vé: phí đổi ngày đi là 120.000 đồng mỗi lần đổi. Vé Linh Hoạt đổi ngày đi với phí 40.000 đồng "
    "mỗi lần. Yêu cầu đổi phải gửi trước 6 giờ khởi hành."
)
BIKES_EN = (
    "Ending your pass. Monthly riders can end their pass at any time by giving 7 days' notice. Riders on "
    "an annual pass may end it after the first term by giving 45 days' notice."
)
COURIER_FA = "ارسال در تهران ظرف ۲ روز کاری انجام می‌شود. در سایر شهرها ارسال حداکثر ۶ روز کاری طول می‌کشد."
SCHOOL_ZH = "报名后，课程顾问在2个工作日内联系学员；审核通过后，学费在5个工作日内退回。"
CARD_EN = (
    "Your payment is due 21 days after your statement date. Purchases get an interest-free period of up "
    "to 51 days."
)


def flagged(rules: ConditionalRules, question: str, answer: str, chunk: str) -> bool:
    return bool(rules.check(question, answer, [chunk]).findings)


CASES = [
    # a fare named by its subject only: its fee told to everyone is a finding, critical (the first
    # sentence gives everyone another fee)
    ("doi ngay di mat bao nhieu", "Đổi ngày đi chỉ 40.000 đồng mỗi lần.", FERRY_VI, True),
    ("change fee for the ferry", "Changing your date costs 40,000 VND.", FERRY_VI, True),
    # hard negatives: the general fee, the fare named by the answer or by the question
    ("doi ngay di mat bao nhieu", "Phí đổi ngày đi là 120.000 đồng mỗi lần.", FERRY_VI, False),
    ("doi ngay di mat bao nhieu", "Vé Linh Hoạt chỉ mất 40.000 đồng mỗi lần đổi.", FERRY_VI, False),
    ("ve linh hoat doi ngay mat bao nhieu", "Chỉ 40.000 đồng mỗi lần đổi.", FERRY_VI, False),
    # a subject qualified without any tier word ("Riders on an annual pass")
    ("how much notice to end my pass", "You need to give 45 days' notice.", BIKES_EN, True),
    ("how much notice to end my annual pass", "You need to give 45 days' notice.", BIKES_EN, False),
    ("how much notice to end my pass", "Monthly riders give 7 days' notice.", BIKES_EN, False),
    # the later sentence speaks of "the other cities": it is the general case, not a sibling
    ("ارسال چند روز طول میکشه", "ارسال حداکثر ۶ روز کاری طول می‌کشد؛ در تهران ۲ روز کاری.", COURIER_FA, False),
    # two steps of one process share a few words, not a subject: no case
    ("退款要多久", "审核通过后，学费在5个工作日内退回。", SCHOOL_ZH, False),
    ("多久联系我", "课程顾问2个工作日内联系，退费5个工作日内到账。", SCHOOL_ZH, False),
    # the question names the later sentence's subject: its own value is right
    ("interest free period on purchases", "Up to 51 days.", CARD_EN, False),
]


@pytest.mark.parametrize(("question", "answer", "chunk", "expected"), CASES)
def test_sibling_cases(
    rules: ConditionalRules, question: str, answer: str, chunk: str, expected: bool
) -> None:
    assert flagged(rules, question, answer, chunk) is expected


def test_a_sibling_names_its_case_by_its_subject(rules: ConditionalRules) -> None:
    finding = rules.check("doi ngay di mat bao nhieu", "Đổi ngày đi chỉ 40.000 đồng.", [FERRY_VI]).findings[0]
    assert finding.condition.split()[:3] == ["Vé", "Linh", "Hoạt"]
    assert [q.value for q in finding.general] == [120000]  # critical: everyone else pays 120.000


# Currencies a customer quotes in another language than the policy: "8 tệ" is the policy's "8元"
CURRENCIES = [
    ("Phí ship là 8 tệ mỗi đơn.", "8", "CNY"),
    ("Gói năm giá 69 nhân dân tệ.", "69", "CNY"),
    ("Phí 300 đô HK mỗi tháng.", "300", "HKD"),
    ("It's 20 bucks.", "20", "USD"),
    ("The fee is 1,500 yen.", "1500", "JPY"),
    ("年费3000日元。", "3000", "JPY"),
    ("هزینه ۲۰ دلار هنگ کنگ است.", "20", "HKD"),
    ("هزینه ۲۰ دلار است.", "20", "USD"),
]


@pytest.mark.parametrize(("text", "value", "unit"), CURRENCIES)
def test_currencies_in_other_languages(text: str, value: str, unit: str) -> None:
    [quantity] = NumericRules.load().extract(text)
    assert (str(quantity.value), quantity.unit) == (value, unit)


def test_a_yuan_price_in_vietnamese_is_checked_against_a_chinese_policy(rules: ConditionalRules) -> None:
    chunk = "【运费标准】单笔订单满199元免运费；未满199元的，收取运费15元。\n金卡会员：每单运费8元"
    assert flagged(rules, "phi ship bao nhieu", "Phí ship là 8 tệ mỗi đơn.", chunk)
    assert not flagged(rules, "phi ship bao nhieu", "Đơn dưới 199 tệ thì phí ship là 15 tệ.", chunk)


# An answer in another writing than the policy shares no word with it: when a condition-bound sentence
# and an unbound one both state its value, the embedder (multilingual e5) says which it speaks of
RAIL_ZH = [
    "退票：开车前48小时以上退票，收取票价5%的手续费，最低收取20元。",
    "改签：普通旅客改签每次收费50元；会员改签每次20元。",
]


@pytest.fixture(scope="module")
def across() -> ConditionalRules:
    return ConditionalRules.load(NumericRules.load(), embedder=LocalE5Embedder())


def test_an_answer_in_another_writing_is_matched_by_meaning(
    rules: ConditionalRules, across: ConditionalRules
) -> None:
    members_fee = "Đổi vé mỗi lần mất 20 tệ."  # the members' change fee told to everyone
    assert bool(across.check("phi doi ve", members_fee, RAIL_ZH).findings)
    assert not rules.check("phi doi ve", members_fee, RAIL_ZH).findings  # without it: a tie passes
    # the refund's minimum fee, which holds for everyone, is the sentence it speaks of
    refund = "Trả vé trước 48 giờ mất phí 5%, tối thiểu 20 tệ."
    assert not across.check("phi tra ve", refund, RAIL_ZH).findings


# Tiers and billing periods each language names ("Gold VIP", "VIP Vàng" for "黄金VIP"; "包年" and "yearly
# plan" for "年卡"): a question or answer naming the case in its own language carries it
VIDEO_ZH = "【退款】月度会员开通后7天内可申请退款；年卡会员开通后15天内可申请退款。"
TIERS = [
    ("包年的多久内能退", "15天内可以申请退款。", VIDEO_ZH, False),
    ("can i get a refund on my yearly plan", "Within 15 days of starting it.", VIDEO_ZH, False),
    ("hoàn tiền gói năm trong bao lâu", "Trong vòng 15 ngày.", VIDEO_ZH, False),
    ("多久内能退款", "15天内可以申请退款。", VIDEO_ZH, True),  # the annual members' window told to all
]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("SVIP支持4K和杜比视界。", []),
        ("Super VIP streams in 4K.", []),
        ("xem 4K được không", []),
        ("phí ship 4k nhé", [("4000", "VND")]),  # a price in thousands is still one
        ("phí 4k, cọc 20k", [("4000", "VND"), ("20000", "VND")]),
    ],
)
def test_a_video_resolution_is_no_price(text: str, read: list[tuple[str, str]]) -> None:
    assert [(str(q.value), q.unit) for q in NumericRules.load().extract(text)] == read


# Persian text, as a Persian pharmacy writes it (written for these tests)
HOURS_FA = (
    "چت مشاوره در اپ شنبه تا پنجشنبه از ۹ صبح تا ۱۱ شب و جمعه‌ها و تعطیلات رسمی از ۱۱ صبح تا ۵ عصر پاسخگوست."
)
TEHRAN_FA = (
    "فقط برای نشانی‌های داخل محدوده شهر تهران: سفارش‌هایی که تا ساعت ۱۴ ثبت شوند ظرف ۱۲ ساعت تحویل "
    "داده می‌شوند. ارسال به سایر شهرها ۴ روز طول می‌کشد."
)
SENIORS_FA = "مشتریان ۶۵ سال به بالا ۱۰ درصد تخفیف می‌گیرند. مشتریان جدید در اولین سفارش ۵ درصد تخفیف می‌گیرند."
PERSIAN = [
    # a day set after a clock range that the next range's is: Saturday to Thursday is the first range's
    ("ساعت کاری چت", "شنبه تا پنجشنبه ۹ صبح تا ۱۱ شب؛ جمعه‌ها ۱۱ صبح تا ۵ عصر.", HOURS_FA, False),
    ("ساعت کاری چت", "هر روز از ۹ صبح تا ۱۱ شب پاسخگو هستیم.", HOURS_FA, True),
    # "تا ساعت ۱۴ سفارش" is 2 pm, not 14 orders; the scope's name goes on past a plural written apart
    ("کی میرسه", "در محدوده شهر تهران اگر تا ساعت ۱۴ سفارش بدهید، ظرف ۱۲ ساعت می‌رسد.", TEHRAN_FA, False),
    ("کی میرسه", "ظرف ۱۲ ساعت تحویل می‌گیرید.", TEHRAN_FA, True),
    # "۶۷ سالمه" (I am 67) is an age on the threshold's side
    ("۶۷ سالمه، تخفیف دارید؟", "ده درصد تخفیف می‌گیرید.", SENIORS_FA, False),
    ("تخفیف دارید؟", "ده درصد تخفیف می‌گیرید.", SENIORS_FA, True),
]


@pytest.mark.parametrize(("question", "answer", "chunk", "expected"), [*TIERS, *PERSIAN])
def test_tiers_periods_and_persian_cases(
    rules: ConditionalRules, question: str, answer: str, chunk: str, expected: bool
) -> None:
    assert flagged(rules, question, answer, chunk) is expected
