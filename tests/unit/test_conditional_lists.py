"""Conditional check, sixth round: an answer that lists the cases, or names its own case in its own
language, does not state a value as everyone's.

Found on the train wordings of eleven businesses nobody had fitted the check to (vet to furniture,
tests/data/simulate/FORMAT.md): correct answers that give the value of each case ("CNY 2,000 for
economy, CNY 3,000 for comfort" over a Chinese list of car classes), or the value with a case written
in the answer's language, which cannot quote the policy's words ("每晚300元，仅限豪华房" over "Deluxe
rooms and suites only"). The policies below are written for these tests; each false flag stands beside
its hard positive, which must still be found.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

DEPOSIT_ZH = ["YJ-1. 车辆押金按车型收取：\n经济型：1,500元\n舒适型：2,500元\nSUV：4,000元"]
POINTS_ZH = ["会员积分：每消费1元积1分。金卡会员每消费1元积3分。"]
BEDS_EN = [
    "RM-4. Rollaway beds are available only for Executive rooms and suites. The charge is CNY 260 per night "
    "including breakfast for one guest, or HKD 380 per night at our Kowloon hotel."
]
SENIOR_EN = [
    "SC-2. Senior Care: pets aged 9 years or older qualify for the Senior Care Screen at $175, which adds a "
    "blood panel to the standard examination.",
    "SC-1. A standard wellness examination costs $120.",
]
INSTALMENTS_EN = [
    "Orders of $1,000 or more qualify for 0% APR for 12 months; other balances carry 19.99% APR."
]
PLUS_ZH = ["PLUS会员年费每年99元；新用户首次开通仅限首年69元。"]
# seventh round: the general sentence holds other values the answer quotes beside the case's value
WASH_ZH = ["XC-2. 洗车年卡售价360元，有效期一年，每月可享2次免费洗车。年满60岁的车主可按180元购买年卡。"]
TICKETS_EN = [
    "TK-1. Ticket prices: adults $18, children under 12 $9. TK-2. Members only: adult tickets cost $12."
]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        # every row of the list, in English over Chinese row labels
        (
            "deposit?",
            "It depends on the car: 1,500 yuan for economy, 2,500 yuan for comfort and 4,000 yuan for SUVs.",
            DEPOSIT_ZH,
        ),
        # both values of the topic, in the policy's own writing
        ("积分怎么算", "每消费1元积1分，也有积3分的。", POINTS_ZH),
        # the case in the answer's language: "仅限行政房" for "Executive rooms and suites only"
        ("加床多少钱", "每晚260元人民币，仅限行政房和套房。", BEDS_EN),
        # the case by its own threshold, in Chinese over an English policy
        ("老年宠物体检多少钱", "9岁及以上宠物的老年体检费用为$175。", SENIOR_EN),
        # the policy's own threshold, in Vietnamese
        ("co tra gop 0% khong", "Đơn từ 1.000 đô được trả góp 0% trong 12 tháng.", INSTALMENTS_EN),
        # the whole general sentence and the case's value beside it
        ("ve bao nhieu", "Người lớn 18 đô, trẻ em 9 đô, cũng có vé người lớn 12 đô.", TICKETS_EN),
    ],
)
def test_an_answer_that_sets_the_cases_apart_is_not_flagged(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        ("deposit?", "The deposit is 4,000 yuan.", DEPOSIT_ZH, "4,000 yuan"),
        ("how many points do i earn", "You earn 3 points per yuan.", POINTS_ZH, "3 points"),
        ("加床多少钱", "加床每晚260元人民币。", BEDS_EN, "260元人民币"),
        ("宠物体检多少钱", "宠物体检费用为$175。", SENIOR_EN, "$175"),
        # a case of the answer's own that is not the policy's: $300 is not "$1,000 or more"
        ("co tra gop 0% khong", "Đơn từ 300 đô được trả góp 0% trong 12 tháng.", INSTALMENTS_EN, "0%"),
        # the thing the question asks about is no case: "PLUS" does not make the new-user price general
        ("PLUS bao nhieu", "PLUS 69 tệ mỗi năm.", PLUS_ZH, "69 tệ"),
        # "免费" and "一年" of the general sentence quoted, its price (360元) left out: no list of cases
        ("洗车年卡多少钱", "年卡180元，有效期一年，每月2次免费洗车。", WASH_ZH, "180元"),
        # the children's price quoted, the adults' general $18 left out
        ("how much are tickets", "Adults pay $12 and children $9.", TICKETS_EN, "$12"),
    ],
)
def test_the_value_told_to_everyone_is_still_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [finding.text for finding in rules.check(question, answer, chunks).findings]


def test_a_count_of_people_is_no_count_of_tiers(rules: ConditionalRules) -> None:
    """After the general measure word 个 the noun says what is counted: "三个人" is not "三个等级"."""
    tiers = ["会员分为普通会员、黄金VIP和超级VIP三个等级。超级VIP最多四台设备同时播放。"]
    found = rules.check("几台设备能同时看", "同时播放上限是4台，三个人一起看没问题。", tiers).findings
    assert [finding.text for finding in found] == ["4台"]
    assert {q.unit for q in rules._quantities("三个人，三个等级")} == {"count:个人", "count:个等"}
