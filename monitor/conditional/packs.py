"""Conditional-value rule packs: the words that bind a value to a condition, per language, as data.

One file per language in ``rules/conditional`` (``vi.yaml``, ``en.yaml``, ...), read through the one
rule-pack loader (``monitor.rulepacks``), so ``--rules-dir`` changes them like every other pack. The
annotated format is in ``rules/conditional/en.yaml``; adding a language is a new file, no code.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from monitor.exceptions import ConfigError
from monitor.rulepacks import RulePacks

PACK_DIR = "conditional"
Form = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class DaySet(BaseModel):
    """Words naming several days of the week at once ("weekends": 6, 7; "every day": 1-7)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    forms: list[Form]
    days: list[Annotated[int, Field(ge=1, le=7)]]


class ConditionalPack(BaseModel):
    """One language's condition vocabulary, as written (see ``rules/conditional/en.yaml``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    language: Form
    word_boundaries: bool = True
    endings: list[Form] = []
    # the endings a policy's or pack's word may shed to meet a question's word (plurals: "members",
    # "دانشجویان"); None: all ``endings``. The others only come off a question's or answer's word
    # ("تهرانم" says "تهران"), so "سالمند" (elderly) is not "سالم" (healthy) with an ending.
    plurals: list[Form] | None = None
    qualifier_side: Literal["before", "after"] = "after"
    groups: list[Form] = []
    tiers: list[Form] = []
    label_tiers: list[Form] = []
    unions: list[Form] = []
    if_markers: list[Form] = []
    leading_markers: list[Form] = []
    # a universal quantifier over what follows ("凡…均…", every one who): a general rule, a condition
    # only where what it names holds a tier or a threshold ("凡年卡会员，均…")
    every_markers: list[Form] = []
    case_markers: list[Form] = []
    post_markers: list[Form] = []
    except_markers: list[Form] = []
    # words that widen what follows ("including Sundays", "kể cả ngày lễ", "包括周末"): a day set right
    # after one adds to the days, it sets none apart (a group after one still names who a case holds)
    including: list[Form] = []
    scope_markers: list[Form] = []
    # except words after what they except ("黑金卡会员除外"): the words before them name the exception
    closing_excepts: list[Form] = []
    links: list[Form] = []
    general: list[Form] = []
    stopwords: list[Form] = []
    verbs: list[Form] = []
    # modal verbs: right after a group noun whose qualifier follows it, one makes the noun the
    # clause's subject, not a named group ("Khách hàng có thể mua gói THEM5": customers can buy it)
    modals: list[Form] = []
    carry_markers: list[Form] = []
    back_markers: list[Form] = []
    # back markers only where they open a clause ("以上专属服务仅适用于…"); elsewhere the word means
    # something else ("金卡及以上会员": gold and above)
    leading_back_markers: list[Form] = []
    negations: list[Form] = []
    denials: list[Form] = []
    thresholds: list[Form] = []
    thresholds_after: list[Form] = []
    # which side of its term a threshold keeps ("over", "từ", "满", "بالای"; "under", "dưới", "以下",
    # "زیر"): a question stating a value on the other side ("I'm 30" for "70 and over") is not the case
    # words that make a bare number an age in years: before it ("年满七十", "aged 65") or after it
    # ("sáu mươi tuổi")
    ages_before: list[Form] = []
    ages_after: list[Form] = []
    lower_bounds: list[Form] = []
    upper_bounds: list[Form] = []
    # words before a value that make it an upper limit ("up to", "tối đa", "最多", "حداکثر"): a cap is
    # the value stated, never a condition on the other values of its part; inside a marker's own words
    # ("only for claims up to $500") it names the condition like a threshold
    limits: list[Form] = []
    then_markers: list[Form] = []
    classes: list[Form] = []
    anaphors: list[Form] = []
    ranges: list[Form] = []
    free: list[Form] = []
    universal: list[Form] = []
    everyone: list[Form] = []
    answer_markers: list[Form] = []
    equivalents: list[list[Form]] = []
    goods: list[list[Form]] = []
    topics: list[list[Form]] = []
    comparable: list[list[Form]] = []
    # a unit that holds only under a qualifier -> the plain unit an answer dropping it writes
    # ("8 giờ làm việc" -> "8 giờ", "7 business days" -> "7 days")
    qualified_units: dict[Form, Form] = {}
    ordinals: list[Form] = []
    events: list[Form] = []
    hour_words: list[Form] = []
    clock_before: list[Form] = []  # words before an hour that make it a time of day ("ساعت ۱۶", "lúc 16")
    all_day: list[Form] = []
    am_words: list[Form] = []
    pm_words: list[Form] = []
    half_hours: list[Form] = []  # words after an hour that add half of one ("9点半", "9 giờ rưỡi")
    day_names: list[list[Form]] = []
    day_sets: list[DaySet] = []
    day_ranges: list[Form] = []
    day_unions: list[Form] = []

    @field_validator("day_names")
    @classmethod
    def _seven_days(cls, value: list[list[Form]]) -> list[list[Form]]:
        if value and len(value) != 7:
            raise ValueError(f"day_names lists the seven days, Monday first; found {len(value)}")
        return value


def load_packs(packs: RulePacks) -> list[ConditionalPack]:
    """Every ``*.yaml`` pack under ``conditional/`` of the rule packs; ConfigError when none or one is bad."""
    directory = packs.path(PACK_DIR)
    if not directory.is_dir():
        raise ConfigError(f"{packs.label(PACK_DIR)}: missing conditional rule packs")
    names = sorted(entry.name for entry in directory.iterdir() if entry.name.endswith((".yaml", ".yml")))
    if not names:
        raise ConfigError(f"{packs.label(PACK_DIR)}: no conditional rule packs (*.yaml)")
    return [packs.load(f"{PACK_DIR}/{name}", ConditionalPack) for name in names]
