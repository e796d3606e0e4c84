"""Conditional check: a label before a group noun, a general word inside a Chinese run, and a
qualifier that ends at its group noun.

Found on the train wordings of 34 development businesses (a laundry's policy, written in Chinese):
"标准时效：门店收衣当日不计入时效，常规衣物…3天可取" read "标准时效：门店" as a group (a standard
turnaround is the general case: "标准" is a general word, but a run of Chinese characters is one token),
and "积分规则：会员每消费1元积1分" read the label "积分规则" (points rules) as the members' qualifier.
The policies below are written for these tests; hard positives stand beside the answers that must pass.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

TURNAROUND = [
    "FW-1. 标准时效：门店收衣当日不计入时效，常规衣物自收衣次日起3天可取，按公斤洗48小时内完成。"
    "床品、窗帘及鞋类为5天。"
]
POINTS = ["HY-4. 积分规则：会员每消费1元积1分，100积分可抵扣1元。"]
TIERED_POINTS = ["HY-5. 金卡会员：每消费1元积2分；普通会员每消费1元积1分。"]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("洗衣周期多久", "普通衣服3天就好。", TURNAROUND),
        ("积分怎么用", "1元积1分，100分抵1元。", POINTS),
        ("积分怎么算", "每消费1元积1分。", TIERED_POINTS),
    ],
)
def test_a_label_or_a_general_run_names_no_case(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


def test_a_tier_s_value_under_a_label_is_still_found(rules: ConditionalRules) -> None:
    """The gold cardholders' rate told to everyone: the group named before the label's colon."""
    findings = rules.check("积分怎么算", "每消费1元积2分。", TIERED_POINTS).findings
    assert [f.text for f in findings] == ["2分"]


WARNING_EN = [
    "DC-1. We send a written disconnection warning at least 10 business days before the disconnection "
    "date. For registered customers the disconnection warning is sent 30 business days ahead."
]


def test_a_qualifier_ends_at_its_group_noun(rules: ConditionalRules) -> None:
    """ "For registered customers the disconnection warning ...": the case is named by "registered", not
    by the words after "customers" (which every question about warnings says)."""
    found = rules.check("disconnection warning time", "The warning comes 30 business days ahead.", WARNING_EN)
    assert [f.text for f in found.findings] == ["30 business days"]
    asked = rules.check("registered customer: warning time?", "30 business days ahead.", WARNING_EN)
    assert asked.findings == ()
