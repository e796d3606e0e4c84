"""The conditional-value check: a value the context holds only under a condition, stated as general.

Seed 000's "30 ngày" was faithful to a retrieved sentence, "Thành viên BanHang Plus ... 30 ngày", and
wrong for everyone else. The check reads every retrieved chunk as clauses (sentences, ";" parts and
parentheticals that hold a number), finds the condition phrases in them with the packs' vocabulary and
binds each value to the conditions that govern it:

- an "if" marker ("nếu", "if", "如果", "در صورتی که", "riêng") binds the values after it in its clause;
- an "except" marker ("trừ", "except", "除", "به جز") binds the values after it up to the next comma;
- a scope marker ("chỉ áp dụng cho", "exclusively", "仅限", "فقط") binds its whole clause, and when
  that clause states no number, the clauses after it in the chunk ("The following applies only to ...");
- a group noun with a qualifier ("thành viên Plus", "Premium subscribers", "VIP会员", "اعضای ویژه") or a
  tier word on its own binds the values after it in its clause and those of its own comma part; a
  general qualifier ("các gói khác", "standard", "普通", "همه") marks the general case instead.

An answer value whose every supporting statement is bound, to conditions that neither the question nor
the answer carries (their content words, accent-folded, are not there), is a finding: critical when
the context also states another value of the same unit for the general case, a warning otherwise.
"""

from __future__ import annotations

import copy
import functools
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from monitor.conditional.hours import CLOCK, EVERY_DAY, ClockReader, DaySpan, blank
from monitor.conditional.model import ConditionalFinding, ConditionalReport
from monitor.conditional.packs import ConditionalPack, load_packs
from monitor.numeric import NumericRules, Quantity
from monitor.numeric.model import json_number
from monitor.numeric.text import fold as fold_digits
from monitor.numeric.text import nfc, parse_number
from monitor.rulepacks import RulePacks

DEFAULT_CONTEXT_CACHE = 4096  # analysed chunk texts remembered: the same policy chunks recur
DEFAULT_CARRIED_SHARE = 0.5  # share of a condition's content words the question/answer must hold

_CLAUSE_END = re.compile(r"[.!?؟](?=\s|$)|[。！？；;؛\n]")
_PAREN = re.compile(r"[(（]([^()（）]*)[)）]")
_COMMA = re.compile(r"[,，、،](?!\d)|\s[-–—]\s")
_LIST_COMMA = re.compile(r"\s*[,，、،]\s*")
_HAN = "\u3400-\u9fff"
_LEADING = " \t-–—:：·•*#"  # what may stand before a leading marker in its part
_TOKEN = re.compile(rf"[{_HAN}]+|[^\W\d_{_HAN}]+")
_NUMBER = re.compile(r"[0-9]+")
_FIRST_NUMBER = re.compile(r"[^\w:：]*?([0-9]+)")
_COUNTED = re.compile(rf"(?<![.,])(?<![^\W{_HAN}])([0-9]+(?:[.,][0-9]+)*)\s*([{_HAN}]|[^\W\d_{_HAN}]+)")
_LATIN = (*range(0x41, 0x250), *range(0x1E00, 0x1F00))
_LOWER = {code: low for code in _LATIN if len(low := chr(code).lower()) == 1 and low != chr(code)}
_ACCENTS = {
    code: base
    for code in _LATIN
    if len(base := unicodedata.normalize("NFD", chr(code))[0].lower()) == 1 and base != chr(code)
} | {ord("đ"): "d", ord("Đ"): "d"}
_Amount = tuple[Decimal, str]
_COUNT = "count:"  # the unit prefix of counted things: "count:lan" for "20 lần"
_LABEL = re.compile(r"\s*[^\W\d_]{1,6}[-‐]?\d+[.:)]?\s*$")  # a section label clause: "DT-3.", "SP-2."
_CLAUSE_KINDS = frozenset({"if", "then", "except", "threshold"})
_CASE_KINDS = frozenset({"if", "scope"})  # a clause's case: "در تهران", "only in Hanoi, Hue and Da Nang"
_FOOTNOTE = re.compile(r"\s*(\*+|※|\(\*+\))")  # a clause opening a footnote: "*Áp dụng cho ..."
_MARK = re.compile(r"(?<=[^\s*(])(\*+|※|\(\*+\))")  # a footnote mark after a word or value: "0%*"
FREE = "free"  # the unit of a price stated without a number ("miễn phí", "ships free", "包邮", "رایگان")
_Field = Callable[[ConditionalPack], list[str]]


def lower(text: str) -> str:
    """Lower-case, digit-normalized ``text`` of the same length as ``nfc(text)``; accents kept, so the
    packs' markers stay apart ("mỗi" each, "mọi" every)."""
    return fold_digits(nfc(text)).translate(_LOWER)


def fold(text: str) -> str:
    """``lower(text)`` without accents (đ -> d): how a question typed without them is compared."""
    return lower(text).translate(_ACCENTS)


@dataclass(frozen=True, slots=True)
class _Condition:
    """A condition phrase in a chunk: how it binds, where it is, the words that name it."""

    # if, except, scope, group, class (of goods), then ("X thì Y"), threshold ("từ 300.000 đồng")
    kind: str
    start: int
    end: int
    keys: frozenset[str]
    soft: bool = False  # a group qualified by a plain word, not a tier: maybe only a brand or a topic
    phrase: str = ""  # the condition's words, accent-folded: matched against cross-language equivalents
    terms: frozenset[_Amount] = frozenset()  # values naming the condition ("claims up to 5,000元")
    anaphoric: bool = False  # a threshold naming an earlier one's value ("đơn dưới mức đó")
    days: frozenset[int] = frozenset()  # the days of the week a "days" condition names (1 Monday)
    # (list, branch): one of several cases joined by "and"/"or" ("Trẻ em dưới 1m2 và người trên 70
    # tuổi", "Students and seniors"); the conditions of one branch of a list carry it
    branch: tuple[int, int] | None = None
    # another name written in brackets beside the qualifier ("Platinum card (白金卡) holders",
    # "مشترکین قراردادی (دائمی)"): any one of these keys carries the condition too
    aliases: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Row:
    """A value's row in a list of rows: its label's condition (None: the general row) and its span."""

    condition: _Condition | None
    start: int
    end: int
    rows: tuple[tuple[int, int], ...]  # every row of the list

    def govern(self, bound: tuple[_Condition, ...]) -> tuple[_Condition, ...]:
        """``bound`` without the other rows' labels ("Child" does not govern "Adult: $16.50"), with the
        row's own label when nothing but a threshold of its own names the case ("U22: 55.000đ")."""
        other = [(a, b) for a, b in self.rows if (a, b) != (self.start, self.end)]
        kept = tuple(c for c in bound if not any(a <= c.start < b for a, b in other))
        own = [c for c in kept if self.start <= c.start < self.end and c.kind != "threshold"]
        if self.condition is None or own:
            return kept
        return (*kept, self.condition)


@dataclass(frozen=True, slots=True)
class _Statement:
    """A value the context states, with the conditions bound to it (none: it holds generally)."""

    amount: _Amount
    conditions: tuple[_Condition, ...]
    chunk: str
    text: str
    topic: frozenset[str] = frozenset()  # content words of the statement's clause: what it is about
    script: str = ""  # the chunk's writing (see ``script``): an answer in another cannot quote it


