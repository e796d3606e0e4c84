"""Conditional check: a second round on what the unseen domains' correct answers tripped.

After the first round (test_conditional_unseen.py) the gym and appliance domains still had 3-24% of
their correct answers flagged on train traffic. Each mechanism below is general; the policies here are
written for these tests (a tea shop, a swimming school, a printer seller, a ferry line), not taken from
the simulator, and each has a hard case that must still be flagged.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules
from monitor.numeric import NumericRules

# a qualified unit in another sentence that shares one chance word with the answer ("期为")
RETURNS_ZH = (
    "【价格保障】茶叶自签收之日起10天内，如同款降价，可申请退还差价。银卡会员价保期为20天。\n"
    "【退款】退款周期为10个工作日的，仅适用于分期付款的订单。"
)
# a sentence that goes on after its value, then a list row: no list of rows
PRINTER_ZH = "【耗材】墨盒保质期：未开封2年。墨盒须在开封之日起60天内用完；金卡会员放宽至90天。"


@pytest.fixture(scope="module")
def rules() -> ConditionalRules:
    return ConditionalRules.load(NumericRules.load())


def flagged(rules: ConditionalRules, question: str, answer: str, chunk: str) -> bool:
    return bool(rules.check(question, answer, [chunk]).findings)


# A dropped qualifier ("10天" for "10个工作日") needs the qualified sentence to share the answer's subject:
# two topic words, not one chance pair
DROPPED = [
    ("降价能退差价吗", "价保期为10天，银卡会员延长到20天。", RETURNS_ZH, False),
    # the refund sentence's own subject, its qualifier dropped: still a finding
    ("退款周期多久", "分期付款订单的退款周期为10天。", RETURNS_ZH, True),
]


@pytest.mark.parametrize(("question", "answer", "chunk", "expected"), DROPPED)
def test_dropped_qualifier_needs_the_sentence_subject(
    rules: ConditionalRules, question: str, answer: str, chunk: str, expected: bool
) -> None:
    assert flagged(rules, question, answer, chunk) is expected


# A cell without a separator is a row only when it ends at its value ("大型车10元/小时；"): a sentence
# that goes on after it ("墨盒须在开封之日起60天内用完；") names no case with its words before the value
ROWS = [
    ("墨盒开封后多久要用完", "开封后60天内用完，金卡会员是90天。", PRINTER_ZH, False),
    ("墨盒开封后多久要用完", "开封后60天内用完。", PRINTER_ZH, False),
    # the gold members' longer period told to everyone is still a finding
    ("墨盒开封后多久要用完", "开封后90天内用完即可。", PRINTER_ZH, True),
]


@pytest.mark.parametrize(("question", "answer", "chunk", "expected"), ROWS)
def test_a_row_without_separator_ends_at_its_value(
    rules: ConditionalRules, question: str, answer: str, chunk: str, expected: bool
) -> None:
    assert flagged(rules, question, answer, chunk) is expected


def test_unruled_list_rows_still_name_their_case(rules: ConditionalRules) -> None:
    prices = "停车收费：小型车5元/小时；\n大型车10元/小时；"
    assert flagged(rules, "停车多少钱一小时", "停车每小时10元。", prices)
    assert not flagged(rules, "小型车停车多少钱", "小型车每小时5元。", prices)
