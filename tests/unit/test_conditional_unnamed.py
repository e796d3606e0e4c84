"""Conditional check, sixth round: a case no pack word names, set apart by a general sentence beside it.

On the train wordings of eleven businesses nobody had fitted the packs to, many missed exceptions were
bound by words no pack lists ("首次到店的新客可享洗牙体验价99元", "Holders of a Seniors Concession Card
are given 30 days"). When the chunk also states the general case of the same topic with another value
(before it, or anywhere with a general marker such as "一般", "standard", "thường"), the words the value's
sentence adds are its case. The policies are written for these tests; each flag stands beside the
answers that must pass.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

DEPOSIT_ZH = ["押金一般为2,000元；豪华型车辆押金为10,000元。"]
MILEAGE_ZH = ["每日含300公里行驶里程。豪华型车辆每日含200公里。"]
DELIVERY_VI = [
    "Thời gian giao hàng nội thành 1 ngày làm việc. Đơn Hỏa Tốc liên tỉnh đến nơi trong 2 ngày làm việc; "
    "đơn thường liên tỉnh 3-5 ngày làm việc."
]
BILLS_EN = [
    "BL-2. Every bill is due 21 days after it is issued. Holders of a Pensioner Concession Card are "
    "allowed 35 days after it is issued."
]
# the rule, then a branch's value in a sentence sharing one topic word with it ("stay")
STAY_EN = [
    "DP-2. At check-in a deposit of CNY 600 per room per night is taken, up to CNY 2,400 per stay. "
    "Lanting Kowloon takes HKD 1,200 per stay."
]
PRICES_EN = ["PT-1. Personal training:\nSingle session: $80.\nPack of 10 sessions: $700."]


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        ("押金多少", "押金10,000元。", DEPOSIT_ZH, "10,000元"),  # the general marker 一般 sets 2,000元 apart
        ("每天多少公里", "每天200公里。", MILEAGE_ZH, "200公里"),  # the rule first, then the case
        ("giao lien tinh mat may ngay", "Giao liên tỉnh 2 ngày làm việc.", DELIVERY_VI, "2 ngày làm việc"),
        ("how long do i have to pay my bill", "You have 35 days after it is issued.", BILLS_EN, "35 days"),
        ("deposit?", "A deposit of HKD 1,200 is taken per stay.", STAY_EN, "HKD 1,200"),
    ],
)
def test_a_case_no_pack_names_is_found_beside_the_general_case(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    findings = rules.check(question, answer, chunks).findings
    assert [f.text for f in findings] == [value]
    assert findings[0].severity == "critical"  # the general value stands beside it


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("押金多少", "豪华型押金10,000元。", DEPOSIT_ZH),  # the answer says the case
        ("押金多少", "押金一般2,000元。", DEPOSIT_ZH),  # the general value
        ("每天多少公里", "每天300公里，豪华型200公里。", MILEAGE_ZH),  # both: it lists the cases
        ("giao lien tinh mat may ngay", "Hỏa tốc liên tỉnh 2 ngày làm việc.", DELIVERY_VI),
        ("giao lien tinh mat may ngay", "Giao liên tỉnh 3-5 ngày làm việc.", DELIVERY_VI),
        ("my pensioner card, how long to pay", "You have 35 days after it is issued.", BILLS_EN),
        ("how long do i have to pay my bill", "Bills are due 21 days after they are issued.", BILLS_EN),
        ("deposit in kowloon?", "Lanting Kowloon takes HKD 1,200 per stay.", STAY_EN),
        # rows of a list are parallel cases, read by the row reader, not a rule and its exception
        ("pt price", "A personal training session costs $80.", PRICES_EN),
        # in another language the case's words cannot be quoted: no finding from this rule
        ("how much deposit", "The deposit is CNY 10,000.", DEPOSIT_ZH),
    ],
)
def test_answers_that_say_the_case_or_the_rule_pass(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()
