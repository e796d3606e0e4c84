"""Conditional check: a group noun followed by a modal verb is the clause's subject, not a named group.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md): "Khách hàng có thể mua
gói bổ sung THEM5 giá 15.000 đồng" (customers can buy the THEM5 add-on) read "có thể mua gói bổ sung"
as the customers' qualifier, so every answer giving the add-on's price was flagged. The modal verbs
are pack data (`modals` in rules/conditional/vi.yaml and fa.yaml, where a qualifier follows its noun).
The policies below are written for these tests; each false flag stands beside its hard positive.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

ADDON_VI = ["DL-4. Khách hàng có thể mua gói bổ sung NET10 giá 20.000 đồng, có 3 GB dùng trong ngày."]
CARD_VI = ["KM-2. Khách hàng có thẻ VIP được giảm 10% hóa đơn; khách hàng thông thường được giảm 5%."]
ADDON_FA = ["بسته-۲. مشتریان می‌توانند بسته اضافه ۵ گیگ را با ۳۰ هزار تومان بخرند."]
GOLD_FA = ["تخفیف-۱. مشتریان طلایی ۲۰ درصد تخفیف می‌گیرند و سایر مشتریان ۱۰ درصد."]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("goi net10 bao nhieu", "Gói NET10 giá 20.000 đồng, có 3 GB.", ADDON_VI),
        ("بسته اضافه چنده", "بسته ۵ گیگ ۳۰ هزار تومان است.", ADDON_FA),
    ],
)
def test_customers_who_can_buy_are_no_group(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        # "có thẻ VIP" (who hold a VIP card) is no "có thể" (can)
        ("giam bao nhieu", "Bạn được giảm 10% hóa đơn.", CARD_VI, "10%"),
        ("چقدر تخفیف", "۲۰ درصد تخفیف می‌گیرید.", GOLD_FA, "۲۰ درصد"),
    ],
)
def test_a_named_group_is_still_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [finding.text for finding in rules.check(question, answer, chunks).findings]
