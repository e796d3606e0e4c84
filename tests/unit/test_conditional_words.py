"""Conditional check: words that never name a condition.

Found on the train wordings of 26 businesses (tests/data/simulate/FORMAT.md):
- a verb form ("این تخفیف فقط به کسانی تعلق می‌گیرد که دست‌کم ۲۰ روز ..."): the scope was named
  "گیرد" (the verb's stem after ZWNJ), which no answer says; verbs (`verbs` of the packs) now end a
  condition's name like stopwords, and "دست‌کم" (at least) is a lower bound like "حداقل";
- a general word before a group noun in Chinese ("所有会员购票一律享9.5折", "各类会员卡统一95折"): the
  word run hid "所有", so the group was named "所"; all of a group is the general case, as "all members"
  already was in English;
- "ویژه" (special) as a tier of its own ("مزایای ویژه اعضای طلایی": the special benefits of Gold
  members); a special group is named by its group noun ("اعضای ویژه").
The policies below are written for these tests; each false flag stands beside its hard positive.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

EARLY_FA = [
    "تخفیف-۲. تخفیف ثبت‌نام زودهنگام ۱۵٪ است. این تخفیف فقط به کسانی تعلق می‌گیرد که دست‌کم ۲۰ روز "
    "پیش از شروع دوره ثبت‌نام کنند."
]
MEMBERS_ZH = ["HY-1. 所有会员购物一律享9.5折；金卡会员9折，黑金卡会员8折。"]
MEMBERS_EN = ["MB-1. All members get 5% off; Gold members get 10% off."]
# "ویژه" (special) describes the benefits here; "اعضای ویژه" (special members) is a group with its qualifier
GOLD_FA = ["باشگاه-۳. مزایای ویژه اعضای طلایی: ارسال رایگان برای خریدهای بالای ۵۰۰ هزار تومان."]
SPECIAL_FA = ["باشگاه-۴. اعضای ویژه ۳۰ روز برای مرجوعی فرصت دارند؛ سایر مشتریان ۱۰ روز."]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        ("تخفیف زودهنگام چقدره", "مشروط به ثبت‌نام حداقل ۲۰ روز قبل از شروع دوره.", EARLY_FA),
        ("会员打几折", "注册会员购物打9.5折。", MEMBERS_ZH),
        ("member discount", "Members get 5% off.", MEMBERS_EN),
        ("ارسال رایگان طلایی", "اعضای طلایی از ۵۰۰ هزار تومان ارسال رایگان دارند.", GOLD_FA),
    ],
)
def test_no_condition_is_named_by_them(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        ("会员打几折", "会员购物打8折。", MEMBERS_ZH, "8折"),
        ("member discount", "Members get 10% off.", MEMBERS_EN, "10%"),
        ("مهلت مرجوعی", "۳۰ روز برای مرجوعی فرصت دارید.", SPECIAL_FA, "۳۰ روز"),
    ],
)
def test_the_named_tier_is_still_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    assert value in [finding.text for finding in rules.check(question, answer, chunks).findings]
