"""Conditional check: what an unseen domain's correct answers tripped (issue 11).

Two domains written for this round and read by no earlier rule (a gym chain in English, an appliance
retailer in Chinese) had 15-23% of their correct answers flagged `unqualified_condition` on their
train traffic. Each mechanism below is general; the policies here are written for these tests (a
yoga studio, a bike shop, a bakery, a phone repairer), not taken from the simulator, and each has a
hard case that must still be flagged.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

NOTICE = (
    "Casual members can leave at any time by giving 14 days' notice. "
    "Members on an annual contract must give 30 days' notice before leaving."
)
PAUSE = (
    "Members may pause their membership for up to 4 weeks in any 12-month period. "
    "Members who provide a medical certificate may pause their membership for up to 6 months."
)
PAUSE_TIERS = (
    "Members may pause their membership for up to 4 weeks in any 12-month period. "
    "Unlimited members: up to 12 weeks in any 12-month period."
)
PLANS = "Standard: $30 per fortnight.\nOff-Peak: $22 per fortnight.\nTeen*: $18 per fortnight.\n" + (
    "*Teens aged 13 to 17 only."
)
WARRANTY_ZH = "【保修期限】\n小件配件：1年\n整车、车架、电机：3年\n电池：2年"
PAYMENT_ZH = (
    "货到付款仅限北京、上海的市区订单，且订单金额须在5000元以下。\n"
    "【分期免息】单笔订单满1000元，可选3期或6期免息；满3000元的，可选12期免息。"
)
DELIVERY_EN = "Standard delivery costs $6. Over $40, delivery is free."
OPENING = "The counter opens between 8:00 and 20:00. Repair club members may book until 22:00 with notice."


def flagged(rules: ConditionalRules, question: str, answer: str, chunk: str | list[str]) -> bool:
    return bool(rules.check(question, answer, [chunk] if isinstance(chunk, str) else chunk).findings)


# An answer that names another case of the same thing beside this value sets the cases apart
APART = [
    # it names the sibling case ("annual contract"): 14 days is not told to everyone
    ("how much notice to leave", "14 days' notice; 30 days if you are on an annual contract.", NOTICE, False),
    # in another writing than the policy it cannot quote the cases: both values set them apart
    ("暂停会籍最多多久", "每12个月最多暂停4周；凭医疗证明最长6个月。", PAUSE, False),
    # one value alone is still the exception told to everyone
    ("暂停会籍最多多久", "最长可以暂停6个月。", PAUSE, True),
    ("how much notice to leave", "You need to give 30 days' notice.", NOTICE, True),
    # the rule's own "12-month period" is no other case
    ("how long can I pause", "You can pause for up to 12 weeks in any 12-month period.", PAUSE_TIERS, True),
    # two values with no case named set nothing apart (sets.yaml has the Chinese one)
    ("how much notice to leave", "Either 14 or 30 days' notice.", NOTICE, True),
]  # fmt: skip

# A hyphenated tier, and an age that only says who the named group is
NAMED = [
    ("how much is off-peak", "Off-Peak is $22 per fortnight.", PLANS, False),
    ("how much is a membership", "It is $22 per fortnight.", PLANS, True),
    ("what do teens pay", "Teens pay $18 per fortnight.", PLANS, False),
    ("how much is a membership", "It costs $18 per fortnight.", PLANS, True),
]  # fmt: skip

# A label that lists several cases is carried by any one of them
LISTED = [
    ("电机保修几年", "电机保修3年。", WARRANTY_ZH, False),
    ("车架坏了保修多久", "车架保修期是3年。", WARRANTY_ZH, False),
    ("保修几年", "保修3年。", WARRANTY_ZH, True),
]  # fmt: skip

# A heading ends the scope of the section before it; a threshold alone in its comma part governs the
# part after it
SECTIONS = [
    ("可以分期吗", "满1000元可选3期或6期免息。", PAYMENT_ZH, False),
    ("可以分期吗", "支持12期免息。", PAYMENT_ZH, True),
    ("可以分期吗", "满3000元可以分12期免息。", PAYMENT_ZH, False),
    ("is delivery free", "Delivery is free.", DELIVERY_EN, True),
    ("my order is $55, is delivery free", "Yes, delivery is free.", DELIVERY_EN, False),
]  # fmt: skip


def test_the_minutes_of_a_clock_are_no_count(rules: ConditionalRules) -> None:
    """ "until 22:00 with notice" is a time, not 00 things called "with" (it was a value bound to the
    members' case, flagged in any answer quoting the time)."""
    report = rules.check("when can I book", "You can book until 22:00 with notice, members only.", [OPENING])
    assert not any(finding.text.startswith("00") for finding in report.findings)
    assert not flagged(
        rules, "opening hours", "The counter opens between 8:00 and 20:00 with staff.", OPENING
    )


JOINING = (
    "A one-off joining fee of $80 is charged when you join. "
    "If you join online, the joining fee is reduced to $30."
)
PASSES = "A casual day pass costs $20 ($12 with a valid concession card). Lockers cost $2."
SHIPPING_ZH = "运费30元（凭优惠卡15元）。"

# A condition is carried by a word that sets it apart from its siblings, not by the topic it shares
# with them; a bracket after a value that gives another value of its kind names that value's case
SET_APART = [
    ("how much to join", "The joining fee is $30.", JOINING, True),  # "join" is the topic, "online" the case
    ("joining fee online?", "Online the joining fee is $30.", JOINING, False),
    ("how much to join", "The joining fee is $80.", JOINING, False),
    ("day pass price", "A day pass is $12.", PASSES, True),
    ("day pass price", "A day pass is $20, or $12 with a concession card.", PASSES, False),
    ("concession card day pass", "With a concession card it's $12.", PASSES, False),
    ("运费多少", "运费15元。", SHIPPING_ZH, True),
    ("优惠卡运费多少", "凭优惠卡运费15元。", SHIPPING_ZH, False),
]  # fmt: skip


SERVICE_ZH = [
    "【安装服务】签收后，安装师傅将在48小时内上门。",
    "【上门维修】报修后，维修工程师一般在3个工作日内上门；市区用户48小时内上门。",
]
HOTLINE_ZH = ["售后热线服务时间为每天8:00-22:00。另设热线提供7×24小时服务，仅限钻石会员。"]
PLUS_ZH = [
    "PLUS会员权益：每月4张免运费券、30天无理由退货、专属客服通道。",
    "商品自签收之日起7天内支持无理由退货。",
]

# The heading a value stands under breaks a tie between its sentence and another that states the
# value generally; a scope word opening an item of a 、-list ("专属客服通道") scopes nothing
HEADINGS = [
    # the repair visit, not the installation
    ("报修后多久上门维修", "报修后48小时内上门维修。", SERVICE_ZH, True),
    ("安装师傅多久上门", "安装师傅48小时内上门。", SERVICE_ZH, False),
    ("plus会员退货几天", "PLUS会员30天无理由退货。", PLUS_ZH, False),
    # a scope word after a plain comma still scopes ("，仅限钻石会员")
    ("热线几点", "热线7×24小时服务。", HOTLINE_ZH, True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "answer", "chunk", "expected"),
    [*APART, *NAMED, *LISTED, *SECTIONS, *SET_APART, *HEADINGS],
)
def test_unseen_domain_cases(
    rules: ConditionalRules, question: str, answer: str, chunk: str | list[str], expected: bool
) -> None:
    """Every table above: a question, an answer, a policy, and whether the answer is a finding."""
    assert flagged(rules, question, answer, chunk) is expected
