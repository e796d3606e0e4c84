"""Times of day an answer states that no retrieved chunk states ("check out until 15:30" over "Jade
members until 16:00").

The numeric rules check every number+unit, but a time of day is no amount of anything, so a wrong
opening hour or check-out time passed every detector. This reads the answer's times the way the
conditional check reads them (clock ranges with ":00", an hour word or am/pm, and 24-hour times
written alone) and looks for each in the chunks liberally: as a clock value the chunk states, or as its
hour next to a time-of-day word, ":" or another hour of a range in any of the packs' writings ("ساعت ۹
تا ۲۰", "9 giờ sáng", "下午6点"), on a 12- or 24-hour clock. A time is reported only when no chunk writes
it in any of these ways: the check is built to stay quiet on a correct answer that writes a policy's
time in another form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal

from monitor.conditional.hours import ALL_DAY, CLOCK, _alternation, _time
from monitor.conditional.packs import ConditionalPack
from monitor.conditional.text import lower
from monitor.golden.abstain import AbstentionDetector
from monitor.numeric import Quantity

TIME_OF_DAY = "clock_time"  # the unit of a time of day: HHMM (1530 is 15:30)
_DAY = 24 * 60
# not a number's tail ("9:30", "1.5", "3/10"); a label's colon may stand before it ("时段：10:00")
_NOT_AFTER_A_NUMBER = r"(?<!\d)(?<!\d[.,:：/])"
# a time of day on a 24-hour clock with its minutes ("15:00", "15：00"); not inside "9:30:15" or "1.15:30"
CLOCK_TIME = re.compile(r"(?<![\d:：.,/])([01]?\d|2[0-4])[:：]([0-5]\d)(?![\d:：])")
_NEAR = 8  # characters either side of an hour where a time-of-day word makes it a time


def minutes_of(quantity: Quantity) -> list[int]:
    """The times of day a ``clock_range`` (both ends) or ``clock_time`` quantity states, in minutes
    after midnight (24:00 is midnight)."""
    digits = f"{int(quantity.value):0{8 if quantity.unit == CLOCK else 4}d}"
    pairs = [digits[i : i + 4] for i in range(0, len(digits), 4)]
    return [(int(p[:2]) * 60 + int(p[2:])) % _DAY for p in pairs]


class TimeWriting:
    """How the packs write a time of day: the answer's times read strictly, a chunk's liberally."""

    def __init__(self, packs: Sequence[ConditionalPack], amount: Callable[[str], bool]) -> None:
        """``amount``: whether a text states an amount of something ("۵ تا ۱۰ روز"), no hours of a day."""
        self.counts = amount
        hours = [w for p in packs for w in p.hour_words]
        marks = [w for p in packs for w in [*p.am_words, *p.pm_words]]
        self._words = re.compile(_alternation([*hours, *marks, *(w for p in packs for w in p.clock_before)]))
        self._hours = _alternation(hours)
        self._joiners = _alternation(w for p in packs for w in p.ranges)
        # a time written alone with an am/pm word or an hour word: "until 9 pm", "下午6点", "8 giờ sáng"
        one = _time("a", self._hours, _alternation(marks))
        self._single = re.compile(rf"(?<![0-9A-Za-z:：.,/]){one}(?![\d:：])")
        self._pm = re.compile(rf"^(?:{_alternation(w for p in packs for w in p.pm_words)})$")
        self._half = _alternation(w for p in packs for w in p.half_hours)

    def singles(self, low: str) -> list[tuple[int, int, int]]:
        """Times of day written alone in lower-cased ``low`` with an am/pm or hour word, as (start, end,
        minutes); what a clock range holds is left to the range."""
        out = []
        for match in self._single.finditer(low):
            marks = [m for m in (match.group("apre"), match.group("apost")) if m]
            if not marks and not match.group("aword"):
                continue
            hour, minute = int(match.group("ah")), int(match.group("am") or 0)
            pm = any(self._pm.match(m) for m in marks)
            if pm and 12 < hour:
                continue  # "۲۱ شب" is 21 nights: no clock says "9 pm" as 21
            if pm and hour < 12:
                hour += 12
            elif marks and hour == 12 and not pm:
                hour = 0
            if hour <= 24 and minute <= 59:
                out.append((match.start(), match.end(), (hour * 60 + minute) % _DAY))
        return out

    def writes(self, chunk: str, minutes: int) -> bool:
        """Whether lower-cased ``chunk`` writes the time ``minutes`` (on either clock)."""
        hour, minute = divmod(minutes, 60)
        for h in {hour, hour + 12 if hour < 12 else hour - 12, 24 if hour == 0 else hour}:
            for match in re.finditer(rf"{_NOT_AFTER_A_NUMBER}0?{h}(?!\d|,\d)", chunk):
                if self._written_at(chunk, match.start(), match.end(), minute):
                    return True
        return False

    def _written_at(self, chunk: str, start: int, end: int, minute: int) -> bool:
        """Whether the hour at ``chunk[start:end]`` is a time of day with ``minute`` past it."""
        after = chunk[end : end + _NEAR]
        if minute:
            mm = f"{minute:02d}"
            if re.match(rf"\s*(?:[:：h.]|{self._hours})\s*{mm}(?!\d)", after):
                return True  # "15:30", "9.30am", "9 giờ 30"
            return minute == 30 and re.match(rf"\s*(?:{self._hours})?\s*(?:{self._half})", after) is not None
        other = re.match(r"\s*[:：.h]\s*(\d{2})(?!\d)", after)
        if other is not None:
            return other.group(1) == "00"  # "9.30am" is not 9 o'clock
        if self._marked(chunk, start, end):
            return True
        # the end of a range whose start is a time ("ساعت ۹ تا ۱۳", "from 9am to 5")
        at = max(0, start - 2 * _NEAR)
        before = re.search(
            rf"(?<![\d.,])(\d{{1,2}})(\s*[:：]\s*\d{{2}})?\s*(?:{self._joiners})\s*$", chunk[at:start]
        )
        if before is not None and (
            before.group(2) is not None or self._marked(chunk, at + before.start(1), at + before.end(1))
        ):
            return True
        return self._bare_range(chunk, start, end)

    def _bare_range(self, chunk: str, start: int, end: int) -> bool:
        """Whether the hour at ``chunk[start:end]`` is an end of a range of two bare hours ("۱۷ تا ۲۱")
        in a chunk that speaks of times of day (a time word or a clock anywhere in it) and that counts
        no amount after the range ("۵ تا ۱۰ روز" is days)."""
        if self._words.search(chunk) is None and not CLOCK_TIME.search(chunk):
            return False
        hour = r"(?:[01]?\d|2[0-4])"
        for match in re.finditer(
            rf"{_NOT_AFTER_A_NUMBER}{hour}\s*(?:{self._joiners})\s*{hour}(?!\d|[.,:：]\d)",
            chunk[max(0, start - 2 * _NEAR) : end + 2 * _NEAR],
        ):
            at = max(0, start - 2 * _NEAR) + match.start()
            if at <= start and end <= at + len(match.group()):
                return not self.counts(chunk[at : at + len(match.group()) + _NEAR])
        return False

    def joins(self, chunk: str, first: int, last: int) -> bool:
        """Whether lower-cased ``chunk`` writes the range ``first``-``last`` as two hours joined by a
        range word, with or without their minutes (on either clock)."""

        def forms(minutes: int) -> str:
            hour, minute = divmod(minutes, 60)
            hours = sorted({hour, hour + 12 if hour < 12 else hour - 12, 24 if hour == 0 else hour})
            tail = rf"(?:\s*[:：h.]\s*{minute:02d})" + ("" if minute else "?")
            return rf"(?:{'|'.join(f'0?{h}' for h in hours)}){tail}"

        pattern = (
            rf"{_NOT_AFTER_A_NUMBER}{forms(first)}\s*(?:{self._joiners})\s*{forms(last)}(?!\d|[.,:：]\d)"
        )
        return re.search(pattern, chunk) is not None

    def _marked(self, chunk: str, start: int, end: int) -> bool:
        """Whether a time-of-day word stands next to the number at ``chunk[start:end]``."""
        return self._words.search(chunk[max(0, start - _NEAR) : end + _NEAR]) is not None


class _TimesOfDay:
    """The times-of-day check for ``ConditionalRules`` (a mixin: it reads with the check's own reader)."""

    _writing: TimeWriting
    _times_stated: Callable[[str], frozenset[int]]  # the clock values a chunk states, cached per chunk
    _found: Callable[[str], list[tuple[int, int, Quantity]]]
    abstention: AbstentionDetector | None

    def unstated_times(self, answer: str, contexts: Sequence[str]) -> tuple[Quantity, ...]:
        """The answer's times of day that no chunk writes, as written (a clock range is checked at both
        ends; "24/7" is no time of day); none for an answer that abstains."""
        said = self._said_times(answer) if contexts else []
        if not said or (self.abstention is not None and self.abstention.abstains(answer)):
            return ()
        stated = frozenset().union(*(self._times_stated(c) for c in contexts))
        lowered = [lower(c) for c in contexts]

        def written(minutes: int) -> bool:
            return minutes in stated or any(self._writing.writes(chunk, minutes) for chunk in lowered)

        out: list[Quantity] = []
        for quantity in said:
            times = minutes_of(quantity)
            if quantity in out or all(minutes in stated for minutes in times):
                continue
            if len(times) == 2 and any(self._writing.joins(chunk, *times) for chunk in lowered):
                continue  # "پنجشنبه ۹ تا ۱۳" for "Thursday 9:00-13:00": a range of two bare hours
            if not all(written(minutes) for minutes in times):
                out.append(quantity)
        return tuple(out)

    def _said_times(self, answer: str) -> list[Quantity]:
        """The answer's clock ranges and times written alone, less hours counted ("۴ تا ۲۴ ساعت", "4
        to 24 hours": the numeric rules read an amount of time in them, not in "7h-20h")."""
        found = self._found(answer)
        said = [q for _, _, q in found if _timed(q)]
        low = lower(answer)
        for start, end, minutes in self._writing.singles(low):
            if not any(s < end and start < e for s, e, q in found if _timed(q)):
                hour, minute = divmod(minutes, 60)
                said.append(Quantity(Decimal(hour * 100 + minute), TIME_OF_DAY, low[start:end].strip()))
        return [q for q in said if not self._writing.counts(q.text)]


def _timed(quantity: Quantity) -> bool:
    """A clock range or a time written alone; not "24/7", which names no hour."""
    return quantity.unit == TIME_OF_DAY or (quantity.unit == CLOCK and quantity.value != ALL_DAY)
