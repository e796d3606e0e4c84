"""scripts/measure_mutes.py, the measurement of reviewers' mutes, on traffic small enough to follow.

A misread finding (the queue's "5分钟" bound to the remote queue's "仅限") and a real binding (seed 000's
"30 ngày" of Plus members), met first as false alarms: the careful reviewer mutes only the misreading
and keeps every catch; the naive one mutes the real binding before any wrong answer confirmed it, and
the incidents after it pass unflagged.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from monitor.conditional import ConditionalRules

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from measure_mutes import measure  # noqa: E402 - the script is the one measurement

QUEUE = (
    "RS-3. 未预订的顾客可到店取号，也可在小程序远程取号；远程取号仅限距门店5公里以内的顾客，"
    "同一手机号每天最多取号2次。门店叫号后，顾客须于5分钟内到前台核验，超过5分钟未核验的号码自动作废，"
    "需要重新排队取号。"
)
PLUS = "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
GENERAL = "Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm."
MISREAD = ("叫号后多久不到就作废", "5分钟内没到前台就作废，需要重新取号。", [QUEUE], None)
MEMBER = ("Mình có thẻ hội viên cao cấp, áo trả trong mấy ngày?", "Bạn có 30 ngày.", [PLUS, GENERAL], None)
WRONG = "conditional_as_general"
INCIDENT = (
    "Áo mua về không vừa thì đổi trả trong bao lâu?",
    "Bạn có 30 ngày để đổi trả áo.",
    [PLUS, GENERAL],
    WRONG,
)


def _traffic(*kinds: tuple[str, str, list[str], str | None]) -> list[dict[str, Any]]:
    return [
        {
            "trace_id": f"t-{i}",
            "question": question,
            "answer": answer,
            "retrieved_chunks": [{"chunk_id": f"c{j}", "text": text} for j, text in enumerate(chunks)],
            "simulation": {"kind": kind},
        }
        for i, (question, answer, chunks, kind) in enumerate(kinds)
    ]


TRAFFIC = _traffic(MISREAD, MEMBER, INCIDENT, MISREAD, MISREAD, MISREAD, INCIDENT, INCIDENT, MEMBER)


def test_the_careful_reviewer_mutes_the_misreading_only(rules: ConditionalRules) -> None:
    counts = measure(rules, TRAFFIC, window=4, budget=50, careful=True)
    assert (counts["muted"], counts["labelled_only"], counts["confirmed"]) == (1, 1, 1)
    assert (counts["wrong"], counts["wrong_flagged"], counts["wrong_flagged_muted"]) == (2, 2, 2)
    assert (counts["correct"], counts["correct_flagged"], counts["correct_flagged_muted"]) == (3, 3, 1)
    assert len(rules.mutes) == 0  # the shared rules are left as they were


def test_the_naive_reviewer_mutes_the_incident_away(rules: ConditionalRules) -> None:
    counts = measure(rules, TRAFFIC, window=4, budget=50, careful=False)
    assert counts["muted"] == 2 and counts["mutes"] == 2
    assert (counts["wrong_flagged"], counts["wrong_flagged_muted"]) == (2, 0)
    assert counts["correct_flagged_muted"] == 0


@pytest.mark.parametrize("budget", [0, 1])
def test_the_budget_bounds_the_reviews(rules: ConditionalRules, budget: int) -> None:
    counts = measure(rules, TRAFFIC, window=4, budget=budget, careful=False)
    assert counts.get("reviewed", 0) == budget and counts["mutes"] == budget
