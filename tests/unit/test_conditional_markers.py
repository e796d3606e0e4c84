"""Conditional check: what a marker names, read where the language writes it.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md): "CNY 300 per night
including breakfast for one person" read "for one person" as the price's case (a count after "for"
says what the value covers, as a digit there already did: "for 2 hours"), and Chinese "黑金卡会员除外：
黑金卡会员每张票可改签3次" read "除" as an except-marker naming "外" (the exception "除外" names the words
before it), so answers naming the members were flagged; and a place heading a list ("Phí thay SIM tại
cửa hàng: khách hàng thông thường 25.000đ; hội viên Vàng 10.000đ") read as the case of its first
value. The policies below are written for these tests; each false flag stands beside its hard
positive, which must still be found.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

BEDS_EN = [
    "RM-2. Rollaway beds cost CNY 300 per night with breakfast for one person, "
    "or HKD 400 per night at our Kowloon hotel."
]
FARES_EN = ["CH-1. Changes cost 45 USD for Eco Saver fares and 20 USD for Eco Flex fares."]
# a place heading a list of values: where the whole list holds, no case of one of them
SIM_VI = [
    "SM-2. Phí làm lại SIM tại cửa hàng Sóng Biển: khách hàng thông thường 30.000 đồng/lần; "
    "hội viên Vàng 15.000 đồng/lần."
]
TRANSFER_VI = ["CT-1. Phí chuyển tiền tại quầy: 22.000 đồng. Qua ứng dụng: miễn phí."]
CHANGES_ZH = [
    "GQ-2. 每张电影票可在开场前4小时以前免费改签1次。"
    "黑金卡会员除外：黑金卡会员每张票可改签3次，开场前1小时以前均可办理。"
]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("extra bed price", "An extra bed is CNY 300 per night.", BEDS_EN),
        ("黑金卡能改签几次", "黑金卡会员每张票可以改签3次。", CHANGES_ZH),
        ("lam lai sim bao nhieu", "30 nghìn đồng một lần nhé.", SIM_VI),
    ],
)
def test_what_the_marker_does_not_name_is_no_case(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        ("change fee", "Changes cost 20 USD.", FARES_EN, "20 USD"),
        ("电影票可以改签几次", "每张票可改签3次。", CHANGES_ZH, "3次"),
        ("lam lai sim bao nhieu", "15 nghìn đồng một lần nhé.", SIM_VI, "15 nghìn đồng"),
        # a place that sets one value apart from another place's is still a case
        ("phi chuyen tien", "Phí chuyển tiền 22.000 đồng.", TRANSFER_VI, "22.000 đồng"),
    ],
)
def test_the_case_it_names_is_still_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [finding.text for finding in rules.check(question, answer, chunks).findings]