class _Vocabulary:
    """Every pack merged into compiled matchers (answers and chunks mix languages, like numeric)."""

    def __init__(self, packs: Sequence[ConditionalPack]) -> None:
        self.languages = tuple(pack.language for pack in packs)
        # inflection endings a word may carry ("members", "رایگانه", "دانشجویان"), longest first
        self.endings = tuple(sorted({lower(e) for p in packs for e in p.endings}, key=lambda e: (-len(e), e)))
        self.if_markers = _matcher(packs, lambda p: p.if_markers)
        self.leading_markers = _matcher(packs, lambda p: p.leading_markers)
        self.except_markers = _matcher(packs, lambda p: p.except_markers)
        self.scope_markers = _matcher(packs, lambda p: p.scope_markers)
        self.groups = _matcher(packs, lambda p: p.groups, inflected=True)
        self.tiers = _matcher(packs, lambda p: p.tiers, inflected=True)
        self.label_tiers = _matcher(packs, lambda p: p.label_tiers, inflected=True)
        self.unions = _matcher(packs, lambda p: p.unions)
        self.events = _matcher(packs, lambda p: p.events, inflected=True)
        self.general = _matcher(packs, lambda p: p.general, inflected=True)
        self.tier_words = _words(packs, lambda p: p.tiers)
        self.general_words = _words(packs, lambda p: p.general)
        self.ordinals = frozenset(fold(w) for p in packs for w in p.ordinals)
        self.links = _words(packs, lambda p: p.links)
        self.stopwords = _words(packs, lambda p: p.stopwords)
        self.group_words = _words(packs, lambda p: p.groups)
        self.verbs = _words(packs, lambda p: p.verbs)
        self.folded_stopwords = frozenset(w.translate(_ACCENTS) for w in self.stopwords | self.links)
        self.before = _words(packs, lambda p: p.groups if p.qualifier_side == "before" else [])
        self.carry_markers = _matcher(packs, lambda p: p.carry_markers)
        self.back_markers = _matcher(packs, lambda p: p.back_markers)
        self.negations = _matcher(packs, lambda p: p.negations)
        self.denials = _matcher(packs, lambda p: p.denials, folded=True)
        self.clock = ClockReader(packs)
        self.denial_skip = _matcher(packs, lambda p: [*p.links, *p.groups, *p.stopwords], folded=True)
        self.thresholds = _ending(packs, lambda p: p.thresholds)
        self.threshold_words = _matcher(packs, lambda p: p.thresholds)
        self.thresholds_after = _matcher(packs, lambda p: p.thresholds_after)
        self.then_markers = _matcher(packs, lambda p: p.then_markers)
        self.classes = _matcher(packs, lambda p: p.classes, inflected=True)
        self.class_before = _words(packs, lambda p: p.classes if p.qualifier_side == "before" else [])
        self.anaphors = _matcher(packs, lambda p: p.anaphors)
        self.ranges = _matcher(packs, lambda p: p.ranges)
        self.free = _matcher(packs, lambda p: p.free, inflected=True)
        self.universal = _matcher(packs, lambda p: p.universal)
        self.everyone = _matcher(packs, lambda p: p.everyone)
        self.answer_markers = _matcher(packs, lambda p: [*p.answer_markers, *p.if_markers, *p.then_markers])
        self.equivalents = tuple(
            tuple(" ".join(fold(form).split()) for form in group)
            for pack in packs
            for group in pack.equivalents
        )
        self.goods = tuple(
            tuple(" ".join(fold(form).split()) for form in group) for pack in packs for group in pack.goods
        )
        self.topics = tuple(
            tuple(" ".join(fold(form).split()) for form in group) for pack in packs for group in pack.topics
        )
        self.kinds = {
            unit: index for pack in packs for index, units in enumerate(pack.comparable) for unit in units
        }

    def kind(self, unit: str) -> str:
        """The kind of quantity a unit measures: durations compare with durations ("90 days", "2 years")."""
        if unit.startswith(_COUNT):
            return _COUNT
        index = self.kinds.get(unit)
        return unit if index is None else f"kind:{index}"

    def content(self, word: str) -> bool:
        """A word that can name a condition: not a stopword, a link or a group noun."""
        return word not in self.stopwords and word not in self.links and word not in self.group_words


def _days_of(
    low: str,
    start: int,
    end: int,
    value: tuple[int, int],
    clocks: Sequence[int],
    conditions: Sequence[_Condition],
) -> tuple[_Condition, ...]:
    """The day set a clock range holds on: the nearest in its comma part, else in its clause, with no
    other clock range between them ("9am to 7pm Monday to Friday and 10am to 4pm on Saturdays",
    "mở cửa từ 7:00 đến 20:00, từ thứ Hai đến thứ Sáu", "周一至周五上午9点至下午6点")."""
    days = [c for c in conditions if c.kind == "days"]
    if not days:
        return ()
    begin, stop = value

    def gap(c: _Condition) -> int:
        return c.start - stop if c.start >= stop else begin - c.end if c.end <= begin else 0

    def clear(c: _Condition) -> bool:
        low_end, high_start = (stop, c.start) if c.start >= stop else (c.end, begin)
        return not any(low_end <= other < high_start for other in clocks)

    part_start, part_end = _part(low, start, end, begin)
    candidates = [c for c in days if part_start <= c.start < part_end and clear(c)]
    candidates = candidates or [c for c in days if clear(c)]
    return (min(candidates, key=gap),) if candidates else ()


