"""Every conditional pack merged into compiled matchers (answers and chunks mix languages)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from monitor.conditional.hours import ClockReader
from monitor.conditional.packs import ConditionalPack
from monitor.conditional.text import _ACCENTS, _COUNT, _HAN, _ending_pattern, _spaced, fold, lower

_Field = Callable[[ConditionalPack], list[str]]


class _Vocabulary:
    """Every pack merged into compiled matchers (answers and chunks mix languages, like numeric)."""

    def __init__(self, packs: Sequence[ConditionalPack]) -> None:
        self.languages = tuple(pack.language for pack in packs)
        # inflection endings a word may carry ("members", "رایگانه", "دانشجویان"), longest first
        self.endings = tuple(sorted({lower(e) for p in packs for e in p.endings}, key=lambda e: (-len(e), e)))
        # what a key (a policy's or a pack's word) may shed: plurals, not enclitics ("سالمند" is no "سالم")
        shed = {lower(e) for p in packs for e in (p.endings if p.plurals is None else p.plurals)}
        self.plurals = tuple(sorted(shed, key=lambda e: (-len(e), e)))
        self.if_markers = _matcher(packs, lambda p: p.if_markers)
        self.leading_markers = _matcher(packs, lambda p: p.leading_markers)
        self.every_markers = _matcher(packs, lambda p: p.every_markers)
        self.case_markers = _matcher(packs, lambda p: p.case_markers)
        self.post_markers = _matcher(packs, lambda p: p.post_markers)
        self.except_markers = _matcher(packs, lambda p: p.except_markers)
        self.including = _matcher(packs, lambda p: p.including)
        self.scope_markers = _matcher(packs, lambda p: p.scope_markers)
        self.closing_excepts = _matcher(packs, lambda p: p.closing_excepts)
        self.groups = _matcher(packs, lambda p: p.groups, inflected=True)
        self.tiers = _matcher(packs, lambda p: p.tiers, inflected=True)
        self.label_tiers = _matcher(packs, lambda p: p.label_tiers, inflected=True)
        self.unions = _matcher(packs, lambda p: p.unions)
        self.folded_unions = _matcher(packs, lambda p: p.unions, folded=True)
        self.events = _matcher(packs, lambda p: p.events, inflected=True)
        self.general = _matcher(packs, lambda p: p.general, inflected=True)
        self.tier_words = _words(packs, lambda p: p.tiers)
        self.general_words = _words(packs, lambda p: p.general)
        # a run of Chinese characters is one token: "标准时效" holds the general word "标准" (one
        # character alone, "均", is too often part of another word to count)
        self._han_general = tuple(w for w in self.general_words if len(w) > 1 and _han(w))
        self.ordinals = frozenset(fold(w) for p in packs for w in p.ordinals)
        self.links = _words(packs, lambda p: p.links)
        self.stopwords = _words(packs, lambda p: p.stopwords)
        self.group_words = _words(packs, lambda p: p.groups)
        self.verbs = _words(packs, lambda p: p.verbs)
        self.modals = _matcher(packs, lambda p: p.modals)
        self.folded_stopwords = frozenset(w.translate(_ACCENTS) for w in self.stopwords | self.links)
        self.before = _words(packs, lambda p: p.groups if p.qualifier_side == "before" else [])
        self.carry_markers = _matcher(packs, lambda p: p.carry_markers)
        self.back_markers = _matcher(packs, lambda p: p.back_markers)
        self.leading_back_markers = _matcher(packs, lambda p: p.leading_back_markers)
        self.negations = _matcher(packs, lambda p: p.negations)
        self.denials = _matcher(packs, lambda p: p.denials, folded=True)
        self.clock = ClockReader(packs)
        self.denial_skip = _matcher(packs, lambda p: [*p.links, *p.groups, *p.stopwords], folded=True)
        self.thresholds = _ending(packs, lambda p: p.thresholds)
        self.threshold_words = _matcher(packs, lambda p: p.thresholds)
        self.thresholds_after = _matcher(packs, lambda p: p.thresholds_after)
        self.limits = _ending(packs, lambda p: p.limits)
        self.bounds = _matcher(packs, lambda p: [*p.lower_bounds, *p.upper_bounds], folded=True)
        self.upper_bounds = frozenset(f.translate(_ACCENTS) for f in _words(packs, lambda p: p.upper_bounds))
        self.ages_before = _matcher(packs, lambda p: p.ages_before)
        self.ages_after = _matcher(packs, lambda p: p.ages_after)
        self.then_markers = _matcher(packs, lambda p: p.then_markers)
        self.classes = _matcher(packs, lambda p: p.classes, inflected=True)
        self.class_before = _words(packs, lambda p: p.classes if p.qualifier_side == "before" else [])
        self.anaphors = _matcher(packs, lambda p: p.anaphors)
        self.ranges = _matcher(packs, lambda p: p.ranges)
        self.free = _matcher(packs, lambda p: p.free, inflected=True)
        self.universal = _matcher(packs, lambda p: p.universal)
        self.everyone = _matcher(packs, lambda p: p.everyone)
        self.clock_before = _matcher(packs, lambda p: p.clock_before)
        self.answer_markers = _matcher(packs, lambda p: [*p.answer_markers, *p.if_markers, *p.then_markers])
        self.equivalents = tuple(
            tuple(" ".join(fold(form).split()) for form in group)
            for pack in packs
            for group in pack.equivalents
        )
        self.goods = tuple(
            tuple(" ".join(fold(form).split()) for form in group) for pack in packs for group in pack.goods
        )
        self.equivalents_and_goods = (*self.equivalents, *self.goods)
        self.topics = tuple(
            tuple(" ".join(fold(form).split()) for form in group) for pack in packs for group in pack.topics
        )
        self.kinds = {
            unit: index for pack in packs for index, units in enumerate(pack.comparable) for unit in units
        }
        self.qualified: dict[str, frozenset[str]] = {}  # plain unit -> the qualified units it drops
        for pack in packs:
            for qualified, plain in pack.qualified_units.items():
                self.qualified[plain] = self.qualified.get(plain, frozenset()) | {qualified}

    def general_word(self, word: str) -> bool:
        """Whether a token marks the general case: a general word, or a Chinese run holding one."""
        return word in self.general_words or (_han(word) and any(g in word for g in self._han_general))

    def kind(self, unit: str) -> str:
        """The kind of quantity a unit measures: durations compare with durations ("90 days", "2 years")."""
        if unit.startswith(_COUNT):
            return _COUNT
        index = self.kinds.get(unit)
        return unit if index is None else f"kind:{index}"

    def bound(self, phrase: str) -> int:
        """The side of its term a condition's folded phrase keeps: 1 above ("70 tuoi tro len"), -1
        below ("duoi 6 tuoi"), 0 when it names no bound or both."""
        sides = {
            -1 if " ".join(m.group().split()) in self.upper_bounds else 1
            for m in self.bounds.finditer(phrase)
        }
        return sides.pop() if len(sides) == 1 else 0

    def content(self, word: str) -> bool:
        """A word that can name a condition: not a stopword, a link, a group noun or a verb form."""
        return (
            word not in self.stopwords
            and word not in self.links
            and word not in self.group_words
            and word not in self.verbs
        )


def _words(packs: Iterable[ConditionalPack], field: _Field) -> frozenset[str]:
    return frozenset(" ".join(lower(form).split()) for pack in packs for form in field(pack))


def _matcher(
    packs: Iterable[ConditionalPack], field: _Field, *, folded: bool = False, inflected: bool = False
) -> re.Pattern[str]:
    """One regex for the forms of a field, longest first; spaced scripts match whole words only;
    ``folded``: the forms without accents, for accent-folded text; ``inflected``: nouns and adjectives,
    which may carry an ending of their pack ("مشتریان", "رایگانه"; function words do not: "not" in
    "notes")."""
    forms: dict[str, tuple[bool, str]] = {}
    for pack in packs:
        ending = _ending_pattern(tuple(lower(e) for e in pack.endings)) if inflected else ""
        for form in field(pack):
            written = " ".join(lower(form).split())
            forms[written.translate(_ACCENTS) if folded else written] = (pack.word_boundaries, ending)
    if not forms:
        return re.compile(r"(?!)")
    parts = [
        (rf"(?<!\w){_spaced(form)}{ending}(?!\w)" if bounded else re.escape(form))
        for form, (bounded, ending) in sorted(forms.items(), key=lambda item: -len(item[0]))
    ]
    return re.compile("|".join(parts))


def _ending(packs: Iterable[ConditionalPack], field: _Field) -> re.Pattern[str]:
    """A regex for text ending with one of the field's forms (then a space)."""
    forms = sorted({" ".join(lower(form).split()) for pack in packs for form in field(pack)}, key=len)
    if not forms:
        return re.compile(r"(?!)")
    return re.compile("(?:" + "|".join(_spaced(form) for form in reversed(forms)) + r")\s*$")


def _han(word: str) -> bool:
    """Whether ``word`` is written in Chinese characters (its first is one)."""
    return _HAN_START.match(word) is not None


_HAN_START = re.compile(rf"[{_HAN}]")
