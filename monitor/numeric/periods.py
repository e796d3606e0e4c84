"""Rate periods: the "per month" or "每年" written beside a quantity, from the packs' ``periods``.

"$25 per month" and "$25 per year" are the same amount in the same unit but not the same price, and
an answer that turns the source's "每年1,200元" into "每季度1,200元" is wrong though every number
stands in the sources. A period is read only right beside its quantity (after it: "25 đô một
tháng", "1,200元/年"; before it: "mỗi tháng 25 đô", "每年1,200元"), so one sentence's period never
leaks onto another quantity.
"""

from __future__ import annotations

from collections.abc import Iterable

from monitor.exceptions import ConfigError
from monitor.numeric.packs import Pack, key

_GAP = " \t\n:：,，"  # "1,200元 / năm", "mỗi tháng: 25 đô"


class Periods:
    """Every pack's period forms merged; ``of`` reads the period written beside one quantity.

    Reading costs a dict lookup per quantity when nothing beside it can be a period (no regex
    search): it runs for every number of every answer.
    """

    def __init__(self, packs: Iterable[Pack]) -> None:
        self._after: dict[str, tuple[str, bool]] = {}  # written form -> (period, bounded by letters)
        self._before: dict[str, tuple[str, bool]] = {}
        for pack in packs:
            bounded = pack.model.word_boundaries
            for period, forms in pack.model.periods.items():
                for form in map(key, forms.after):
                    _claim(self._after, form, (period, bounded), pack, f"periods.{period}.after")
                for form in map(key, forms.before):
                    _claim(self._before, form, (period, bounded), pack, f"periods.{period}.before")
        self.known = bool(self._after or self._before)
        self._after = _variants(self._after)
        self._before = _variants(self._before)
        # forms by their first (after) or last (before) character, longest first: "per month" before
        # "month", and a quantity costs a dict lookup when nothing beside it can be a period
        self._after_by_char = _index(self._after, 0)
        self._before_by_char = _index(self._before, -1)

    def of(self, text: str, start: int, end: int) -> str | None:
        """The period written beside the quantity ``text[start:end]`` (normalized text), or None."""
        after = end
        while after < len(text) and text[after] in _GAP:
            after += 1
        # case-blind: "$2 per GB" is the form "per gb", like "Per Month" is "per month"
        for form in self._after_by_char.get(text[after].lower(), ()) if after < len(text) else ():
            if text[after : after + len(form)].lower() == form:
                period, bounded = self._after[form]
                stop = after + len(form)
                if not (bounded and form[-1].isalpha() and stop < len(text) and _letter(text[stop])):
                    return period
        before = start
        while before > 0 and text[before - 1] in _GAP:
            before -= 1
        for form in self._before_by_char.get(text[before - 1].lower(), ()) if before > 0 else ():
            if text[before - len(form) : before].lower() == form:
                period, bounded = self._before[form]
                begin = before - len(form)
                if not (bounded and form[0].isalpha() and begin > 0 and _letter(text[begin - 1])):
                    return period
        return None


def _index(table: dict[str, tuple[str, bool]], position: int) -> dict[str, tuple[str, ...]]:
    """Forms grouped by their character at ``position``, each group longest first."""
    groups: dict[str, list[str]] = {}
    for form in table:
        groups.setdefault(form[position], []).append(form)
    return {char: tuple(sorted(forms, key=len, reverse=True)) for char, forms in groups.items()}


def _variants(table: dict[str, tuple[str, bool]]) -> dict[str, tuple[str, bool]]:
    """Each form in lower, upper and capitalized case ("Mỗi tháng", "PER MONTH")."""
    return {
        variant: meaning
        for form, meaning in table.items()
        for variant in (form, form.upper(), form[:1].upper() + form[1:])
    }


def _letter(char: str) -> bool:
    """A letter of a spaced script: a form may not run into one ("25 đô mỗi ngàyx")."""
    return char.isalpha() and not ("\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff")


def _claim(
    table: dict[str, tuple[str, bool]], form: str, meaning: tuple[str, bool], pack: Pack, field_name: str
) -> None:
    """Record ``form`` -> ``meaning``; two packs giving one form two periods is a ConfigError."""
    previous = table.setdefault(form, meaning)
    if previous[0] != meaning[0]:
        raise ConfigError(
            f"{pack.source}: field {field_name}: {form!r} means {meaning[0]}, another pack says {previous[0]}"
        )
