"""Scopes: the conditions that govern a value in its clause, and those a clause hands on or back."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import replace

from monitor.conditional.phrases import _PhraseReader
from monitor.conditional.statements import _Condition
from monitor.conditional.text import _ACCENTS, _LEADING, _TOKEN, _part
from monitor.numeric import Quantity
from monitor.numeric.model import json_number

_LABEL = re.compile(r"\s*[^\W\d_]{1,6}[-‐]?\d+[.:)]?\s*$")  # a section label clause: "DT-3.", "SP-2."
_SECTION = re.compile(r"^\s*[^\W\d_]{1,6}[-‐]?\d+[.:)]?\s+")  # a section label opening a part: "SB-2 "
_GLUED = re.compile(r"[^\W\d_]+$")  # a word right before a tier, no space between: "超级" of "超级vip"
# a clause opening with a heading ("【分期免息】", "[Refunds]", "## Refunds"): a new section begins
_HEADING = re.compile(r"\s*(?:【[^】\n]{1,20}】|\[[^\]\n]{1,30}\]|#{1,6}\s)")


def _days_of(
    low: str,
    start: int,
    end: int,
    value: tuple[int, int],
    clocks: Sequence[tuple[int, int]],
    conditions: Sequence[_Condition],
) -> tuple[_Condition, ...]:
    """The day set a clock range holds on: the nearest in its comma part, else in its clause, with no
    other clock range between them ("9am to 7pm Monday to Friday and 10am to 4pm on Saturdays",
    "mở cửa từ 7:00 đến 20:00, từ thứ Hai đến thứ Sáu", "周一至周五上午9点至下午6点"), and not the one
    another range's nearest is ("شنبه تا پنجشنبه از ۸ صبح تا ۱۰ شب و جمعه‌ها ... از ۱۰ صبح تا ۶ عصر":
    Fridays are the second range's, though nearer the first)."""
    days = [c for c in conditions if c.kind == "days"]
    if not days:
        return ()

    def gap(c: _Condition, at: tuple[int, int]) -> int:
        begin, stop = at
        return c.start - stop if c.start >= stop else begin - c.end if c.end <= begin else 0

    def clear(c: _Condition, at: tuple[int, int]) -> bool:
        low_end, high_start = (at[1], c.start) if c.start >= at[1] else (c.end, at[0])
        return not any(low_end <= other < high_start for other, _ in clocks)

    def nearest(at: tuple[int, int], among: Sequence[_Condition]) -> _Condition | None:
        part_start, part_end = _part(low, start, end, at[0])
        candidates = [c for c in among if part_start <= c.start < part_end and clear(c, at)]
        candidates = candidates or [c for c in among if clear(c, at)]
        return min(candidates, key=lambda c: gap(c, at)) if candidates else None

    claimed = {nearest(span, days) for span in clocks if span != value}
    found = nearest(value, [c for c in days if c not in claimed]) or nearest(value, days)
    return (found,) if found is not None else ()


