"""Opening hours as values and days of the week as their conditions, for the conditional-value check.

A clinic "open 7:00-20:00, Monday to Friday; Saturday and Sunday 8:00-17:00" answered with "open
7:00-20:00 every day" states a weekday value as general, seed 000's fault with a clock instead of a
price. Times of day are no quantities to the numeric rules (``8:00`` is no amount of anything), so
this module reads them here: a *clock range* ("7:00-20:00", "từ 7 giờ đến 20 giờ", "9am to 6pm",
"上午9点至下午6点") is a value of unit ``clock_range`` whose number spells both ends, HHMMHHMM
(7002000 is 07:00-20:00), and a *day set* ("từ thứ Hai đến thứ Sáu", "weekends", "周一至周五") is a
condition that a question or answer carries when the days it names fall inside it.

Phrases of ``all_day`` ("24/7", "around the clock", "全天24小时") are the range 00:00-24:00.
The words are the packs' (``hour_words``, ``all_day``, ``am_words``, ``pm_words``, ``day_names``,
``day_sets``, ``day_ranges``, ``day_unions`` in ``rules/conditional/*.yaml``); the reading is the same
for every language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from monitor.conditional.packs import ConditionalPack
from monitor.numeric import Quantity

CLOCK = "clock_range"
ALL_DAY = Decimal("00002400")  # 00:00-24:00, what "24/7" and "around the clock" say
EVERY_DAY = frozenset(range(1, 8))
_GAP = 12  # characters at most between two day names joined into one set ("Thứ Bảy và Chủ nhật")


@dataclass(frozen=True, slots=True)
class DaySpan:
    """Days of the week named in a text (1 Monday .. 7 Sunday) and where."""

    start: int
    end: int
    days: frozenset[int]


class ClockReader:
    """Finds clock ranges and day sets in lower-cased text with the packs' words."""

    def __init__(self, packs: Sequence[ConditionalPack]) -> None:
        hours = _alternation(w for p in packs for w in p.hour_words)
        marks = _alternation(w for p in packs for w in [*p.am_words, *p.pm_words])
        joins = _alternation(w for p in packs for w in [*p.ranges, *p.day_ranges] if w not in _UNION_WORDS)
        pair = rf"{_time('a', hours, marks)}\s*(?:{joins})\s*{_time('b', hours, marks)}"
        # not after a number or its clock colon ("9:30-"), after a label's colon yes ("时段：10:00-11:00")
        self._range = re.compile(rf"(?<!\d)(?<!\d[:：]){pair}(?![\d:：])")
        self._all_day = _words_regex(" ".join(w.lower().split()) for p in packs for w in p.all_day)
        pm = _alternation(w for p in packs for w in p.pm_words)
        self._pm = re.compile(rf"^(?:{pm})$")
        names: list[tuple[str, frozenset[int]]] = []
        for pack in packs:
            for index, forms in enumerate(pack.day_names, 1):
                names += [(" ".join(f.lower().split()), frozenset({index})) for f in forms]
            for day_set in pack.day_sets:
                names += [(" ".join(f.lower().split()), frozenset(day_set.days)) for f in day_set.forms]
        self._days = dict(names)
        self._names = _words_regex(self._days)
        self._day_ranges = _alternation(w for p in packs for w in p.day_ranges)
        self._unions = _alternation(w for p in packs for w in p.day_unions)

    def ranges(self, low: str) -> list[tuple[int, int, Quantity]]:
        """Every clock range in ``low`` with its offsets, as a ``clock_range`` quantity."""
        out = []
        for match in self._range.finditer(low):
            start, end = self._minutes(match, "a"), self._minutes(match, "b")
            if start is None or end is None:
                continue
            marked = any(match.group(f"{n}{g}") for n in "ab" for g in ("m", "word", "pre", "post"))
            if not marked:  # "5-7" is a count, a date or a size: a clock needs ":00", "giờ", "pm"
                continue
            value = Decimal(f"{start // 60:02d}{start % 60:02d}{end // 60:02d}{end % 60:02d}")
            out.append((match.start(), match.end(), Quantity(value, CLOCK, match.group().strip())))
        for match in self._all_day.finditer(low):  # "24/7", "around the clock", "全天24小时": 00:00-24:00
            if not any(s < match.end() and match.start() < e for s, e, _ in out):
                out.append((match.start(), match.end(), Quantity(ALL_DAY, CLOCK, match.group())))
        return sorted(out, key=lambda item: item[0])

    def _minutes(self, match: re.Match[str], n: str) -> int | None:
        hour, minute = int(match.group(f"{n}h")), int(match.group(f"{n}m") or 0)
        marks = [m for m in (match.group(f"{n}pre"), match.group(f"{n}post")) if m]
        pm = any(self._pm.match(m) for m in marks)
        if pm and hour < 12:
            hour += 12
        elif marks and hour == 12 and not pm:
            hour = 0  # "12am"
        if hour > 24 or minute > 59:
            return None
        return hour * 60 + minute

    def days(self, low: str, start: int = 0, end: int | None = None) -> list[DaySpan]:
        """The day sets named in ``low[start:end]``: day names joined by a range word ("thứ Hai đến
        thứ Sáu", "Mon-Fri") or a union word ("Saturday and Sunday") form one set."""
        stop = len(low) if end is None else end
        spans: list[DaySpan] = []
        for match in self._names.finditer(low, start, stop):
            days = self._days[" ".join(match.group().split())]
            if spans and match.start() - spans[-1].end <= _GAP:
                gap = low[spans[-1].end : match.start()].strip(" ,")
                last = spans[-1]
                if self._day_ranges and re.fullmatch(self._day_ranges, gap) and len(last.days) == 1:
                    spans[-1] = DaySpan(last.start, match.end(), _span(min(last.days), min(days)))
                    continue
                if not gap or (self._unions and re.fullmatch(self._unions, gap)):
                    spans[-1] = DaySpan(last.start, match.end(), last.days | days)
                    continue
            spans.append(DaySpan(match.start(), match.end(), days))
        return spans

    def named(self, low: str, start: int = 0, end: int | None = None) -> frozenset[int] | None:
        """Every day ``low[start:end]`` names, None when it names none."""
        spans = self.days(low, start, end)
        return frozenset().union(*(s.days for s in spans)) if spans else None


