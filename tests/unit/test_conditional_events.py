"""Conditional check, seventh round: "returning" is a verb before it is a tier, and an "if" that says
on what event a value applies still sets a case apart.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md): an English "within 31
days of returning home" read as a tier of customers. Findings bound by an "if" with no other value in
the context were 49 on correct answers and 1 on answers stating a case's value as general; they are
kept: "free shipping on returns if the shop is at fault" told as "always free" is the incident itself
(tests/data/conditional/sets.yaml, vi-then-shop-fault-brand-only). The policies below are written for
these tests.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

CLAIMS_EN = ["CL-1. Claims must be lodged within 31 days of returning home from your trip."]
RETURNING_EN = ["LY-1. Returning customers get 10% off their next order; new customers get 5% off."]
GOLD_RETURNS_EN = ["RT-1. If you are a Gold member, returns are accepted within 60 days of delivery."]
IN_STORE_EN = ["RT-2. Returns are accepted within 14 days; if you bought the item in store, within 30 days."]


def test_returning_home_is_no_tier_of_customers(rules: ConditionalRules) -> None:
    assert (
        rules.check("how soon after my trip must i claim", "31 days after you get home.", CLAIMS_EN).findings
        == ()
    )


@pytest.mark.parametrize(
    ("answer", "chunks", "value", "severity"),
    [
        # "returning customers" is a group with its qualifier
        ("You get 10% off your next order.", RETURNING_EN, "10%", "critical"),
        # an "if" that names a group of customers
        ("Returns are accepted within 60 days.", GOLD_RETURNS_EN, "60 days", "warning"),
        # an "if" with another value for the cases without it
        ("Returns are accepted within 30 days.", IN_STORE_EN, "30 days", "critical"),
    ],
)
def test_a_case_is_still_found(
    rules: ConditionalRules, answer: str, chunks: list[str], value: str, severity: str
) -> None:
    report = rules.check("how does it work", answer, chunks)
    assert value in [finding.text for finding in report.findings]
    assert report.severity == severity


RECONNECTION_EN = [
    "SV-2. A standard reconnection costs $45 if requested before 3pm and is completed within 1 business "
    "day. Priority same-day reconnection costs $140."
]
RECONNECTION_ZH = ["SV-2. 欠费停电后如需复电，标准复电收费45美元；加急当天复电收费140美元。"]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("reconnection fee after paying the bill", "A standard reconnection is $45.", RECONNECTION_EN),
        ("缴清欠款后复电多少钱", "标准复电45美元。", RECONNECTION_ZH),
    ],
)
def test_the_customer_s_own_request_is_an_event_not_a_case(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    """ "if requested", "如需": every customer who asks; a value it governs is no case's (the
    utility's reconnection fee on 34 development businesses' train wordings)."""
    assert rules.check(question, answer, chunks).findings == ()


def test_a_tier_s_value_beside_a_request_is_still_found(rules: ConditionalRules) -> None:
    chunk = ["SV-2. On request, Gold members may check out as late as 14:00; standard check-out is 12:00."]
    assert [f.text for f in rules.check("check-out time?", "Check-out is at 14:00.", chunk).findings] == [
        "14:00"
    ]