def _denies(denied: frozenset[str], key: str) -> bool:
    """Whether a condition key is among a question's denied words: the word itself, a phrase's first
    word ("bach kim"), inside a denied Chinese run, or opening a mixed form ("vip会员")."""
    return any(
        key == word or key.split()[0] == word or (not key.isascii() and (key in word or key.startswith(word)))
        for word in denied
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


def _ending_pattern(endings: Sequence[str]) -> str:
    """An optional inflection ending after a form ("members" for "member", "رایگانه" for "رایگان")."""
    if not endings:
        return ""
    return "(?:" + "|".join(re.escape(e) for e in sorted(endings, key=len, reverse=True)) + ")?"


def _spaced(form: str) -> str:
    return r"[\s-]+".join(re.escape(word) for word in form.split())  # "outer city", "outer-city"


def tokens(text: str, endings: Sequence[str] = ("s",)) -> set[str]:
    """Content-word keys of folded ``text``: words (also without an inflection ending of the packs: a
    plural's "s", Persian "ان", "ه"), Chinese character pairs and whole numbers ("65")."""
    keys: set[str] = set(_NUMBER.findall(text))
    for run in _TOKEN.findall(text):
        if "\u3400" <= run[0] <= "\u9fff":
            keys.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
        else:
            keys.add(run)
            keys.update(stems(run, endings))
    return keys


def stems(word: str, endings: Sequence[str]) -> set[str]:
    """``word`` without each inflection ending it carries, when at least three letters remain."""
    return {word[: -len(e)] for e in endings if len(word) - len(e) >= 3 and word.endswith(e)}


class _Asked:
    """What the question and the answer say, folded: their content words, text and quantities."""

    def __init__(
        self,
        text: str,
        amounts: Iterable[_Amount] = (),
        question_units: Iterable[str] = (),
        endings: Sequence[str] = ("s",),
    ) -> None:
        self.text = text
        self.endings = tuple(endings)
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
        out = _Asked(self.answer.text, self.amounts, self.question_units, self.endings)
        out.universal, out.answer, out.question = True, self.answer, self.question
        return out

    def for_everyone(self) -> _Asked:
        """No words carry a condition: an answer that gives a value to everyone ("ai cũng được 30 ngày,
        không riêng thành viên Plus", "不限会员") drops every condition, even one the asker meets."""
        out = _Asked("", self.amounts, self.question_units, self.endings)
        out.universal, out.answer, out.question = True, self.answer, self.question
        return out

    def holds(self, key: str) -> bool:
        """Whether a condition key (a word, a character pair or a tier phrase) is said; one the
        question denies ("I'm not a Premium subscriber", "非VIP") only when the answer says it."""
        said = (
            key in self.words
            or any(stem in self.words for stem in stems(key, self.endings))
            or (" " in key or not key.isascii())
            and _has(self.text, key, self.endings)
        )
        if said and self.denied and _denies(self.denied, key):
            return self.answer is not self and self.answer.holds(key)
        return said


class ConditionalRules:
    """The conditional-value check with every loaded pack; build once, share (chunks are cached)."""

    def __init__(
        self,
        packs: Sequence[ConditionalPack],
        numeric: NumericRules,
        *,
        carried_share: float = DEFAULT_CARRIED_SHARE,
        context_cache: int = DEFAULT_CONTEXT_CACHE,
    ) -> None:
        self.vocabulary = _Vocabulary(packs)
        han = [w for w in self.vocabulary.stopwords if len(w) > 1 and "\u3400" <= w[0] <= "\u9fff"]
        self._han_split = re.compile("|".join(map(re.escape, sorted(han, key=len, reverse=True))) or r"(?!)")
        self.languages = self.vocabulary.languages
        self.numeric = numeric
        self.carried_share = carried_share
        self._statements = functools.lru_cache(maxsize=context_cache)(self._analyse)

    @classmethod
    def load(cls, numeric: NumericRules, packs: RulePacks | None = None) -> ConditionalRules:
        """The packs under ``conditional/`` of the rule packs (packaged when none are given)."""
        return cls(load_packs(packs or RulePacks()), numeric)

    def check(self, question: str, answer: str, contexts: Sequence[str]) -> ConditionalReport:
        """Answer values that only condition-bound statements of ``contexts`` support, unqualified."""
        placed = self._asserted(answer)
        said = list(dict.fromkeys(quantity for _, quantity in placed))
        if not said or not contexts:
            return ConditionalReport()
        statements = [s for context in contexts for s in self._statements(context)]
        asked_about = self._quantities(question)
        endings = self.vocabulary.endings
        asked = _Asked(
            fold(f"{question}\n{answer}"),
            # every value the answer names carries a condition, denied or not ("不满300,000越南盾")
            [(q.value, q.unit) for q in [*self._quantities(answer), *asked_about]],
            [q.unit for q in asked_about],
            endings,
        )
        asked.universal = self.vocabulary.universal.search(lower(answer)) is not None
        asked.answer = _Asked(fold(answer), [(q.value, q.unit) for q in said], (), endings)
        asked.question = _Asked(fold(question), [(q.value, q.unit) for q in asked_about], (), endings)
        asked.denied = asked.question.denied = self._denied(fold(question))
        asked.stated = frozenset((q.value, q.unit) for q in self._quantities(answer))
        folded = fold(answer)
        low = lower(answer)
        topics: dict[Quantity, frozenset[str]] = {}
        hedged: dict[Quantity, str] = {}  # the writing of the answer sentence that states a condition
        writing: dict[Quantity, str] = {}  # the writing of the answer sentence that states the value
        everyone: set[Quantity] = set()  # stated for everyone: "ai cũng", "all customers", "不限会员"
        universal: set[Quantity] = set()  # stated of all: "mọi đơn hàng", "all policies", "所有保单"
        days: dict[Quantity, frozenset[int] | None] = {}  # the days a clock range is given for
        plain = self._unclocked(low, 0, len(low)).translate(_ACCENTS)  # what the answer's clauses are about
        clocks = [(start, start + len(quantity.text)) for start, quantity in placed if quantity.unit == CLOCK]
        for start, quantity in placed:
            a, b = next(((a, b) for a, b in _clauses(folded) if a <= start < b), (0, len(folded)))
            if quantity.unit == CLOCK:
                days[quantity] = self._days_asked(low, a, b, start, question, clocks)
            topics[quantity] = topics.get(quantity, frozenset()) | self._topic(plain[a:b])
            if self.vocabulary.answer_markers.search(low, a, b) is not None:
                hedged[quantity] = script(low[a:b])
            writing[quantity] = script(low[a:b])
            if self._said_of_all(self.vocabulary.everyone, low, a, b):
                everyone.add(quantity)
            elif self._said_of_all(self.vocabulary.universal, low, a, b):
                universal.add(quantity)
        findings, qualified = [], []
        for quantity in said:
            here = asked.for_everyone() if quantity in everyone else asked
            if quantity in universal:  # a universal claim carries a condition only in its own words
                here = asked.answer_only()
            if quantity in days:
                here = here.on_days(days[quantity])
            finding = self._finding(
                quantity, statements, here, topics[quantity], hedged.get(quantity, ""), writing[quantity]
            )
            if finding is not None:
                findings.append(finding)
            elif self._qualified(
                quantity, statements, asked.on_days(days[quantity]) if quantity in days else asked
            ):
                qualified.append(quantity)
        return ConditionalReport(tuple(findings), tuple(qualified))

    def _qualified(self, quantity: Quantity, statements: Sequence[_Statement], asked: _Asked) -> bool:
        """Whether a condition-bound statement supports the value and the question or answer carries
        every one of its conditions."""
        amount = (quantity.value, quantity.unit)

        def carried(condition: _Condition) -> bool:
            return self._carried(condition, asked)

        return any(
            s.amount == amount and s.conditions and _all_carried(s.conditions, carried) for s in statements
        )

    def _finding(
        self,
        quantity: Quantity,
        statements: Sequence[_Statement],
        asked: _Asked,
        topic: frozenset[str] = frozenset(),
        hedged: str = "",
        writing: str = "",
    ) -> ConditionalFinding | None:
        amount = (quantity.value, quantity.unit)
        support = [s for s in statements if s.amount == amount]
        if not support and quantity.unit.startswith(_COUNT):  # "6 lounge visits" for "6 visits"
            support = [s for s in statements if s.amount[0] == quantity.value and _COUNT in s.amount[1]]

        # An answer sentence in another writing than the policy that states a condition of its own ("if
        # it is our error", "因个人原因", "در این حالت") does not state the value as general: a clause
        # condition (if, then, except, threshold) counts as carried there, since its words cannot be.
        def carried(condition: _Condition, statement: _Statement) -> bool:
            if hedged and hedged != statement.script and condition.kind in _CLAUSE_KINDS:
                return True
            if writing and writing != statement.script and condition.kind in _CASE_KINDS and contrasted:
                return True
            return self._carried(condition, asked)

        def holds(statement: _Statement) -> bool:
            return _all_carried(statement.conditions, lambda c: carried(c, statement))

        # An answer in another writing that gives the general value too ("3 business days in Tehran and
        # up to 7 business days in other cities" for "در تهران ... در سایر شهرها"): it sets the cases
        # apart, though it cannot quote the policy's words for the case.
        kind = self.vocabulary.kind(quantity.unit)
        contrasted = any(
            not s.conditions and s.amount != amount and s.amount in asked.stated
            for s in statements
            if self.vocabulary.kind(s.amount[1]) == kind
        )
        held = [s for s in support if holds(s)]
        bound = [s for s in support if s not in held]
        if not bound:
            return None
        # The best supporting statement decides: the one whose clause shares most words with the
        # answer's ("等待期是30天" is DT-3's "等待期为30天", not a reminder "到期前30天"); a tie passes.
        best = max(bound, key=lambda s: len(s.topic & topic))
        if held and max(len(s.topic & topic) for s in held) >= len(best.topic & topic):
            return None
        support = [best]
        kind = self.vocabulary.kind(support[0].amount[1])
        terms = {amount for c in best.conditions for amount in c.terms}  # "từ 300.000 đồng" names it
        general = {
            s.amount: s.text
            for s in statements
            if self.vocabulary.kind(s.amount[1]) == kind
            and s.amount not in terms
            and s.amount[0] != quantity.value
            and _all_carried(s.conditions, lambda c: c.soft or self._carried(c, asked))
        }
        condition = next(c for c in best.conditions if not carried(c, best))  # the one dropped
        text = " ".join(support[0].chunk[condition.start : condition.end].split())
        others = tuple(Quantity(value, unit, written) for (value, unit), written in general.items())
        return ConditionalFinding(quantity.text, quantity.value, quantity.unit, text, others)

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
        if condition.kind == "threshold" and {u for _, u in condition.terms} & asked.question_units:
            return True  # "Bố tôi 70 tuổi" for "từ 60 tuổi": the customer says where they stand
        return self._equivalent(condition, asked, self.vocabulary.equivalents)

    def _equivalent(self, condition: _Condition, asked: _Asked, groups: Iterable[tuple[str, ...]]) -> bool:
        return any(
            any(_has(condition.phrase, form, asked.endings) for form in group)
            and any(asked.holds(form) for form in group)
            for group in groups
        )

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
        named = self.vocabulary.goods if universal else (*self.vocabulary.equivalents, *self.vocabulary.goods)
        if self._equivalent(condition, asked, named):
            return True
        endings = self.vocabulary.endings
        others = [g for g in self.vocabulary.goods if not any(_has(condition.phrase, f, endings) for f in g)]
        return not universal and not any(asked.holds(form) for group in others for form in group)

    # --- reading a chunk ----------------------------------------------------------------------------

    def _asserted(self, answer: str) -> list[tuple[int, Quantity]]:
        """The answer's values with their offsets, less those it denies ("Phones don't get 30 days",
        "手机没有30天政策")."""
        low = lower(answer)
        said = []
        found = self._found(answer)
        for start, end, quantity in found:
            clause = max(low.rfind(mark, 0, start) for mark in ".;!?。；！？,，")
            if self.vocabulary.negations.search(low, clause + 1, start) is not None:
                continue
            ends = (at for mark in ".;!?。；！？,，" if (at := low.find(mark, end)) >= 0)
            stop = min(ends, default=len(low))
            later = any(end <= other < stop for other, _, _ in found)
            if later and self._threshold_term(low, start, end):
                continue  # "Người trên 70 tuổi vé là 150.000đ": a condition's term, not a value stated
            said.append((start, quantity))
        return said

    def _threshold_term(self, low: str, start: int, end: int) -> bool:
        """Whether the value at ``low[start:end]`` is a threshold's term: after a threshold word ("trên
        70 tuổi", "over $50", "满200元") or before a postposed one ("300元以上", "3 years or more")."""
        v = self.vocabulary
        if v.thresholds.search(low[max(0, start - 24) : start] + " ") is not None:
            return True
        rest = len(low[end:]) - len(low[end:].lstrip())
        return v.thresholds_after.match(low, end + rest) is not None

    def _days_asked(
        self,
        low: str,
        start: int,
        end: int,
        position: int,
        question: str,
        clocks: Sequence[tuple[int, int]] = (),
    ) -> frozenset[int] | None:
        """The days an answer gives a clock range for: those its comma part names, else its sentence,
        else the question ("chủ nhật có mở cửa không"); None when none names a day. Where the part
        gives several ranges their days ("Monday to Friday from 9:00 to 17:00 and Saturday from 9:00
        to 13:00"), as many day sets as ranges pair with them in order; else a range's are the
        nearest with no other range between, as in a policy."""
        clock = self.vocabulary.clock
        part = _part(low, start, end, position)
        here = next(((a, b) for a, b in clocks if a == position), (position, position))
        others = [a for a, _ in clocks if a != position and part[0] <= a < part[1]]
        spans = clock.days(low, *part) if others else []
        if len(spans) == len(others) + 1:
            return spans[sum(1 for c in others if c < position)].days

        def gap(days: DaySpan) -> int:
            return days.start - here[1] if days.start >= here[1] else here[0] - days.end

        def clear(days: DaySpan) -> bool:
            return not any(min(days.start, position) < c < max(days.end, position) for c in others)

        if nearest := [d for d in spans if clear(d)]:
            return min(nearest, key=gap).days
        return clock.named(low, *part) or clock.named(low, start, end) or clock.named(lower(question))

    def _denied(self, folded: str) -> frozenset[str]:
        """The words a question denies it meets: the first one after a denial ("no-contract plan",
        "not a Premium subscriber", "ko có BHYT", "不是VIP会员"), past links and group nouns."""
        v = self.vocabulary
        out: set[str] = set()
        for match in v.denials.finditer(folded):
            at = match.end()
            for _ in range(3):  # "không phải | là | thành viên | Plus"
                at = len(folded) - len(folded[at:].lstrip(" -‐"))
                skipped = v.denial_skip.match(folded, at)
                if skipped is None or skipped.end() == at:
                    break
                at = skipped.end()
            word = _TOKEN.match(folded, len(folded) - len(folded[at:].lstrip(" -‐")))
            if word is not None:
                run = word.group()
                out.add(run[:4] if "\u3400" <= run[0] <= "\u9fff" else run)  # a Chinese run: its opening
        return frozenset(out)

    def _said_of_all(self, matcher: re.Pattern[str], low: str, start: int, end: int) -> bool:
        """Whether the answer sentence says its values of everyone or all, not denied ("không phải ai
        cũng", "not everyone", "不是所有人" name the exception instead)."""
        for match in matcher.finditer(low, start, end):
            before = low[max(start, match.start() - 12) : match.start()]
            if self.vocabulary.negations.search(before) is None:
                return True
        return False

    def _unclocked(self, low: str, start: int, end: int) -> str:
        """``low[start:end]`` without its clock ranges: "24 hours a day" names when, not what the
        sentence is about (an app chat and a phone line both answer "24 hours a day")."""
        text = low[start:end]
        return blank(text, self.vocabulary.clock.ranges(text))

    def _topic(self, folded: str) -> frozenset[str]:
        """What a folded clause is about: its content words, without numbers and function words, and the
        packs' topics it names."""
        v = self.vocabulary
        words = {
            key for key in tokens(folded, v.endings) if not key.isdigit() and key not in v.folded_stopwords
        }
        # a thing named in several languages ("hotline", "热线", "đường dây nóng"): an answer in another
        # language than the policy shares it with the policy's sentence
        words.update(
            f"topic:{i}" for i, group in enumerate(v.topics) if any(_has(folded, f, v.endings) for f in group)
        )
        return frozenset(words)

    def _quantities(self, text: str) -> list[Quantity]:
        """Numeric quantities of ``text`` and counted things ("20 lần", "4 times", "5次"), once each."""
        return list(dict.fromkeys(q for _, _, q in self._found(text)))

    def _found(self, text: str) -> list[tuple[int, int, Quantity]]:
        found = self.numeric.locate(text)
        clocks = self.vocabulary.clock.ranges(lower(text))
        if clocks:  # "từ 7 giờ đến 17 giờ" is opening hours, not two durations
            found = [f for f in found if not any(s < f[1] and f[0] < e for s, e, _ in clocks)] + clocks
        folded = fold(text)
        taken = [(start, end) for start, end, _ in found]
        surface = nfc(text)
        for match in self.vocabulary.free.finditer(lower(text)):  # a price without a number
            if not any(start < match.end() and match.start() < end for start, end in taken):
                free = Quantity(Decimal(0), FREE, surface[match.start() : match.end()])
                found.append((match.start(), match.end(), free))
        for match in _COUNTED.finditer(folded):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            word = match.group(2)
            if word in self.vocabulary.stopwords:
                continue
            try:
                value = parse_number(match.group(1))
            except ValueError:
                continue
            surface = nfc(text)[match.start() : match.end()]
            found.append((match.start(), match.end(), Quantity(value, f"{_COUNT}{word}", surface)))
        return sorted(found, key=lambda item: item[0])

    def _analyse(self, context: str) -> tuple[_Statement, ...]:
        """Every value of one chunk with the conditions bound to it (cached per chunk text)."""
        found = self._found(context)
        if not found:
            return ()
        surface, low = nfc(context), lower(context)
        inner = [span for span in _parentheticals(low) if any(span[0] <= s < span[1] for s, _, _ in found)]
        outer = _blank(low, inner)  # the sentences around value-holding parentheticals, without them
        out: list[_Statement] = []
        writing = script(low)
        carried: tuple[_Condition, ...] = ()
        threshold: frozenset[_Amount] = frozenset()  # the last threshold's value: "dưới mức đó" names it
        notes = self._footnotes(low, surface, found)
        rows = self._rows(low, found)
        last = range(0)  # the statements of the last clause that stated values
        clauses = list(_clauses(low))
        for index, (start, end) in enumerate(clauses):
            first = len(out)
            following = clauses[index + 1] if index + 1 < len(clauses) else (end, end)
            contrast = self._contrasted(low, start, end, *following)
            if _LABEL.match(low, start, end):
                carried = ()  # "SP-2.": a new section; the scope of the last one ends there
            marks = _marks(low, start, end)
            noted = tuple(c for mark in marks for c in notes.get(mark, ()))
            parts = [(low, a, b) for a, b in inner if start <= a < end] + [(outer, start, end)]
            topic = self._topic(self._unclocked(low, start, end).translate(_ACCENTS))
            for text, begin, stop in parts:
                here = [(s, e, q) for s, e, q in found if begin <= s < stop and text[s] == low[s]]
                conditions = self._conditions(text, surface, begin, stop, [(s, e) for s, e, _ in here])
                conditions += [c for c in contrast if begin <= c.start < stop and not _inside(c, conditions)]
                conditions = [self._with_terms(text, c, here) for c in conditions]
                conditions = [replace(c, terms=threshold) if c.anaphoric else c for c in conditions]
                threshold = next(
                    (c.terms for c in reversed(conditions) if c.kind == "threshold" and c.terms), threshold
                )
                general = self.vocabulary.general.search(text, begin, stop) is not None
                if general or any(c.kind != "threshold" for c in conditions):
                    carried = ()  # a new case; a threshold ("up to 6 visits") may be the value's own
                clocks = [s for s, _, q in here if q.unit == CLOCK]
                for position, finish, quantity in here:
                    bound = (*(self._bound(text, begin, stop, position, conditions) or carried), *noted)
                    if position in rows:
                        bound = rows[position].govern(bound)
                    if quantity.unit == CLOCK:
                        place = (position, finish)
                        days = _days_of(text, begin, stop, place, clocks, conditions)
                        # "周末及法定节假日", "weekends and holidays": a time window beside the days is
                        # one of them, and the days decide a clock range
                        bound = (*(c for c in bound if not any(_beside(c, d) for d in days)), *days)
                    amount = (quantity.value, quantity.unit)
                    out.append(_Statement(amount, bound, surface, quantity.text, topic, writing))
                back = self._back(text, begin, stop, conditions) if last and not here else ()
                for index in last if back else ():  # "Ưu đãi trên chỉ áp dụng cho ...": the one before
                    out[index] = replace(out[index], conditions=(*out[index].conditions, *back))
                if _FOOTNOTE.match(low, start, end) is None and not back:  # a footnote speaks of its marks
                    carried = self._carry(text, begin, stop, conditions, [s for s, _, _ in here]) or carried
            last = range(first, len(out)) if len(out) > first else last
        return tuple(out)

    def _rows(self, low: str, found: Sequence[tuple[int, int, Quantity]]) -> dict[int, _Row]:
        """The row of each value in a list of rows ("Label: value", "Label | value", also several to a
        line: "Adult: $16.50 | Child: $11") that states values of one kind in two rows or more: a row's
        label names its case, and no other row's label governs it. The first row is the general case
        ("Giá vé 2D: 95.000đ", "Standard | $3.99") unless the rows count tiers ("Bậc 1", "Tier 2",
        "第二档", "پله دوم": one first word, each label different); a label naming the general case
        ("Chương trình chuẩn", "Standard") is one too."""
        rows: list[tuple[int, int, int, str, list[tuple[int, Quantity]]]] = []
        for begin, stop in _clauses(low):
            line = low[begin:stop]
            cells = [(m.start(), m.end()) for m in _CELLS.finditer(line)] if _inline(line) else []
            for a, b in cells or [(0, len(line))]:
                match = _ROW.match(line, a, b)
                if match is None and _LISTED.search(line):
                    match = _UNRULED.match(line, a, b)  # "艺术类专业10000元/年；": a label, then its value
                if match is None:
                    continue
                sep = begin + match.end()
                values = [(s, q) for s, _, q in found if sep <= s < begin + b]
                if values:
                    rows.append((begin + a, begin + b, begin + match.start(1), match.group(1), values))
        kinds = Counter(self.vocabulary.kind(row[4][0][1].unit) for row in rows)
        rows = [row for row in rows if kinds[self.vocabulary.kind(row[4][0][1].unit)] >= 2]
        labels = [row[3] for row in rows]
        if not labels:
            return {}
        counted = self._counted(labels)
        spans = tuple((row[0], row[1]) for row in rows)
        out: dict[int, _Row] = {}
        topic = frozenset() if counted else self._label_keys(_plain(labels[0]))  # "Drop-in class": "class"
        for index, (a, b, start, label, values) in enumerate(rows):
            condition = None
            if (index or counted) and self.vocabulary.general.search(label) is None:
                condition = self._row_condition(label, start, counted=counted, topic=topic)
            for position, _ in values:
                out[position] = _Row(condition, a, b, spans)
        return out

    def _counted(self, labels: Sequence[str]) -> bool:
        """Whether row labels count tiers: one first word, then one number or ordinal each ("Bậc 1",
        "Tier 2", "پله دوم"; Chinese "第一档", "第二档"), every label different."""
        if len(set(labels)) != len(labels) or len({_head(label) for label in labels}) != 1:
            return False
        for label in labels:
            words = _TOKEN.findall(_plain(label)) + _NUMBER.findall(_plain(label))
            if "\u3400" <= label.lstrip()[:1] <= "\u9fff":
                if len(_plain(label).replace(" ", "")) > 4:
                    return False
            elif len(words) != 2 or not (words[1].isdigit() or words[1] in self.vocabulary.ordinals):
                return False
        return True

    def _row_condition(
        self, label: str, start: int, *, counted: bool, topic: frozenset[str] = frozenset()
    ) -> _Condition | None:
        """A row label's condition. A counted tier is its whole label ("bậc 2", "第二档", "پله دوم": "bậc
        3" is another); a number and its word are one key ("12 tháng": "một tháng" is not it); else
        the label's tier words or content words."""
        plain = " ".join(_PAREN.sub(" ", label).translate(_ACCENTS).split())
        if counted:
            return _Condition("row", start, start + len(label), frozenset({plain}), phrase=plain)
        keys = self._label_keys(plain) - topic
        if all(len(key) < 3 for key in keys):  # "U22 (dưới 22 tuổi, xuất trình CCCD)": the bracket says it
            keys = self._label_keys(
                " ".join(label.translate(_ACCENTS).replace("(", " ").replace(")", " ").split())
            )
        if not keys:
            return None
        return _Condition("row", start, start + len(label), frozenset(keys), phrase=plain)

    def _label_keys(self, plain: str) -> frozenset[str]:
        numbered = {" ".join(m.group().split()) for m in _NUMBERED.finditer(plain)}
        words = [w for w in _TOKEN.findall(_NUMBERED.sub(" ", plain)) if self.vocabulary.content(w)]
        keys = {k for k in self._keys(words) if k not in self.vocabulary.folded_stopwords}
        return frozenset({k for k in keys if len(k) > 1 or not k.isascii()} | numbered)

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
        "以上优惠仅限VIP会员", "این تخفیف فقط برای اعضای ویژه است")."""
        if self.vocabulary.back_markers.search(low, start, end) is None:
            return ()
        return tuple(c for c in conditions if c.kind == "scope")

    def _footnotes(
        self, low: str, surface: str, found: Sequence[tuple[int, int, Quantity]]
    ) -> dict[str, tuple[_Condition, ...]]:
        """The conditions of each footnote, by its mark: a clause opening with "*" ("*Áp dụng cho khách
        hàng mở thẻ trực tuyến.", "*For Premier Banking clients.") binds the values of the clauses that
        carry its mark ("Miễn phí thường niên năm đầu*", "Foreign transaction fee: 0%*")."""
        out: dict[str, tuple[_Condition, ...]] = {}
        for start, end in _clauses(low):
            match = _FOOTNOTE.match(low, start, end)
            if match is None or match.group(1) in out or match.group(1) in low[match.end() : end]:
                continue  # "**Lưu ý:**" is Markdown emphasis, no footnote
            values = [(s, e) for s, e, _ in found if start <= s < end]
            conditions = self._conditions(low, surface, match.end(), end, values)
            named = tuple(c for c in conditions if c.kind not in ("threshold", "days") and not c.soft)
            if named:
                out[match.group(1)] = named
        return out

    def _carry(
        self, low: str, start: int, end: int, conditions: Sequence[_Condition], values: Sequence[int]
    ) -> tuple[_Condition, ...]:
        """The conditions a clause hands on to the next ones: a scope it sets without stating a value
        of its own ("The following applies only to Gold cardholders.", "Premium subscribers:")."""
        scopes = [c for c in conditions if c.kind == "scope" or (c.kind == "group" and not c.soft)]
        if not scopes:
            return ()
        if not values or low[start:end].rstrip().endswith(":"):
            return tuple(scopes)
        # "Quyền lợi sau chỉ áp dụng cho học viên gói 12 tháng.": a value naming the scope, and a word
        # pointing at what follows ("sau", "following", "以下")
        if self.vocabulary.carry_markers.search(low, start, end) is None:
            return ()
        return tuple(c for c in scopes if c.kind == "scope")

    def _bound(
        self, low: str, start: int, end: int, position: int, conditions: Sequence[_Condition]
    ) -> tuple[_Condition, ...]:
        """The conditions of a clause that govern the value at ``position`` (see the module docstring)."""
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
        # "Khách đổi ý thì ... 30.000 đồng": what stands before "thì" governs the rest of the clause
        bound += [c for c in conditions if c.kind == "then" and c.end <= position]
        # "Đơn từ 300.000 đồng trở lên được miễn phí": a threshold governs the other values of its part
        bound += [
            c for c in conditions if c.kind == "threshold" and c in inside and not c.start <= position < c.end
        ]
        groups = [c for c in inside if c.kind == "group"]
        before = [c for c in conditions if c.kind == "group" and c.start < position]
        if groups or not general_part:  # "các gói khác được 3 GB": the part itself is the general case
            bound += groups or before[-1:]  # a later part with its own group starts a new case
            bound += [c for c in inside if c.kind == "class"]  # "hàng thời trang" of "thành viên Plus"
        return tuple(bound)

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
        terms = frozenset((q.value, q.unit) for s, _, q in values if self._term(low, condition, s))
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
        return self.vocabulary.thresholds.search(low[condition.start : condition.end] + " ") is not None

    def _conditions(
        self, low: str, surface: str, start: int, end: int, values: Sequence[tuple[int, int]]
    ) -> list[_Condition]:
        """The condition phrases of a clause, in order; none inside a value ("5 business days")."""
        v = self.vocabulary
        out: list[_Condition] = []
        excluded: list[_Condition] = []  # "All plans except Premium": Premium is no condition there
        events: list[tuple[int, int]] = []  # if-clauses naming an event, with their own terms
        markers = (
            ("if", v.if_markers),
            ("lead", v.leading_markers),
            ("except", v.except_markers),
            ("scope", v.scope_markers),
        )
        for kind, matcher in markers:
            for match in matcher.finditer(low, start, end):
                part_start, part_end = _part(low, start, end, match.start())
                if kind == "lead":
                    if low[part_start : match.start()].strip(_LEADING):
                        continue  # "riêng" opens a case only where a part starts: "buổi tập riêng" does not
                    kind = "if"
                stop, keys = self._window(low, match.end(), part_end)
                if kind == "if" and v.events.search(low, match.end(), max(stop, part_end)) is not None:
                    events.append((match.start(), part_end))
                    continue  # "charged if you cancel", "nếu giao trễ": an event the value answers, no case
                everyone = v.general.search(low, match.end(), stop)
                if everyone is not None and not low[match.end() : everyone.start()].strip():
                    continue  # "áp dụng cho tất cả tài khoản", "for all customers": the general case
                if kind == "except" and v.general.search(low, part_start, match.start()):
                    # "All plans except Premium include 5 GB": the general case, less one
                    excluded.append(_Condition(kind, match.start(), max(stop, match.end()), frozenset()))
                    continue
                begin = match.start()
                if not keys and kind == "scope":  # "VIP会员专享": the scope is named before the marker
                    words = self._before(low, part_start, match.start())
                    keys, begin = self._keys(words), part_start
                if keys:
                    stop, listed = self._listed(low, stop, end)
                    phrase = low[begin:stop].translate(_ACCENTS)
                    aliases = frozenset(listed | keys) if listed else frozenset()
                    out.append(
                        _Condition(kind, match.start(), stop, frozenset(keys), phrase=phrase, aliases=aliases)
                    )
        out += self._thens(low, start, end)
        # "if you cancel more than 2 minutes after": the event's own terms, no case either
        out += [
            c
            for c in self._thresholds(low, start, end, values)
            if not any(a <= c.start < b for a, b in events)
        ]
        out += [
            _Condition("days", d.start, d.end, frozenset(), phrase=low[d.start : d.end], days=d.days)
            for d in v.clock.days(low, start, end)
            if d.days != EVERY_DAY
        ]
        for match in v.groups.finditer(low, start, end):
            condition = self._group(low, surface, start, end, match)
            if condition is None or _inside(condition, excluded):
                continue
            if not _inside(condition, out) and not _overlaps(match, values):
                out.append(condition)
        for match in v.tiers.finditer(low, start, end):
            tier_keys = frozenset(self._keys([match.group()]))
            tier = _Condition(
                "group", match.start(), match.end(), tier_keys, phrase=match.group().translate(_ACCENTS)
            )
            if not _inside(tier, [*out, *excluded]) and not _overlaps(match, values):
                out.append(tier)
        # "Online: $9", "Chuyển tiền qua ứng dụng: miễn phí", "کلاس‌های آنلاین: ۲ میلیون": words that
        # name a case only as a row's label (in running text a channel is mostly how: "apply online")
        nouns = [(m.start(), m.end()) for m in v.groups.finditer(low, start, end)]
        for match in v.label_tiers.finditer(low, start, end):
            if _RULED.search(low, start, match.start()) or not _labels(low, match.end(), end):
                continue
            if _overlaps(match, nouns):
                continue  # "hộ gia đình" (household) is a group noun, not the label word "gia đình"
            key = " ".join(match.group().translate(_ACCENTS).split())
            tier = _Condition("group", match.start(), match.end(), frozenset({key}), phrase=key)
            if not _inside(tier, [*out, *excluded]) and not _overlaps(match, values):
                out.append(tier)
        if any(c.kind not in ("threshold", "then") for c in out):
            # a class of goods narrows a condition already there ("Hàng thời trang do thành viên Plus
            # mua"); alone it is mostly the topic ("Phí giao hàng toàn quốc", "fashion items ship ...")
            people = [(m.start(), m.end()) for m in v.groups.finditer(low, start, end)]
            for match in v.classes.finditer(low, start, end):
                goods = self._class(low, start, end, match)
                taken = [c for c in out if c.kind == "class"] + excluded
                if goods is None or _overlaps(match, [*values, *people]) or _inside(goods, taken):
                    continue
                out.append(goods)
            out += self._named_goods(low, start, end, out)
        return self._branches(low, start, end, sorted(out, key=lambda c: c.start))

    def _listed(self, low: str, stop: int, end: int) -> tuple[int, set[str]]:
        """The other names of a list a condition's name opens ("فقط در تهران، مشهد و اصفهان", "only in
        Hanoi, Hue and Da Nang"): short items after commas, the last after a union word; any one of
        them carries the condition. Returns where the list ends and the items' keys."""
        items: list[str] = []
        position = stop
        while (comma := _LIST_COMMA.match(low, position, end)) is not None:
            after = next((m.start() for m in _LIST_COMMA.finditer(low, comma.end(), end)), end)
            words = list(_TOKEN.finditer(low, comma.end(), after))
            union = next(
                (i for i, w in enumerate(words) if self.vocabulary.unions.fullmatch(w.group())), None
            )
            head = words[:union] if union is not None else words
            if not 1 <= len(head) <= 2 or _digit_between(low, comma.end(), head[-1].end()):
                break
            items += [w.group() for w in head]
            if union is None:
                position = head[-1].end()
                continue
            last = words[union + 1] if union + 1 < len(words) else None
            if (
                last is None
                or not self.vocabulary.content(last.group())
                or _digit_between(low, position, last.end())
            ):
                break
            return last.end(), self._keys([*items, last.group()])
        return stop, set()

    def _branches(self, low: str, start: int, end: int, conditions: list[_Condition]) -> list[_Condition]:
        """Cases of one comma part joined by a union word ("Trẻ em dưới 1m2 và người trên 70 tuổi",
        "Students and seniors: $8", "学生和老人"): any one of them is the condition."""
        out = list(conditions)
        for index in range(1, len(out)):
            first, second = out[index - 1], out[index]
            part = _part(low, start, end, first.start)
            between = low[first.end : second.start]
            if second.start < first.end or _part(low, start, end, second.start) != part or len(between) > 16:
                continue
            if any(mark in between for mark in ":：|｜") or self.vocabulary.unions.search(between) is None:
                continue
            listed, branch = first.branch or (first.start, 0)
            for earlier in range(index):  # the first case runs from the part's start
                if out[earlier].start >= part[0] and out[earlier].branch is None:
                    out[earlier] = replace(out[earlier], branch=(listed, branch))
            for later in range(index, len(out)):  # the next case runs to the part's next union word
                if out[later].start >= part[1]:
                    break
                out[later] = replace(out[later], branch=(listed, branch + 1))
        return out

    def _thens(self, low: str, start: int, end: int) -> list[_Condition]:
        """Conditions stated before a "then" marker ("Khách đổi ý thì ...", "...的话"): the content
        words of its comma part before it."""
        v = self.vocabulary
        out = []
        for match in v.then_markers.finditer(low, start, end):
            part_start, _ = _part(low, start, end, match.start())
            if v.general.search(low, part_start, match.start()):
                continue  # "Mọi đơn thì ..." is the general case
            words = [
                w.group()
                for w in _TOKEN.finditer(low, part_start, match.start())
                if v.content(w.group()) and w.group() not in v.general_words
            ]
            keys = self._keys(words[-4:])
            if keys:
                phrase = low[part_start : match.end()].translate(_ACCENTS)
                out.append(_Condition("then", part_start, match.end(), frozenset(keys), phrase=phrase))
        return out

    def _thresholds(
        self, low: str, start: int, end: int, values: Sequence[tuple[int, int]]
    ) -> list[_Condition]:
        """Thresholds on a value ("từ 300.000 đồng", "over $50", "满300元") or on an earlier one ("dưới
        mức đó", "below that"): conditions on the other values of their comma part."""
        v = self.vocabulary
        out = []
        for match in v.threshold_words.finditer(low, start, end):
            after = match.end() + len(low[match.end() : end]) - len(low[match.end() : end].lstrip())
            term = next(((s, e) for s, e in values if s == after), None)
            if term is not None and self._range(low, term[1], end):
                continue  # "từ 7 giờ đến 22 giờ", "from 9 to 5": a range, not a threshold
            if term is not None:
                phrase = low[match.start() : term[1]].translate(_ACCENTS)
                out.append(_Condition("threshold", match.start(), term[1], frozenset(), phrase=phrase))
                continue
            anaphor = v.anaphors.match(low, after, end) if term is None else None
            if anaphor is not None:
                keys = frozenset(self._keys([match.group()]))
                phrase = low[match.start() : anaphor.end()].translate(_ACCENTS)
                condition = _Condition("threshold", match.start(), anaphor.end(), keys, phrase=phrase)
                out.append(replace(condition, anaphoric=True))
        for begin, stop in values:  # "three years or more", "300.000 đồng trở lên", "300元以上"
            rest = len(low[stop:end]) - len(low[stop:end].lstrip())
            marker = v.thresholds_after.match(low, stop + rest, end)
            if marker is not None and not _inside(_Condition("threshold", begin, stop, frozenset()), out):
                phrase = low[begin : marker.end()].translate(_ACCENTS)
                out.append(_Condition("threshold", begin, marker.end(), frozenset(), phrase=phrase))
        return out

    def _named_goods(self, low: str, start: int, end: int, out: Sequence[_Condition]) -> list[_Condition]:
        """Goods named by the lexicon beside another condition ("اعضای طلایی پوشاک را"): a class."""
        if any(c.kind == "class" for c in out):
            return []
        folded = low.translate(_ACCENTS)
        for group in self.vocabulary.goods:
            for form in group:
                pattern = _whole_words(form, self.vocabulary.endings)
                match = (
                    pattern.search(folded, start, end)
                    if pattern is not None
                    else (re.compile(re.escape(form)).search(folded, start, end))
                )
                if match is not None:
                    keys = frozenset(self._keys([match.group()]))
                    return [_Condition("class", match.start(), match.end(), keys, soft=True, phrase=form)]
        return []

    def _range(self, low: str, position: int, end: int) -> bool:
        rest = len(low[position:end]) - len(low[position:end].lstrip())
        return self.vocabulary.ranges.match(low, position + rest, end) is not None

    def _class(self, low: str, start: int, end: int, match: re.Match[str]) -> _Condition | None:
        """A class of goods with its qualifier ("hàng thời trang", "fashion items", "服装类商品"): a
        condition like a group's (soft: it never hands a scope on to later clauses)."""
        v = self.vocabulary
        part_start, part_end = _part(low, start, end, match.start())
        if " ".join(match.group().split()) in v.class_before:
            words, head, stop = self._before(low, part_start, match.start()), part_start, match.end()
            head = max(part_start, match.start() - 24)
        else:
            words, head, stop = [], match.start(), match.end()
            for word in _TOKEN.finditer(low, match.end(), part_end):
                between = low[stop : word.start()]
                if len(words) >= 2 or any(c.isdigit() or c in ":：" for c in between):
                    break
                if not v.content(word.group()) or word.group() in v.general_words:
                    break
                words.append(word.group())
                stop = word.end()
        if not words or v.general.search(low, head, stop) is not None:
            return None  # "所有订单", "hàng toàn quốc": the general case
        keys = self._keys(words)
        if not keys:
            return None
        phrase = low[head:stop].translate(_ACCENTS)
        return _Condition("class", head, stop, frozenset(keys), soft=True, phrase=phrase)

    def _window(self, low: str, start: int, end: int, limit: int = 4) -> tuple[int, set[str]]:
        """Up to ``limit`` content words after a marker, within its comma part: the condition's name."""
        words: list[str] = []
        stop = start
        # Group nouns name who, not which: "học viên" (two syllables) is no content of the condition.
        low = low[:start] + self.vocabulary.groups.sub(lambda m: " " * len(m.group()), low[start:end])
        for match in _TOKEN.finditer(low, start, end):
            between = low[stop : match.start()]
            if not words and (number := _FIRST_NUMBER.match(between)) is not None:
                words.append(number.group(1))  # "aged 65 and over", "年满70周岁": the age names it
                stop += number.end()
                break
            if len(words) >= limit or any(c.isdigit() or c in ":：" for c in between):
                break
            word = match.group()
            if word in self.vocabulary.general_words:
                return match.end(), set()
            if word in self.vocabulary.stopwords:
                if words:
                    break  # the name ends where the clause goes on: "khu vực miền Bắc | được giao"
                continue
            words.append(word)
            stop = match.end()
        return stop, self._keys(words)

    def _keys(self, words: Sequence[str]) -> set[str]:
        """A condition's keys: its tier words when it names one, else its content words."""
        text = " ".join(words)
        endings = self.vocabulary.endings
        tiers = {tier for tier in self.vocabulary.tier_words if _has(text, tier, endings)}
        if tiers:  # a tier is carried as a phrase: "ưu tiên" is not "rút tiền"
            return {" ".join(tier.translate(_ACCENTS).split()) for tier in tiers}
        return tokens(text.translate(_ACCENTS), endings)

    def _group(self, low: str, surface: str, start: int, end: int, match: re.Match[str]) -> _Condition | None:
        """A group noun's condition, from the qualifier beside it; None when unqualified or general."""
        v = self.vocabulary
        part_start, part_end = _part(low, start, end, match.start())
        noun = " ".join(match.group().split())
        written, low = low, self._unbracketed(low, max(part_start, match.start() - 24), part_end)
        if low[match.start()].isspace():
            return None  # "12元/月（需学生认证）": a noun in a bracket is another name or a note, not a group
        if noun in v.before:
            words, first = self._before(low, part_start, match.start()), part_start
            after = self._linked(low, match.end(), part_end)
            words += after
        else:
            words, first = self._linked(low, match.end(), part_end, link_needed=False), match.start()
        if not words or any(w in v.general_words for w in words):
            return None
        # A key that folds to another language's function word ("thẻ" -> "the") is said by any English
        # question: the nearest word that does not names the group ("bệnh nhân có thẻ BHYT" -> "bhyt").
        named = [w for w in words if w.translate(_ACCENTS) not in v.folded_stopwords] or words
        nearest = named[-1:] if noun in v.before and not after else named[:1]
        tiered = any(_has(" ".join(words), t, v.endings) for t in v.tier_words)
        if not tiered and noun not in v.before and self._general_before(low, part_start, match.start()):
            return None  # "همه مشترکین", "tất cả khách hàng": all of the group, the general case
        if (
            not tiered
            and noun not in v.before
            and not self._named(low, surface, match.end(), part_end)
            and not _labels(low, match.end(), part_end)
        ):
            return None
        keys = self._keys(words if tiered else nearest)
        head = max(first, match.start() - 24) if noun in v.before else match.start()
        end = min(part_end, match.end() + 32)
        if not keys:
            return None
        phrase = written[head:end].translate(_ACCENTS)
        aliases = frozenset(
            key
            for bracket in _PAREN.finditer(written, head, end)
            if low[bracket.start() : bracket.end()].isspace()
            for key in self._keys(_TOKEN.findall(bracket.group(1)))
        )
        return _Condition(
            "group", head, end, frozenset(keys), soft=not tiered, phrase=phrase, aliases=aliases
        )

    def _unbracketed(self, low: str, start: int, end: int) -> str:
        """``low`` without the bracketed names in ``low[start:end]`` ("Platinum card (白金卡) holders",
        "مشترکین قراردادی (دائمی)"): another name of the qualifier, not more of its words. Brackets
        holding a number ("(2.9% per month)") or a clause stay."""
        spans = [
            (bracket.start(), bracket.end())
            for bracket in _PAREN.finditer(low, start, end)
            if not _NUMBER.search(bracket.group(1)) and 0 < len(_TOKEN.findall(bracket.group(1))) <= 3
        ]
        return _blank(low, spans) if spans else low

    def _general_before(self, low: str, start: int, position: int) -> bool:
        """Whether the word just before ``position`` (in its part) marks the general case ("همه")."""
        before = list(_TOKEN.finditer(low, start, position))
        return bool(before) and before[-1].group() in self.vocabulary.general_words

    def _named(self, low: str, surface: str, start: int, end: int) -> bool:
        """Whether the word after a group noun names a group: linked ("có BHYT", "mua gói"), or a name
        written with a capital where the script has case ("khách hàng Ưu tiên"), not a verb ("khách hủy")."""
        match = _TOKEN.search(low, start, end)
        if match is None:
            return False
        if match.group() in self.vocabulary.links:
            return True
        char = surface[match.start()]
        if char.isupper():
            return True
        if char.lower() != char.upper():
            return False
        # no case (Persian): a word a verb follows is the predicate ("حساب مشترک واریز می‌شود")
        after = _TOKEN.search(low, match.end(), end)
        return after is None or after.group() not in self.vocabulary.verbs

    def _before(self, low: str, start: int, end: int) -> list[str]:
        """Up to two content words just before a group noun (English, Chinese: "Premium subscribers")."""
        words: list[str] = []
        for match in reversed(list(_TOKEN.finditer(low, start, end))):
            word = match.group()
            if word in self.vocabulary.group_words:
                end = match.start()
                continue
            if len(words) >= 2 or not self.vocabulary.content(word) or _digit_between(low, match.end(), end):
                break
            if "\u3400" <= word[0] <= "\u9fff":  # the characters after the run's last function word
                word = self._han_split.split(word)[-1]  # "开通超级会员": "超级"
                word = "".join(c for c in word[-4:] if c not in self.vocabulary.stopwords)
            words.insert(0, word)
            end = match.start()
        return [word for word in words if word]

    def _linked(self, low: str, start: int, end: int, *, link_needed: bool = True) -> list[str]:
        """Content words after a group noun: its qualifier ("thành viên Plus", "customers with X")."""
        words: list[str] = []
        linked = not link_needed
        for match in _TOKEN.finditer(low, start, end):
            word = match.group()
            if len(words) >= 3 or _digit_between(low, start, match.start()):
                break
            if word in self.vocabulary.links:
                linked = True
            elif not linked or word in self.vocabulary.stopwords:
                break
            elif word not in self.vocabulary.group_words:
                words.append(word)
            start = match.end()
        return words


_VIETNAMESE = frozenset("ăâđêôơưáàảãạấầẩẫậắằẳẵặéèẻẽẹếềểễệíìỉĩịóòỏõọốồổỗộớờởỡợúùủũụứừửữựýỳỷỹỵ")


def script(low: str) -> str:
    """How a lower-cased text is written, to tell an answer that cannot quote a chunk's words: Han,
    Arabic, Latin with Vietnamese letters, or plain Latin."""
    if any("\u3400" <= char <= "\u9fff" for char in low):
        return "han"
    if any("\u0600" <= char <= "\u06ff" for char in low):
        return "arabic"
    return "vietnamese" if any(char in _VIETNAMESE for char in low) else "latin"


def _has(text: str, form: str, endings: Sequence[str] = ("s", "es")) -> bool:
    """Whether ``form`` is in ``text``: as whole words (maybe with an inflection ending), or anywhere
    for Chinese forms."""
    pattern = _whole_words(form, tuple(endings))
    return form in text if pattern is None else pattern.search(text) is not None


@functools.lru_cache(maxsize=8192)
def _whole_words(form: str, endings: tuple[str, ...] = ("s", "es")) -> re.Pattern[str] | None:
    """The compiled whole-word pattern of a form (None for a Chinese one), built once per form: the
    check asks for the same condition and equivalence forms on every trace. An inflection ending of
    the packs may end it ("annual member" is said in "Annual members get ...", "رایگان" in "رایگانه")."""
    if any("\u3400" <= char <= "\u9fff" for char in form):
        return None
    return re.compile(rf"(?<!\w){_spaced(form)}{_ending_pattern(endings)}(?!\w)")


def _marks(low: str, start: int, end: int) -> set[str]:
    """The footnote marks a clause carries ("0%*", "năm đầu*"); paired stars are Markdown emphasis
    ("**Gói Vàng**: 50GB")."""
    found = [m.group(1) for m in _MARK.finditer(low, start, end)]
    return {mark for mark in found if low.count(mark, start, end) == 1}


def _all_carried(conditions: Sequence[_Condition], carried: Callable[[_Condition], bool]) -> bool:
    """Whether every condition is carried; of a list of cases joined by "and"/"or", one whole branch."""
    branches: dict[int, dict[int, bool]] = {}
    for condition in conditions:
        if condition.branch is None:
            if not carried(condition):
                return False
            continue
        listed, branch = condition.branch
        cases = branches.setdefault(listed, {})
        cases[branch] = cases.get(branch, True) and carried(condition)
    return all(any(cases.values()) for cases in branches.values())


def _beside(condition: _Condition, other: _Condition) -> bool:
    """Whether two conditions stand next to each other, at most a short joining word apart."""
    return 0 <= condition.start - other.end <= 6 or 0 <= other.start - condition.end <= 6  # " and "


def _overlaps(match: re.Match[str], spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < match.end() and match.start() < end for start, end in spans)


def _inside(condition: _Condition, others: Iterable[_Condition]) -> bool:
    return any(o.start <= condition.start < o.end for o in others)


# a row of a list: an optional bullet, a label without a value, a separator not inside a clock ("9:00")
_ROW = re.compile(r"\s*(?:[-•*+]\s*)?([^\n:：|｜]{1,60}?)\s*(?<!\d)[:：|｜]")
_PIPE = re.compile(r"\s[|｜]\s")
_COLON = re.compile(r"[:：]")


def _inline(line: str) -> bool:
    """Whether a line holds several "Label: value" cells split by " | " ("Adult: $16.50 | Child: $11").

    Split, not one regex: a pattern of three unbounded runs backtracked in cubic time on a long line
    of colons without a pipe (a flattened price table: 16 s for 4,000 characters).
    """
    if "|" not in line and "｜" not in line:
        return False
    cells = _PIPE.split(line)
    return any(_COLON.search(a) and _COLON.search(b) for a, b in zip(cells, cells[1:], strict=False))


_UNRULED = re.compile(r"\s*(?:[-•*+]\s*)?([^\W\d_][^\d\n:：|｜]{0,19}?)\s*(?=[0-9$€£¥])")
_LISTED = re.compile(r"[；;\n]\s*$")  # a cell of a list: ended by ";" or a line break
# a number and its word in a row label, one key: "12 tháng", "tier 2" (not "dưới 22" of "dưới 22 tuổi")
_NUMBERED = re.compile(r"(?<!\w)[0-9]+\s*[^\W\d_]+|[^\W\d_]+\s+[0-9]+(?![0-9])(?!\s*[^\W\d_])")
_CELLS = re.compile(r"[^|｜]+")
_ROW_LABEL = re.compile(r"[^\d:：|｜]{0,40}[:：|｜]")
_RULED = re.compile(r"[\d:：|｜]")  # before a row label's word: a value or a separator ends the label


def _plain(label: str) -> str:
    """A row label without its brackets, accent-folded, single-spaced."""
    return " ".join(_PAREN.sub(" ", label).translate(_ACCENTS).split())


def _head(label: str) -> str:
    """A row label's first word ("bậc" of "Bậc 2 (trên 2kg)"; "第" of "第二档"): counted tiers share it."""
    words: list[str] = _TOKEN.findall(_PAREN.sub(" ", label))
    if not words:
        return ""
    return words[0][0] if "\u3400" <= words[0][0] <= "\u9fff" else words[0]


def _labels(low: str, start: int, end: int) -> bool:
    """Whether a group noun's words run up to a row's separator ("Cư dân tòa nhà Phú Gia: 1.200.000đ",
    "Household | $25"): in a label the words after a group noun name it, whatever their case."""
    return _ROW_LABEL.match(low, start, end) is not None


def _digit_between(text: str, start: int, end: int) -> bool:
    return any(char.isdigit() for char in text[start:end])


_REACH = 400  # characters a comma part reaches either side of its value: an unpunctuated run is no part


def _part(low: str, start: int, end: int, position: int) -> tuple[int, int]:
    """The comma part of the clause ``low[start:end]`` around ``position``, at most ``_REACH``
    characters either side (a flattened table without punctuation would otherwise make every value's
    part the whole chunk, and the work per chunk quadratic)."""
    start, end = max(start, position - _REACH), min(end, position + _REACH)
    part_start, part_end = start, end
    for match in _COMMA.finditer(low, start, end):
        if match.end() <= position:
            part_start = match.end()
        elif match.start() >= position:
            part_end = match.start()
            break
    return part_start, part_end


def _clauses(low: str) -> Iterator[tuple[int, int]]:
    """Sentences and ";" parts of a folded chunk."""
    begin = 0
    for stop in [match.end() for match in _CLAUSE_END.finditer(low)] + [len(low)]:
        if stop > begin:
            yield begin, stop
            begin = stop


def _parentheticals(low: str) -> list[tuple[int, int]]:
    return [(match.start(1), match.end(1)) for match in _PAREN.finditer(low)]


def _blank(low: str, spans: Sequence[tuple[int, int]]) -> str:
    """``low`` with ``spans`` replaced by spaces (same length, so offsets stay valid)."""
    for start, end in spans:
        low = low[:start] + " " * (end - start) + low[end:]
    return low
