"""Conditional check: an answer's "A$19" is an Australian policy's "$19" (a bare "$" names no country).

The numeric packs keep Australian dollars apart from US dollars, so the check saw no support for an
answer's "A$30" in "Gold members pay $30" and let the conditional value told to everyone pass. Found
on the sealed airportpark (read once at this session's start code): on its train wordings, check alone
with e5, conditional values caught 114 -> 140 of 280 and correct answers flagged 117 -> 140 of 678 (the
values are visible now, so its false flags are too); the 30 development businesses unchanged.
"""

from __future__ import annotations

from monitor.conditional import ConditionalRules

PARKING = ["PR-1. Parking costs $45 per day. Gold members pay $30 per day."]


def test_a_named_dollar_finds_its_bare_dollar_sentence(rules: ConditionalRules) -> None:
    report = rules.check("how much is parking per day", "Parking is A$30 per day.", PARKING)
    assert [(f.text, f.severity, [g.text for g in f.general]) for f in report.findings] == [
        ("A$30", "critical", ["$45"])
    ]


def test_the_general_value_and_the_members_own_pass(rules: ConditionalRules) -> None:
    assert rules.check("how much is parking per day", "Parking is A$45 per day.", PARKING).findings == ()
    assert rules.check("I'm a Gold member, parking price?", "A$30 per day.", PARKING).findings == ()
    named = ["PR-1. A$45 a day; Gold A$30."]  # two named dollars differ: the numeric check's finding
    assert rules.check("parking price?", "It is US$30 per day.", named).findings == ()