class _ScopeReader(_PhraseReader):
    """Which conditions of a clause govern each value, and the scope a clause hands on or back."""

    def _contrasted(self, low: str, start: int, end: int, next_start: int, next_end: int) -> list[_Condition]:
        """The case a clause names when the next one speaks of the others through the same
        preposition ("... در تهران ظرف ۳ روز کاری ... . در سایر شهرها ...", "In Hanoi delivery takes 2
        days. In other cities, 5 days."): the word after that preposition here is a condition."""
        v = self.vocabulary
        out: list[_Condition] = []
        for general in v.general.finditer(low, next_start, next_end):
            before = list(_TOKEN.finditer(low, next_start, general.start()))
            if not before or before[-1].group() not in v.stopwords or before[-1].end() + 2 < general.start():
                continue
            preposition = before[-1].group()
            tokens = list(_TOKEN.finditer(low, start, end))
            for here, name in itertools.pairwise(tokens):
                word = name.group()
                if here.group() != preposition or low[here.end() : name.start()].strip():
                    continue
                if not v.content(word) or word in v.general_words:
                    continue
                phrase = low[here.start() : name.end()].translate(_ACCENTS)
                out.append(
                    _Condition("if", here.start(), name.end(), frozenset(self._keys([word])), phrase=phrase)
                )
                return out
        return out

    def _back(
        self, low: str, start: int, end: int, conditions: Sequence[_Condition]
    ) -> tuple[_Condition, ...]:
        """The scope a clause without a value sets on the clause before it, when it points back at it
        ("Ưu đãi trên chỉ áp dụng cho hội viên Vàng.", "This offer is exclusive to new customers.",
        "以上优惠仅限VIP会员", "این تخفیف فقط برای اعضای ویژه است"), or opens with a word pointing back
        ("以上专属服务仅适用于钻石会员")."""
        v = self.vocabulary
        opening = start + len(low[start:end]) - len(low[start:end].lstrip(_LEADING))
        if (
            v.back_markers.search(low, start, end) is None
            and v.leading_back_markers.match(low, opening) is None
        ):
            return ()
        return tuple(c for c in conditions if c.kind == "scope")

    def _carry(
        self, low: str, start: int, end: int, conditions: Sequence[_Condition], values: Sequence[int]
    ) -> tuple[_Condition, ...]:
        """The conditions a clause hands on to the next ones: a scope it sets without stating a value
        of its own ("The following applies only to Gold cardholders.", "Premium subscribers:")."""
        label = low[start:end].rstrip().endswith((":", "："))
        scopes = [
            c
            for c in conditions
            if c.kind == "scope" or (c.kind == "group" and not c.soft and self._names_who(low, start, end, c))
        ]
        if not scopes:
            return ()
        if not values or label:
            return tuple(scopes)
        # "Quyền lợi sau chỉ áp dụng cho học viên gói 12 tháng.": a value naming the scope, and a word
        # pointing at what follows ("sau", "following", "以下")
        if self.vocabulary.carry_markers.search(low, start, end) is None:
            return ()
        return tuple(c for c in scopes if c.kind == "scope")

    def _names_who(self, low: str, start: int, end: int, group: _Condition) -> bool:
        """Whether a group names who the clauses after it speak of: a group noun with its qualifier, or a
        tier word opening its part ("SVIP专享以下权益"); a tier word after other words qualifies them
        ("با پیک ویژه و کیف خنک", with a special courier: the courier's class, nobody's tier)."""
        tier = self.vocabulary.tiers.match(low, group.start, group.end)
        if tier is None or tier.end() != group.end:
            return True
        part_start, _ = _part(low, start, end, group.start)
        before = _SECTION.sub("", low[part_start : group.start])  # "SB-2 超级": after a section's label
        before = _GLUED.sub("", before)  # "超级VIP": a word glued to the tier is its name
        while (earlier := self._tier_before(before)) is not None:  # "Super Gold": tiers name it together
            before = before[:earlier]
        return not before.strip(_LEADING)

    def _tier_before(self, text: str) -> int | None:
        """Where a tier word ending ``text`` starts, None when none ends it."""
        stripped = text.rstrip()
        for match in self.vocabulary.tiers.finditer(stripped):
            if match.end() == len(stripped):
                return match.start()
        return None

    def _bound(
        self,
        low: str,
        start: int,
        end: int,
        position: int,
        conditions: Sequence[_Condition],
        values: Sequence[int] = (),
    ) -> tuple[_Condition, ...]:
        """The conditions of a clause that govern the value at ``position`` (see the module docstring);
        ``values``: where the clause's values start."""
        part_start, part_end = _part(low, start, end, position)
        general_part = self.vocabulary.general.search(low, part_start, part_end) is not None
        inside = [c for c in conditions if part_start <= c.start < part_end]
        # A marker's own terms are no conditional value: "如果单次理赔不超过5,000元，...", "only for
        # children under 6"; after a colon they are again ("仅限申根国家的保单适用：保额50万元").
        terms = [c for c in inside if c.kind in ("if", "scope") and self._term(low, c, position)]
        bound = [
            c
            for c in conditions
            if c.kind == "scope" and c not in terms and (c.start > position or c in inside)
        ]
        bound += [
            c for c in conditions if c.kind == "if" and c not in terms and (c.start < position or c in inside)
        ]
        bound += [
            c
            for c in conditions
            if c.kind == "except" and c.start < position < _part(low, start, end, c.start)[1]
        ]
        # "45 USD đối với vé Eco Saver và 20 USD đối với vé Eco Flex": each value's own case
        bound += [c for c in conditions if c.kind == "post" and c.of == position]
        # "chỉ áp dụng khi chậm trên 4 giờ ...: 400.000 đồng ..., 60 USD ...": a scope governs what its
        # colon lists, every part of it
        bound += [
            c
            for c in conditions
            if c.kind == "scope"
            and c not in bound
            and c not in terms
            and c.end <= position
            and (
                any(mark in low[c.end : position] for mark in ":：")
                or not low[start : c.start].strip(_LEADING)  # "Chỉ trên chặng nội địa, ...": the sentence
            )
        ]
        # "Khách đổi ý thì ... 30.000 đồng": what stands before "thì" governs the rest of the clause
        bound += [c for c in conditions if c.kind == "then" and c.end <= position]
        # "Đơn từ 300.000 đồng trở lên được miễn phí": a threshold governs the other values of its part
        bound += [
            c for c in conditions if c.kind == "threshold" and c in inside and not c.start <= position < c.end
        ]
        # "Over $50, shipping is free", "满3000元的，可选12期免息": a threshold alone in its part (no value
        # but its own term) governs the part right after it; one in a part with a value of its own
        # ("ارسال رایگان ... برای سفارش‌های بالای ۲۰۰ هزار تومان، و مهلت مرجوعی ۳۰ روز") is that value's
        bound += [
            c
            for c in conditions
            if c.kind == "threshold" and self._leads(low, start, end, c, part_start, values)
        ]
        groups = [c for c in inside if c.kind == "group"]
        before = [c for c in conditions if c.kind == "group" and c.start < position]
        if groups or not general_part:  # "các gói khác được 3 GB": the part itself is the general case
            bound += groups or before[-1:]  # a later part with its own group starts a new case
            bound += [c for c in inside if c.kind == "class"]  # "hàng thời trang" of "thành viên Plus"
        return tuple(bound)

    @staticmethod
    def _leads(
        low: str, start: int, end: int, threshold: _Condition, part_start: int, values: Sequence[int] = ()
    ) -> bool:
        """Whether a threshold stands alone in the comma part just before the one at ``part_start``: no
        digit and no value ("free") in that part but its own term."""
        if threshold.start >= part_start:
            return False
        begin, stop = _part(low, start, end, threshold.start)
        rest = low[begin : threshold.start] + low[threshold.end : stop]
        own = any(begin <= v < stop and not threshold.start <= v < threshold.end for v in values)
        return len(low[stop:part_start].strip()) <= 1 and not any(ch.isdigit() for ch in rest) and not own

    def _with_terms(
        self, low: str, condition: _Condition, values: Sequence[tuple[int, int, Quantity]]
    ) -> _Condition:
        if condition.kind in ("then", "threshold"):  # "từ 300.000 đồng", "Đơn 300.000 đồng thì ..."
            terms = frozenset((q.value, q.unit) for s, _, q in values if condition.start <= s < condition.end)
            if not terms:
                return condition
            if condition.kind == "threshold" and not condition.keys:  # "3+ years" for "three years or more"
                keys = frozenset(str(json_number(value)) for value, _ in terms)
                return replace(condition, terms=terms, keys=keys)
            return replace(condition, terms=terms)
        if condition.kind not in ("if", "scope"):
            return condition
        # its own term: a value that ends its words ("if the bill is unpaid 10 days"), or the number
        # that names it ("年满70周岁", "aged 65 and over": the age is the condition's key)
        terms = frozenset(
            (q.value, q.unit)
            for s, _, q in values
            if self._term(low, condition, s)
            or (condition.start <= s < condition.end and str(json_number(q.value)) in condition.keys)
        )
        return replace(condition, terms=terms) if terms else condition

    def _term(self, low: str, condition: _Condition, position: int) -> bool:
        """Whether the value at ``position`` ends the condition's own words ("if the bill is unpaid 10
        days"), so it names the condition rather than a value under it."""
        if not condition.start < position or condition.end > position:
            return False
        between = low[condition.end : position]
        if (
            ":" in between
            or "：" in between
            or any(self.vocabulary.content(w) for w in _TOKEN.findall(between))
        ):
            return False
        # a threshold names the condition ("dưới 6 tuổi", "不超过5,000元"); "داخل تهران ۱ روزه" does not
        own = low[condition.start : condition.end] + " "  # "only for claims up to $500": a limit names it too
        return any(m.search(own) is not None for m in (self.vocabulary.thresholds, self.vocabulary.limits))
