"""Conditional check: a time of day written alone ("check-in from 11:00") is a value a case may set
apart, like a clock range or a price.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md): hotels and couriers
state check-in, check-out and cut-off times per branch or tier ("Jade members are guaranteed check-in
from 11:00", "At Lanting Wan Chai, rooms are released from 15:00"), and answers giving a tier's time to
everyone passed, since a time of day is no quantity to the numeric rules. The policies below are
written for these tests; each hard positive stands beside the answers that must pass.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

CHECK_IN_EN = [
    "CI-1. Check-in opens at 14:00 at all our hotels. At Lanting Kowloon, check-in opens at 15:00. "
    "Gold members are guaranteed check-in from 12:00."
]


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("Rooms are ready from 12:00.", "12:00"),
        ("Check-in opens at 15:00.", "15:00"),
    ],
)
def test_a_case_s_time_told_to_everyone_is_found(rules: ConditionalRules, answer: str, value: str) -> None:
    assert value in [f.text for f in rules.check("check-in time?", answer, CHECK_IN_EN).findings]


@pytest.mark.parametrize(
    "answer",
    [
        "Check-in opens at 14:00.",
        "Gold members can check in from 12:00.",
        "Check-in is at 14:00, at Lanting Kowloon from 15:00.",
    ],
)
def test_the_general_time_or_the_case_said_passes(rules: ConditionalRules, answer: str) -> None:
    assert rules.check("check-in time?", answer, CHECK_IN_EN).findings == ()


def test_a_time_inside_a_clock_range_is_the_range(rules: ConditionalRules) -> None:
    assert [q.unit for q in rules._quantities("Open 9:00-18:00, check-in from 14:00.")] == [
        "clock_range",
        "clock_time",
    ]