def blank(text: str, spans: Iterable[tuple[int, int, Quantity]]) -> str:
    """``text`` with the clock ranges at ``spans`` (offsets of ``ranges``) turned to spaces, its
    length kept: what is left is read for other numbers and for what the sentence is about."""
    for start, end, _ in sorted(spans, key=lambda span: span[0], reverse=True):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


_UNION_WORDS = frozenset({"and", "và", "和", "or"})  # a clock range's "from 9 and 5" is no range


def _time(n: str, hours: str, marks: str) -> str:
    """One time of day: an optional am/pm word before ("下午6点"), the hour, ":MM" or "hMM", an hour word
    ("giờ", "点"), an am/pm word after ("9am", "5 giờ chiều"). Groups are named after ``n``."""
    return (
        rf"(?:(?P<{n}pre>{marks})\s*)?(?P<{n}h>\d{{1,2}})(?:\s*[:：h]\s*(?P<{n}m>\d{{2}}))?"
        rf"(?:\s*(?P<{n}word>{hours}))?(?:\s*(?P<{n}post>{marks}))?"
    )


def _span(first: int, last: int) -> frozenset[int]:
    """Monday..Friday, or around the week's end (Friday..Monday)."""
    if first <= last:
        return frozenset(range(first, last + 1))
    return frozenset([*range(first, 8), *range(1, last + 1)])


def _alternation(forms: Iterable[str]) -> str:
    """A regex alternation of the forms, longest first; one that never matches when there are none."""
    unique = sorted({" ".join(f.lower().split()) for f in forms}, key=len, reverse=True)
    if not unique:
        return "(?!)"
    return "|".join(r"\s+".join(re.escape(w) for w in form.split()) for form in unique)


def _words_regex(forms: Iterable[str]) -> re.Pattern[str]:
    """Day names as whole words where the script spaces them ("sun" is not "sunday"'s start)."""
    parts = []
    for form in sorted(set(forms), key=len, reverse=True):
        body = r"\s+".join(re.escape(w) for w in form.split())
        chinese = any("\u3400" <= char <= "\u9fff" for char in form)
        parts.append(body if chinese else rf"(?<!\w){body}(?!\w)")
    return re.compile("|".join(parts) or "(?!)")
