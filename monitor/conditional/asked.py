"""What the question and the answer say, and whether they carry a condition a value is bound to."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from monitor.conditional.statements import _Condition
from monitor.conditional.text import _COUNT, _Amount, _has, stems, tokens
from monitor.conditional.vocabulary import _Vocabulary


def _denies(denied: frozenset[str], key: str) -> bool:
    """Whether a condition key is among a question's denied words: the word itself, a phrase's first
    word ("bach kim"), inside a denied Chinese run, or opening a mixed form ("vip会员")."""
    return any(
        key == word or key.split()[0] == word or (not key.isascii() and (key in word or key.startswith(word)))
        for word in denied
    )


class _Asked:
    """What the question and the answer say, folded: their content words, text and quantities."""

    def __init__(
        self,
        text: str,
        amounts: Iterable[_Amount] = (),
        question_units: Iterable[str] = (),
        endings: Sequence[str] = ("s",),
        plurals: Sequence[str] | None = None,
    ) -> None:
        self.text = text
        self.endings = tuple(endings)
        self.plurals = self.endings if plurals is None else tuple(plurals)
        self.words = tokens(text, self.endings)
        self.amounts = frozenset(amounts)
        self.question_units = frozenset(question_units)
        self.universal = False  # the answer speaks of all goods ("mọi món hàng", "anything", "任何商品")
        self.answer = self  # what the answer alone says
        self.question = self  # what the question alone says
        self.denied: frozenset[str] = frozenset()  # what the question denies ("no-contract", "ko có bhyt")
        self.days: frozenset[int] | None = None  # the days asked or answered about (a clock range's)
        self.stated: frozenset[_Amount] = frozenset()  # every value the answer writes, thresholds too

    def on_days(self, days: frozenset[int] | None) -> _Asked:
        """The same, about ``days`` ("chủ nhật", "every day"; None: no day named)."""
        out = copy.copy(self)
        out.days = days
        return out

    def answer_only(self) -> _Asked:
        """The answer's words (the question's amounts kept): "所有保单等待期都是30天" asked by a
        "不是VIP" customer does not carry VIP."""
        out = _Asked(self.answer.text, self.amounts, self.question_units, self.endings, self.plurals)
        out.universal, out.answer, out.question = True, self.answer, self.question
        return out

    def for_everyone(self) -> _Asked:
        """No words carry a condition: an answer that gives a value to everyone ("ai cũng được 30 ngày,
        không riêng thành viên Plus", "不限会员") drops every condition, even one the asker meets."""
        out = _Asked("", self.amounts, self.question_units, self.endings, self.plurals)
        out.universal, out.answer, out.question = True, self.answer, self.question
        return out

    def holds(self, key: str) -> bool:
        """Whether a condition key (a word, a character pair or a tier phrase) is said; one the
        question denies ("I'm not a Premium subscriber", "非VIP") only when the answer says it."""
        said = (
            key in self.words
            or any(stem in self.words for stem in stems(key, self.plurals))
            # a phrase, a word of another script, or one joined by a hyphen ("off-peak", "24/7"),
            # which the word split cuts in two: looked for in the text as written
            or (" " in key or not key.isascii() or not key.isalnum())
            and _has(self.text, key, self.endings)
        )
        if said and self.denied and _denies(self.denied, key):
            return self.answer is not self and self.answer.holds(key)
        return said


_COUNTED_KEY = re.compile(r"([0-9]+) [^\W\d_]+")  # a number and its counting word, one key: "10 sessions"


def _counts(key: str, amounts: Iterable[_Amount]) -> bool:
    """Whether a key naming a count ("10 sessions" of "Pack of 10 sessions") is stated as a count of
    that number in any counting word ("10节套餐", "gói 10 buổi"): another writing cannot quote the word."""
    match = _COUNTED_KEY.fullmatch(key)
    return match is not None and any(
        unit.startswith(_COUNT) and value == int(match.group(1)) for value, unit in amounts
    )


_TERMED = frozenset({"threshold", "if", "scope"})  # conditions whose terms may be a threshold's value


class _Carried:
    """Whether the question or answer carries a condition (mixed into ``ConditionalRules``)."""

    vocabulary: _Vocabulary
    carried_share: float

    def _carried(self, condition: _Condition, asked: _Asked) -> bool:
        """Whether the question or answer carries ``condition``: enough of its content words, or, in
        another language, an equivalent of a phrase in it ("nội thành" for "inner city", "市区"); a
        day set, when the days asked or answered about fall inside it."""
        if condition.kind == "days":
            return asked.days is not None and asked.days <= condition.days
        if condition.kind == "class":
            return self._class_carried(condition, asked)
        found = sum(1 for key in condition.keys if asked.holds(key))
        # "lỗi của BanHang thì": a clause as condition is carried whole, not by the shop's name alone
        share = 1.0 if condition.kind == "then" else self.carried_share
        if found > 0 and found >= share * len(condition.keys):
            return True
        if condition.terms & asked.amounts:  # "Claims up to 5,000 yuan: ..." states the condition
            return True
        if any(asked.holds(key) for key in condition.aliases):
            return True
        if any(_counts(key, asked.amounts) for key in condition.keys):
            return True
        if condition.kind in _TERMED and {u for _, u in condition.terms} & asked.question_units:
            # "Bố tôi 70 tuổi" for "từ 60 tuổi", "我奶奶73岁" for "年满70周岁": the customer says where
            # they stand, of a threshold or of a marker whose own term is one, on its side of the bound
            if self._on_side(condition, asked.question.amounts):
                return True
        if self._equivalent(condition, asked, self.vocabulary.equivalents):
            return True
        # a label that lists cases ("冰箱、洗衣机、电视: 3年", "Flex and Student members") is carried by
        # any one of them, whole
        items = [i.strip(" ,，;") for i in self.vocabulary.folded_unions.split(condition.phrase)]
        if len(items) < 2:
            return False
        if any(len(item) > 1 and asked.holds(item) for item in items):
            return True
        # or by one named in another language ("fridge" for "冰箱、洗衣机、电视: 3年")
        goods = self.vocabulary.equivalents_and_goods
        return any(
            self._equivalent(replace(condition, phrase=item), asked, goods) for item in items if len(item) > 1
        )

    def _on_side(self, condition: _Condition, stated: Iterable[_Amount]) -> bool:
        """Whether a value the question states stands on the condition's side of its term: "I'm 75"
        for "70 and over", not "I'm 30"; a condition naming no bound keeps any value of its unit."""
        side = self.vocabulary.bound(condition.phrase)
        return any(
            side == 0 or (value - term) * side >= 0
            for value, unit in stated
            for term, term_unit in condition.terms
            if unit == term_unit
        )

    def _equivalent(self, condition: _Condition, asked: _Asked, groups: tuple[tuple[str, ...], ...]) -> bool:
        """Whether the condition names a form of a group of equivalents, in its words or its keys (a
        group's phrase stops short: "employees of a registered Ironwood corpor" keeps "corporate" as
        its key), and the question or answer another."""
        named = _named_groups(condition.phrase, condition.keys, groups, tuple(asked.endings))
        return any(any(asked.holds(form) for form in group) for group in named)

    def _class_carried(self, condition: _Condition, asked: _Asked) -> bool:
        """A class of goods beside another condition ("hàng thời trang" of "thành viên Plus") is dropped
        only when the answer speaks of all goods ("mọi món hàng", "anything") or the question or answer
        names goods of another class ("điện thoại", "tablet"); a Plus member asking about the Plus rule
        gets the Plus value."""
        universal = asked.universal
        if universal:  # "mọi món hàng": the answer itself must name the class
            asked = asked.answer
        found = sum(1 for key in condition.keys if asked.holds(key))
        if found and found >= self.carried_share * len(condition.keys):
            return True
        # a universal claim names the class only by its goods: a tier's name in the class's phrase
        # ("金卡会员购买的服装类") says nothing of which goods
        named = self.vocabulary.goods if universal else self.vocabulary.equivalents_and_goods
        if self._equivalent(condition, asked, named):
            return True
        endings = self.vocabulary.endings
        others = [g for g in self.vocabulary.goods if not any(_has(condition.phrase, f, endings) for f in g)]
        return not universal and not any(asked.holds(form) for group in others for form in group)


@functools.lru_cache(maxsize=8192)
def _named_groups(
    phrase: str, keys: frozenset[str], groups: tuple[tuple[str, ...], ...], endings: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    """The groups of equivalents a condition's phrase or keys name (cached: conditions come from the
    cached chunk analyses, and every trace asked the same phrase of every group again)."""
    return tuple(
        group for group in groups if any(_has(phrase, form, endings) or form in keys for form in group)
    )
