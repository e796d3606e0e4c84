"""Conditional check: a second round on what the unseen domains' correct answers tripped.

After the first round (test_conditional_unseen.py) the gym and appliance domains still had 3-24% of
their correct answers flagged on train traffic. Each mechanism below is general; the policies here are
written for these tests (a tea shop, a swimming school, a printer seller, a ferry line), not taken from
the simulator, and each has a hard case that must still be flagged.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

# a qualified unit in another sentence that shares one chance word with the answer ("期为")
RETURNS_ZH = (
    "【价格保障】茶叶自签收之日起10天内，如同款降价，可申请退还差价。银卡会员价保期为20天。\n"
    "【退款】退款周期为10个工作日的，仅适用于分期付款的订单。"
)
# a sentence that goes on after its value, then a list row: no list of rows
PRINTER_ZH = "【耗材】墨盒保质期：未开封2年。墨盒须在开封之日起60天内用完；金卡会员放宽至90天。"
SWIM_ZH = "凡在本馆报名游泳课程的学员，均可免费使用淋浴间。教练课每节120元，年卡会员每节90元。"
SWIM_TIER_ZH = "凡年卡会员，均可免费预约私教体验课1次；其他学员体验课每次80元。"
FERRY_ZH = "客服热线每天9:00-18:00。另设专线，提供7×24小时服务及优先处理。以上专线服务仅适用于白金会员。"


def flagged(rules: ConditionalRules, question: str, answer: str, chunk: str) -> bool:
    return bool(rules.check(question, answer, [chunk]).findings)


# A dropped qualifier ("10天" for "10个工作日") needs the qualified sentence to share the answer's subject:
# two topic words, not one chance pair
DROPPED = [
    ("降价能退差价吗", "价保期为10天，银卡会员延长到20天。", RETURNS_ZH, False),
    # the refund sentence's own subject, its qualifier dropped: still a finding
    ("退款周期多久", "分期付款订单的退款周期为10天。", RETURNS_ZH, True),
]


# A cell without a separator is a row only when it ends at its value ("大型车10元/小时；"): a sentence
# that goes on after it ("墨盒须在开封之日起60天内用完；") names no case with its words before the value
ROWS = [
    ("墨盒开封后多久要用完", "开封后60天内用完，金卡会员是90天。", PRINTER_ZH, False),
    ("墨盒开封后多久要用完", "开封后60天内用完。", PRINTER_ZH, False),
    # the gold members' longer period told to everyone is still a finding
    ("墨盒开封后多久要用完", "开封后90天内用完即可。", PRINTER_ZH, True),
]


def test_unruled_list_rows_still_name_their_case(rules: ConditionalRules) -> None:
    prices = "停车收费：小型车5元/小时；\n大型车10元/小时；"
    assert flagged(rules, "停车多少钱一小时", "停车每小时10元。", prices)
    assert not flagged(rules, "小型车停车多少钱", "小型车每小时5元。", prices)


# "凡…均…" quantifies over all of what it names: a general rule, no case; a tier or group inside it
# still binds
EVERY = [
    ("淋浴要钱吗", "淋浴间免费使用。", SWIM_ZH, False),
    # the annual-card price of a lesson, beside the general rule, is still bound
    ("教练课多少钱", "教练课每节90元。", SWIM_ZH, True),
    # "凡年卡会员，均…": the tier inside the universal still binds
    ("私教体验课怎么收费", "私教体验课可以免费预约1次。", SWIM_TIER_ZH, True),
    ("私教体验课怎么收费", "年卡会员可免费预约1次，其他学员每次80元。", SWIM_TIER_ZH, False),
]


# "以上…" opening a sentence points back ("以上专线服务仅适用于白金会员"); "优先处理" is a service, no tier
BACK = [
    ("热线几点", "热线每天9:00-18:00；白金会员另有7×24小时专线。", FERRY_ZH, False),
    # the platinum line's hours told to everyone
    ("热线几点", "热线7×24小时都可以打。", FERRY_ZH, True),
]


def test_and_above_after_a_tier_is_no_back_pointer(rules: ConditionalRules) -> None:
    # "银卡及以上会员" is silver and above: a scope of its own, handed on by nothing
    chunk = "普通会员运费10元。银卡及以上会员每月可享2次免运费。"
    assert flagged(rules, "运费多少", "每月2次免运费。", chunk)


PARKING_EN = (
    "Customers park free for the first 3 hours at stores with a basement car park. At the Riverside "
    "store, customers who show a receipt get 5 hours of free parking."
)
FEES_EN = "Changes cost $45 for Saver fares and $20 for Flex fares."
REFUNDS_EN = (
    "Refunds are paid to your nominated account within 5 business days. Gold account holders are "
    "refunded within 2 business days."
)

# "free for the first 3 hours": a "for" whose words run into the next value measures it, no case of
# "free"; then "3 hours at stores" is no postposed case either (one left names nothing)
MEASURED = [
    ("how long can I park for free", "Parking is free for the first 3 hours.", PARKING_EN, False),
    ("how long can I park for free", "You can park free for 5 hours.", PARKING_EN, True),
    # postposed cases of two values still bind each
    ("how much is a change", "Changes cost $20.", FEES_EN, True),
    ("how much is a change", "Changes cost $45 for Saver fares and $20 for Flex fares.", FEES_EN, False),
]


# The general value beside a value whose case the answer names in part ("At Riverside", not its
# "who show a receipt") sets the cases apart
GENERAL_BESIDE = [
    (
        "how long can I park for free",
        "You get the first 3 hours free. At Riverside, showing a receipt gets you 5 hours.",
        PARKING_EN,
        False,
    ),
    # no general value beside it: the case told to everyone
    ("how long can I park for free", "At Riverside you get 5 hours free.", PARKING_EN, True),
]


# "your nominated account" says where money goes: no group of people; "account holders" is one
ACCOUNTS = [
    ("how long does a refund take", "Refunds are paid within 5 business days.", REFUNDS_EN, False),
    ("how long does a refund take", "Refunds are paid within 2 business days.", REFUNDS_EN, True),
]


CLIMBING_EN = (
    "Adult entry: $18.\nStudent: $12.\nPunch card of 10 visits: $150, valid for 12 months.\n"
    "Corporate members — staff of a registered climbing-wall business partner — receive 20% off."
)
COURIER_ZH = "普通订单3个工作日内送达。偏远地区（山区、牧区）的订单，配送时效为8个工作日。"

# An answer in another writing names the case in its own words: concept groups of equivalents
# (students, corporate, remote areas), matched on a condition's keys too when its phrase stops short
OWN_WORDS = [
    ("vé vào cửa sinh viên bao nhiêu", "Sinh viên trả $12.", CLIMBING_EN, False),
    ("学生票多少钱", "学生 $12。", CLIMBING_EN, False),
    ("公司是合作企业，有折扣吗", "企业会员可享20%折扣。", CLIMBING_EN, False),
    ("送到偏远山区要多久", "Delivery to remote areas takes 8 business days.", COURIER_ZH, False),
    ("giao hàng vùng xa mất bao lâu", "Giao đến vùng xa mất 8 ngày làm việc.", COURIER_ZH, False),
    # the case's value told to everyone, in any writing, is still a finding
    ("vé vào cửa bao nhiêu", "Vé vào cửa là $12.", CLIMBING_EN, True),
    ("送货要多久", "Delivery takes 8 business days.", COURIER_ZH, True),
    ("có giảm giá không", "Được giảm 20%.", CLIMBING_EN, True),
]


# A label naming a count ("Punch card of 10 visits") is carried by a count of that number in any
# counting word ("10次卡", "thẻ 10 lượt"): another writing cannot quote the word
COUNTED = [
    ("攀岩多少钱", "单次$18；10次卡$150，12个月有效。", CLIMBING_EN, False),
    ("leo núi giá bao nhiêu", "Vé lẻ $18; thẻ 10 lượt giá $150.", CLIMBING_EN, False),
    # the card's price as the price of entry
    ("leo núi giá bao nhiêu", "Giá vào cửa là $150.", CLIMBING_EN, True),
    # another count does not name it
    ("攀岩多少钱", "5次卡$150。", CLIMBING_EN, True),
]


LOANS_ZH = "单笔满2000元可分6期免息。钻石会员每月可享1次免费上门回收。"


def test_a_hyphenated_free_is_no_price(rules: ConditionalRules) -> None:
    # "interest-free" says without interest: no "free" price to meet the members' free pick-up
    answer = "Orders of RMB 2,000 or more can be paid in 6 interest-free instalments."
    assert not flagged(rules, "interest free instalments?", answer, LOANS_ZH)
    # the members' free pick-up told to everyone is still a finding; "fee-free" is still a price
    assert flagged(rules, "is pick-up free?", "Pick-up is free.", LOANS_ZH)
    assert flagged(rules, "is pick-up free?", "Pick-up is fee-free.", LOANS_ZH)


# every table above: a question, an answer, a policy, and whether the answer is a finding
CASES = [*DROPPED, *ROWS, *EVERY, *BACK, *MEASURED, *GENERAL_BESIDE, *ACCOUNTS, *OWN_WORDS, *COUNTED]


@pytest.mark.parametrize(("question", "answer", "chunk", "expected"), CASES)
def test_unseen_round_two_cases(
    rules: ConditionalRules, question: str, answer: str, chunk: str, expected: bool
) -> None:
    assert flagged(rules, question, answer, chunk) is expected
