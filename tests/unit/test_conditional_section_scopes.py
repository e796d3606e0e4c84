"""Conditional check: a section's title, a closing "this clause applies only to" and an "Exception:"
label bind values too.

Found on the train wordings of 34 development businesses, among conditional values told to everyone
that no condition bound: a coworking policy's "Quyền lợi riêng của gói Private Office." (benefits of
the Private Office plan only) over the section's allowances, a dental clinic's "本条仅适用于专家号"
(this clause applies only to expert appointments) after its no-show fee, a grocer's "Exception: bakery
items and fresh fish ...". The words are pack data (scope and back markers). The policies below are
written for these tests; each hard positive stands beside the answers that must pass.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

MEETING_VI = [
    "TI-1. Mỗi thành viên được 5 giờ phòng họp miễn phí mỗi tháng.",
    "TI-2. Quyền lợi riêng của gói Private Office. Mỗi văn phòng được 20 giờ phòng họp miễn phí mỗi tháng.",
]
NO_SHOW_ZH = [
    "YY-2. 不足24小时取消或未到诊的，收取爽约费50元。",
    "YY-3. 专家号须在就诊前48小时以上取消。逾期取消或爽约的，收取费用100元。本条仅适用于专家号。",
]
FRESH_EN = [
    "FG-1. Chilled and fresh food is delivered with a minimum of 3 days before its use-by date. "
    "Exception: bakery items and fresh fish are delivered with a minimum of 1 day."
]


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        ("phong hop mien phi may gio", "Bạn được 20 giờ phòng họp miễn phí mỗi tháng.", MEETING_VI, "20 giờ"),
        ("爽约怎么收费", "爽约收100元。", NO_SHOW_ZH, "100元"),
        (
            "how fresh is food on delivery",
            "Food comes with at least 1 day before its date.",
            FRESH_EN,
            "1 day",
        ),
    ],
)
def test_a_case_s_value_told_to_everyone_is_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [f.text for f in rules.check(question, answer, chunks).findings]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("private office duoc may gio phong hop", "Private Office được 20 giờ mỗi tháng.", MEETING_VI),
        ("phong hop mien phi may gio", "Mỗi thành viên được 5 giờ mỗi tháng.", MEETING_VI),
        ("专家号爽约收多少", "专家号爽约收100元。", NO_SHOW_ZH),
        ("bakery items: how fresh on delivery?", "Bakery items come with at least 1 day.", FRESH_EN),
    ],
)
def test_the_case_asked_or_the_general_value_passes(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()
