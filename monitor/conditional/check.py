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

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from monitor.conditional.model import ConditionalFinding, ConditionalReport
from monitor.conditional.packs import ConditionalPack, load_packs
from monitor.numeric import NumericRules, Quantity
from monitor.numeric.text import fold as fold_digits
from monitor.numeric.text import nfc, parse_number
from monitor.rulepacks import RulePacks

DEFAULT_CONTEXT_CACHE = 4096  # analysed chunk texts remembered: the same policy chunks recur
DEFAULT_CARRIED_SHARE = 0.5  # share of a condition's content words the question/answer must hold

_CLAUSE_END = re.compile(r"[.!?؟](?=\s|$)|[。！？；;؛\n]")
_PAREN = re.compile(r"[(（]([^()（）]*)[)）]")
_COMMA = re.compile(r"[,，、،](?!\d)|\s[-–—]\s")
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

    kind: str  # if | except | scope | group
    start: int
    end: int
    keys: frozenset[str]
    soft: bool = False  # a group qualified by a plain word, not a tier: maybe only a brand or a topic
    phrase: str = ""  # the condition's words, accent-folded: matched against cross-language equivalents
    terms: frozenset[_Amount] = frozenset()  # values naming the condition ("claims up to 5,000元")


@dataclass(frozen=True, slots=True)
class _Statement:
    """A value the context states, with the conditions bound to it (none: it holds generally)."""

    amount: _Amount
    conditions: tuple[_Condition, ...]
    chunk: str
    text: str


