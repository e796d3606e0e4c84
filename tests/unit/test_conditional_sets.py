"""Conditional check on issue 11's phenomena: prices without a number, thresholds, 'X thì Y', classes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.conditional import ConditionalRules

CASES = yaml.safe_load((Path(__file__).parents[2] / "tests/data/conditional/sets.yaml").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES["cases"], ids=[case["id"] for case in CASES["cases"]])
def test_case(rules: ConditionalRules, case: dict[str, Any]) -> None:
    """Each phenomenon gets its expected verdict; its hard negatives raise nothing."""
    report = rules.check(case["question"], case["answer"], case["chunks"])
    assert (report.severity or "none") == case["expect"], case["why"]


def test_old_signature_and_free_unit(rules: ConditionalRules) -> None:
    """A finding on a value without a number has the unit 'free' and value 0."""
    report = rules.check("包邮吗？", "全场包邮。", ["订单满200元包邮，不满200元收取运费10元。"])
    (finding,) = report.findings
    assert (finding.unit, finding.value, finding.text) == ("free", 0, "包邮")
    assert "200元" in finding.condition
