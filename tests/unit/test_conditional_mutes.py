"""A reviewer's mute: the exact finding is reported apart and never flagged; any other stays a finding."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from monitor.conditional import ConditionalRules, Mute, MuteList

PLUS = "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
GENERAL = "Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm."
QUESTION = "Áo mua về không vừa thì đổi trả trong bao lâu?"


@pytest.fixture
def check(rules: ConditionalRules) -> Iterator[ConditionalRules]:
    """The packaged rules with an empty mute list, restored afterwards (the fixture is shared)."""
    yield rules
    rules.mutes.replace(())


def test_a_muted_finding_is_reported_apart(check: ConditionalRules) -> None:
    report = check.check(QUESTION, "Bạn có 30 ngày để đổi trả áo.", [PLUS, GENERAL])
    assert [f.text for f in report.findings] == ["30 ngày"]
    check.mutes.replace([Mute.of(report.findings[0])])
    muted = check.check(QUESTION, "Bạn có 30 ngày để đổi trả áo.", [PLUS, GENERAL])
    assert muted.findings == () and [f.text for f in muted.muted] == ["30 ngày"]
    assert muted.severity is None and list(muted.muted_units()) == ["day"]
    assert muted.muted_dicts()[0]["condition"] == report.findings[0].condition


def test_a_mute_is_exact(check: ConditionalRules) -> None:
    """Another value, unit or condition phrase is a finding again (a changed policy sentence too)."""
    report = check.check(QUESTION, "Bạn có 30 ngày để đổi trả áo.", [PLUS, GENERAL])
    finding = report.findings[0]
    check.mutes.replace(
        [
            Mute(finding.condition, Decimal(31), finding.unit),
            Mute(finding.condition, finding.value, "month"),
            Mute(finding.condition + " khác", finding.value, finding.unit),
        ]
    )
    assert check.check(QUESTION, "Bạn có 30 ngày để đổi trả áo.", [PLUS, GENERAL]).findings == report.findings


def test_stored_values_match_whatever_their_spelling() -> None:
    """A record's 30, a store's "30" and a parsed 30.0 are one value."""
    stored = Mute.from_dict({"condition": "thành  viên Plus", "value": "30", "unit": "day"})
    assert stored == Mute.from_dict({"condition": "thành viên Plus", "value": 30.0, "unit": "day"})
    assert len(MuteList([stored, stored])) == 1 and stored.as_dict()["value"] == "30"


@pytest.mark.parametrize(
    "entry",
    [{}, {"condition": "x", "unit": "day"}, {"condition": "x", "value": "abc", "unit": "day"},
     {"condition": 3, "value": 1, "unit": "day"}, {"condition": "x", "value": "NaN", "unit": "day"}],
)  # fmt: skip
def test_a_malformed_entry_is_refused(entry: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="not a conditional finding"):
        Mute.from_dict(entry)
