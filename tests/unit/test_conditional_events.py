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
