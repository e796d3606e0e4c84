"""Conditional check: a bracket right after a value that only names its case ("普通号10元（限年满65周岁
的长者）", "$10 (visitors aged 65 and over)") binds the value, not just the age inside it.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md): a bracket holding a
value was read as a sentence of its own (rightly for "$500 ($2,000 for Priority Banking customers)"),
so when its only value was the case's own term (an age, a threshold) the price before it stood
unconditioned and answers giving the seniors' price to everyone passed. The policies below are
written for these tests; each hard positive stands beside the answers that must pass.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

FEES_ZH = ["GH-1. 挂号费：普通号每次25元；专家号每次90元。普通号12元（限年满65周岁的长者，需出示身份证）。"]
TICKETS_EN = ["TK-2. Admission: adults $18; $10 (visitors aged 65 and over); children under 5 free."]
BANK_EN = ["FX-1. The daily transfer limit is $500 ($2,000 for Priority Banking customers)."]


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        ("挂号多少钱", "普通号挂号费12元。", FEES_ZH, "12元"),
        ("admission price", "Admission is $10.", TICKETS_EN, "$10"),
        ("transfer limit", "You can transfer up to $2,000 a day.", BANK_EN, "$2,000"),
    ],
)
def test_the_bracketed_case_binds_the_value_before_it(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [finding.text for finding in rules.check(question, answer, chunks).findings]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("挂号多少钱", "65岁以上长者普通号12元。", FEES_ZH),
        ("admission price for seniors", "Visitors 65 and over pay $10.", TICKETS_EN),
        ("transfer limit", "The daily limit is $500.", BANK_EN),
    ],
)
def test_the_case_said_or_the_general_value_passes(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()
