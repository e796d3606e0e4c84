"""Conditional check: the days after "including" widen the days, they set none apart.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md): "ra vào 24/7 bằng thẻ
từ, kể cả Chủ nhật và ngày lễ" read Sunday as the days the 24/7 access holds on, so an answer naming
the members it is for was flagged for leaving Sunday out. The `including` words are pack data
(rules/conditional/*.yaml). The policies below are written for these tests; each false flag stands
beside its hard positive, which must still be found.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

ACCESS_VI = [
    "Chỉ thành viên Fixed Desk và Private Office được ra vào 24/7 bằng thẻ từ, kể cả Chủ nhật và ngày lễ. "
    "Các chi nhánh mở cửa từ 7:00 đến 21:00, Thứ Hai đến Thứ Sáu."
]
HOTLINE_EN = [
    "CS-1. Our hotline answers 8:00-22:00 every day, including public holidays; email replies in 2 days."
]
DESK_ZH = ["前台服务时间为9:00-18:00，包括周六和周日。仅限铂金会员可享受24小时专属客服。"]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        (
            "opening hours?",
            "Fixed Desk and Private Office members can get in 24/7 with their key card.",
            ACCESS_VI,
        ),
        ("hotline hours", "The hotline answers from 8:00 to 22:00.", HOTLINE_EN),
        ("前台几点上班", "前台9:00-18:00。", DESK_ZH),
    ],
)
def test_what_including_names_is_no_case(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        # the members the 24/7 access is for are still a case
        ("opening hours?", "You can get in 24/7 with a key card.", ACCESS_VI, "24/7"),
        ("客服几点", "专属客服24小时。", DESK_ZH, "24小时"),
    ],
)
def test_the_case_beside_it_is_still_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [finding.text for finding in rules.check(question, answer, chunks).findings]