class _Vocabulary:
    """Every pack merged into compiled matchers (answers and chunks mix languages, like numeric)."""

    def __init__(self, packs: Sequence[ConditionalPack]) -> None:
        self.languages = tuple(pack.language for pack in packs)
        self.if_markers = _matcher(packs, lambda p: p.if_markers)
        self.leading_markers = _matcher(packs, lambda p: p.leading_markers)
        self.except_markers = _matcher(packs, lambda p: p.except_markers)
        self.scope_markers = _matcher(packs, lambda p: p.scope_markers)
        self.groups = _matcher(packs, lambda p: p.groups)
        self.tiers = _matcher(packs, lambda p: p.tiers)
        self.general = _matcher(packs, lambda p: p.general)
        self.tier_words = _words(packs, lambda p: p.tiers)
        self.general_words = _words(packs, lambda p: p.general)
        self.links = _words(packs, lambda p: p.links)
        self.stopwords = _words(packs, lambda p: p.stopwords)
        self.group_words = _words(packs, lambda p: p.groups)
        self.before = _words(packs, lambda p: p.groups if p.qualifier_side == "before" else [])
        self.carry_markers = _matcher(packs, lambda p: p.carry_markers)
        self.negations = _matcher(packs, lambda p: p.negations)
        self.thresholds = _ending(packs, lambda p: p.thresholds)
        self.equivalents = tuple(
            tuple(" ".join(fold(form).split()) for form in group)
            for pack in packs
            for group in pack.equivalents
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


def _words(packs: Iterable[ConditionalPack], field: _Field) -> frozenset[str]:
    return frozenset(" ".join(lower(form).split()) for pack in packs for form in field(pack))


def _matcher(packs: Iterable[ConditionalPack], field: _Field) -> re.Pattern[str]:
    """One regex for the forms of a field, longest first; spaced scripts match whole words only."""
    forms: dict[str, bool] = {}
    for pack in packs:
        for form in field(pack):
            forms[" ".join(lower(form).split())] = pack.word_boundaries
    if not forms:
        return re.compile(r"(?!)")
    parts = [
        (rf"(?<!\w){_spaced(form)}(?!\w)" if bounded else re.escape(form))
        for form, bounded in sorted(forms.items(), key=lambda item: -len(item[0]))
    ]
    return re.compile("|".join(parts))


def _ending(packs: Iterable[ConditionalPack], field: _Field) -> re.Pattern[str]:
    """A regex for text ending with one of the field's forms (then a space)."""
    forms = sorted({" ".join(lower(form).split()) for pack in packs for form in field(pack)}, key=len)
    if not forms:
        return re.compile(r"(?!)")
    return re.compile("(?:" + "|".join(_spaced(form) for form in reversed(forms)) + r")\s*$")


def _spaced(form: str) -> str:
    return r"[\s-]+".join(re.escape(word) for word in form.split())  # "outer city", "outer-city"


def tokens(text: str) -> set[str]:
    """Content-word keys of folded ``text``: words (a plural's "s" dropped), Chinese character pairs and
    whole numbers ("65")."""
    keys: set[str] = set(_NUMBER.findall(text))
    for run in _TOKEN.findall(text):
        if "\u3400" <= run[0] <= "\u9fff":
            keys.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
        else:
            keys.add(run)
            if len(run) > 3 and run.endswith("s"):
                keys.add(run[:-1])
    return keys


class _Asked:
    """What the question and the answer say, folded: their content words, text and quantities."""

    def __init__(self, text: str, amounts: Iterable[_Amount] = ()) -> None:
        self.text = text
        self.words = tokens(text)
        self.amounts = frozenset(amounts)

    def holds(self, key: str) -> bool:
        """Whether a condition key (a word, a character pair or a tier phrase) is said."""
        return key in self.words or (" " in key or not key.isascii()) and _has(self.text, key)


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
        said = self._asserted(answer)
        if not said or not contexts:
            return ConditionalReport()
        statements = [s for context in contexts for s in self._statements(context)]
        asked = _Asked(
            fold(f"{question}\n{answer}"),
            [(q.value, q.unit) for q in [*said, *self._quantities(question)]],
        )
        findings, qualified = [], []
        for quantity in said:
            finding = self._finding(quantity, statements, asked)
            if finding is not None:
                findings.append(finding)
            elif self._qualified(quantity, statements, asked):
                qualified.append(quantity)
        return ConditionalReport(tuple(findings), tuple(qualified))

    def _qualified(self, quantity: Quantity, statements: Sequence[_Statement], asked: _Asked) -> bool:
        """Whether a condition-bound statement supports the value and the question or answer carries
        every one of its conditions."""
        amount = (quantity.value, quantity.unit)
        return any(
            s.amount == amount and s.conditions and all(self._carried(c, asked) for c in s.conditions)
            for s in statements
        )

    def _finding(
        self, quantity: Quantity, statements: Sequence[_Statement], asked: _Asked
    ) -> ConditionalFinding | None:
        amount = (quantity.value, quantity.unit)
        support = [s for s in statements if s.amount == amount]
        if not support and quantity.unit.startswith(_COUNT):  # "6 lounge visits" for "6 visits"
            support = [s for s in statements if s.amount[0] == quantity.value and _COUNT in s.amount[1]]
        if not support or any(all(self._carried(c, asked) for c in s.conditions) for s in support):
            return None
        kind = self.vocabulary.kind(support[0].amount[1])
        general = {
            s.amount: s.text
            for s in statements
            if self.vocabulary.kind(s.amount[1]) == kind
            and s.amount[0] != quantity.value
            and all(c.soft or self._carried(c, asked) for c in s.conditions)
        }
        condition = support[0].conditions[0]
        text = " ".join(support[0].chunk[condition.start : condition.end].split())
        others = tuple(Quantity(value, unit, written) for (value, unit), written in general.items())
        return ConditionalFinding(quantity.text, quantity.value, quantity.unit, text, others)

    def _carried(self, condition: _Condition, asked: _Asked) -> bool:
        """Whether the question or answer carries ``condition``: enough of its content words, or, in
        another language, an equivalent of a phrase in it ("nội thành" for "inner city", "市区")."""
        found = sum(1 for key in condition.keys if asked.holds(key))
        if found > 0 and found >= self.carried_share * len(condition.keys):
            return True
        if condition.terms & asked.amounts:  # "Claims up to 5,000 yuan: ..." states the condition
            return True
        return any(
            any(_has(condition.phrase, form) for form in group) and any(asked.holds(form) for form in group)
            for group in self.vocabulary.equivalents
        )

    # --- reading a chunk ----------------------------------------------------------------------------

    def _asserted(self, answer: str) -> list[Quantity]:
        """The answer's values, less those it denies ("Phones don't get 30 days", "手机没有30天政策")."""
        low = lower(answer)
        said = []
        for start, _, quantity in self._found(answer):
            clause = max(low.rfind(mark, 0, start) for mark in ".;!?。；！？,，")
            if self.vocabulary.negations.search(low, clause + 1, start) is None:
                said.append(quantity)
        return list(dict.fromkeys(said))

    def _quantities(self, text: str) -> list[Quantity]:
        """Numeric quantities of ``text`` and counted things ("20 lần", "4 times", "5次"), once each."""
        return list(dict.fromkeys(q for _, _, q in self._found(text)))

    def _found(self, text: str) -> list[tuple[int, int, Quantity]]:
        found = self.numeric.locate(text)
        folded = fold(text)
        taken = [(start, end) for start, end, _ in found]
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
        carried: tuple[_Condition, ...] = ()
        for start, end in _clauses(low):
            parts = [(low, a, b) for a, b in inner if start <= a < end] + [(outer, start, end)]
            for text, begin, stop in parts:
                here = [(s, e, q) for s, e, q in found if begin <= s < stop and text[s] == low[s]]
                conditions = self._conditions(text, surface, begin, stop, [(s, e) for s, e, _ in here])
                conditions = [self._with_terms(text, c, here) for c in conditions]
                general = self.vocabulary.general.search(text, begin, stop) is not None
                if conditions or general:
                    carried = ()
                for position, _, quantity in here:
                    bound = self._bound(text, begin, stop, position, conditions) or carried
                    out.append(_Statement((quantity.value, quantity.unit), bound, surface, quantity.text))
                carried = self._carry(text, begin, stop, conditions, [s for s, _, _ in here]) or carried
        return tuple(out)

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
        groups = [c for c in inside if c.kind == "group"]
        before = [c for c in conditions if c.kind == "group" and c.start < position]
        if groups or not general_part:  # "các gói khác được 3 GB": the part itself is the general case
            bound += groups or before[-1:]  # a later part with its own group starts a new case
        return tuple(bound)

    def _with_terms(
        self, low: str, condition: _Condition, values: Sequence[tuple[int, int, Quantity]]
    ) -> _Condition:
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
                if kind == "except" and v.general.search(low, part_start, match.start()):
                    # "All plans except Premium include 5 GB": the general case, less one
                    excluded.append(_Condition(kind, match.start(), max(stop, match.end()), frozenset()))
                    continue
                begin = match.start()
                if not keys and kind == "scope":  # "VIP会员专享": the scope is named before the marker
                    words = self._before(low, part_start, match.start())
                    keys, begin = self._keys(words), part_start
                if keys:
                    phrase = low[begin:stop].translate(_ACCENTS)
                    out.append(_Condition(kind, match.start(), stop, frozenset(keys), phrase=phrase))
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
        return sorted(out, key=lambda c: c.start)

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
        tiers = {tier for tier in self.vocabulary.tier_words if _has(text, tier)}
        if tiers:  # a tier is carried as a phrase: "ưu tiên" is not "rút tiền"
            return {" ".join(tier.translate(_ACCENTS).split()) for tier in tiers}
        return tokens(text.translate(_ACCENTS))

    def _group(self, low: str, surface: str, start: int, end: int, match: re.Match[str]) -> _Condition | None:
        """A group noun's condition, from the qualifier beside it; None when unqualified or general."""
        v = self.vocabulary
        part_start, part_end = _part(low, start, end, match.start())
        noun = " ".join(match.group().split())
        if noun in v.before:
            words, first = self._before(low, part_start, match.start()), part_start
            after = self._linked(low, match.end(), part_end)
            words += after
        else:
            words, first = self._linked(low, match.end(), part_end, link_needed=False), match.start()
        if not words or any(w in v.general_words for w in words):
            return None
        nearest = words[-1:] if noun in v.before and not after else words[:1]
        tiered = any(_has(" ".join(words), t) for t in v.tier_words)
        if not tiered and noun not in v.before and not self._named(low, surface, match.end(), part_end):
            return None
        keys = self._keys(words if tiered else nearest)
        head = max(first, match.start() - 24) if noun in v.before else match.start()
        end = min(part_end, match.end() + 32)
        if not keys:
            return None
        phrase = low[head:end].translate(_ACCENTS)
        return _Condition("group", head, end, frozenset(keys), soft=not tiered, phrase=phrase)

    def _named(self, low: str, surface: str, start: int, end: int) -> bool:
        """Whether the word after a group noun names a group: linked ("có BHYT", "mua gói"), or a name
        written with a capital where the script has case ("khách hàng Ưu tiên"), not a verb ("khách hủy")."""
        match = _TOKEN.search(low, start, end)
        if match is None:
            return False
        if match.group() in self.vocabulary.links:
            return True
        char = surface[match.start()]
        return char.isupper() or char.lower() == char.upper()  # no case (Persian): nothing to tell

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
            if "\u3400" <= word[0] <= "\u9fff":
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


def _has(text: str, form: str) -> bool:
    """Whether ``form`` is in ``text``: as whole words, or anywhere for Chinese forms."""
    pattern = _whole_words(form)
    return form in text if pattern is None else pattern.search(text) is not None


@functools.lru_cache(maxsize=8192)
def _whole_words(form: str) -> re.Pattern[str] | None:
    """The compiled whole-word pattern of a form (None for a Chinese one), built once per form: the
    check asks for the same condition and equivalence forms on every trace."""
    if any("\u3400" <= char <= "\u9fff" for char in form):
        return None
    return re.compile(rf"(?<!\w){_spaced(form)}(?!\w)")


def _overlaps(match: re.Match[str], spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < match.end() and match.start() < end for start, end in spans)


def _inside(condition: _Condition, others: Iterable[_Condition]) -> bool:
    return any(o.start <= condition.start < o.end for o in others)


def _digit_between(text: str, start: int, end: int) -> bool:
    return any(char.isdigit() for char in text[start:end])


def _part(low: str, start: int, end: int, position: int) -> tuple[int, int]:
    """The comma part of the clause ``low[start:end]`` around ``position``."""
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
