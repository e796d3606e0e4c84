"""Merge rule packs into one lexicon: lookup tables, precompiled scanners and ignore rules.

Speed matters (every trace, every chunk), so the scanners are built for CPython's ``re``: every
top-level alternative starts with a literal character, which lets ``re`` skip ahead with a
character-set search, and forms are emitted as tries (shared prefixes, longest form first).
The fast scanner only starts at digits and currency signs; the full one also at number words
("bảy", "seven", "七") and spelled currency prefixes ("USD 30"), which costs about three times more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from monitor.exceptions import ConfigError
from monitor.numeric.packs import IgnoreModel, Pack, key

# Digits: 1-3 digits then thousands groups (".", "," or space), or a plain run; then optional decimals.
_DIGITS_REST = r"(?:[0-9]{0,2}(?:[., ][0-9]{3})+(?![0-9])|[0-9]*)(?:[.,][0-9]+)?"
_NOT_BEFORE_DIGITS = r"[A-Za-z0-9]"  # "c07" does not start a number
# nor does the middle of one ("1,500", "v1.5"); a comma after a word ("退款,5天") does
_MID_NUMBER = r"[0-9][.,]"
_SEP = r"(?:\s*-\s*|\s*)"  # "30 ngày", "30ngày", "30-day"
_BEHIND = 24  # characters before a candidate an ignore rule's ``behind`` regex may span


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    tail: str | None = None


def trie_pattern(entries: Mapping[str, str]) -> str:
    """Regex for any literal in ``entries`` (literal -> regex appended after it), longest match first."""
    if not entries:
        return r"(?!)"
    root = _Node()
    for literal, tail in entries.items():
        node = root
        for char in literal:
            node = node.children.setdefault(char, _Node())
        node.tail = tail
    return _emit(root)


def _emit(node: _Node) -> str:
    alternatives = [
        (r"\s+" if char == " " else re.escape(char)) + _emit(child) for char, child in node.children.items()
    ]
    if node.tail is not None:
        alternatives.append(node.tail)  # ending here comes last: longer forms win
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def _case_variants(form: str) -> set[str]:
    return {form, form.upper(), form[:1].upper() + form[1:]}


def _after(form: str, boundary: str | None) -> str:
    """Tail for a unit or multiplier form: it may not run into a following letter in spaced scripts,
    and a sign may not run into a digit ("children under 12 $9": the "$" is the next number's)."""
    if not form[-1].isalpha():
        return "(?![0-9])"
    return f"(?!{boundary})" if boundary else ""


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """A compiled ``ignore`` entry of a pack (see IgnoreModel); cheap: no regex search per candidate."""

    before: tuple[str, ...]  # words in lower, upper and capitalized case
    bounded: frozenset[str]  # the words that may not follow a letter ("thứ" but not "第")
    after: re.Pattern[str] | None = None
    text: re.Pattern[str] | None = None
    units: frozenset[str] = frozenset()
    behind: re.Pattern[str] | None = None  # searched in the few characters before the candidate

    @classmethod
    def compile(cls, model: IgnoreModel, pack: Pack) -> IgnoreRule:
        """Compile the entry once: case variants of the ``before`` words, case-insensitive regexes."""
        before = tuple(sorted({variant for word in model.before for variant in _case_variants(key(word))}))
        return cls(
            before,
            frozenset(before) if pack.model.word_boundaries else frozenset(),
            re.compile(model.after, re.IGNORECASE) if model.after else None,
            re.compile(model.text, re.IGNORECASE) if model.text else None,
            frozenset(model.units),
            re.compile(f"(?:{model.behind})\\Z", re.IGNORECASE) if model.behind else None,
        )

    @property
    def before_only(self) -> bool:
        """True when the rule is only a list of ``before`` words, so it can merge with others."""
        return self.after is None and self.text is None and self.behind is None

    def covers(self, text: str, start: int, end: int) -> bool:
        """Tell whether every condition of the rule holds for the candidate ``text[start:end]``."""
        if self.text is not None and self.text.fullmatch(text, start, end) is None:
            return False
        if self.after is not None and self.after.match(text, end) is None:
            return False
        if self.behind is not None and self.behind.search(text, max(0, start - _BEHIND), start) is None:
            return False
        return not self.before or self._follows_word(text, start)

    def _follows_word(self, text: str, start: int) -> bool:
        """Tell whether one of the ``before`` words ends just before ``start`` (spaces allowed)."""
        while start and text[start - 1].isspace():
            start -= 1
        if not text.endswith(self.before, 0, start):
            return False
        for word in self.before:
            begin = start - len(word)
            if text.startswith(word, begin, start):
                if not (word in self.bounded and begin and text[begin - 1].isalpha()):
                    return True
        return False


def _merge(rules: Sequence[IgnoreRule]) -> list[IgnoreRule]:
    """Merge the rules that are only ``before`` words into one, so a candidate costs one check."""
    words = [rule for rule in rules if rule.before_only]
    merged = [rule for rule in rules if not rule.before_only]
    if words:
        before = tuple(sorted({word for rule in words for word in rule.before}))
        merged.insert(0, IgnoreRule(before, frozenset().union(*(rule.bounded for rule in words))))
    return merged


class _IgnoreIndex:
    """Ignore rules grouped by the unit they apply to, so most candidates meet one rule or none."""

    def __init__(self, rules: Iterable[IgnoreRule], units: Iterable[str]) -> None:
        rules = tuple(rules)
        self._by_unit = {
            unit: tuple(_merge([rule for rule in rules if not rule.units or unit in rule.units]))
            for unit in units
        }

    def covers(self, text: str, start: int, end: int, unit: str) -> bool:
        """Tell whether some rule for ``unit`` covers the candidate ``text[start:end]``."""
        for rule in self._by_unit.get(unit, ()):
            if rule.covers(text, start, end):
                return True
        return False


@dataclass(slots=True)
class _Claims:
    """Form -> meaning tables, refusing a form that two packs give different meanings."""

    meanings: dict[tuple[str, str], object] = field(default_factory=dict)
    origins: dict[tuple[str, str], str] = field(default_factory=dict)

    def claim(self, table: str, form: str, meaning: object, pack: Pack, field_name: str) -> None:
        """Record ``form`` -> ``meaning`` in ``table``; a different earlier meaning is a ConfigError."""
        previous = self.meanings.setdefault((table, form), meaning)
        if previous != meaning:
            origin = self.origins[(table, form)]
            raise ConfigError(
                f"{pack.source}: field {field_name}: {form!r} means {meaning}, but {origin} says {previous}"
            )
        self.origins.setdefault((table, form), f"{pack.source} ({field_name})")


class Lexicon:
    """Every pack merged: written form -> meaning tables, the compiled scanners, the ignore rules."""

    def __init__(self, packs: Iterable[Pack]) -> None:
        packs = list(packs)
        self.units: dict[str, str] = {}
        self.prefixes: dict[str, str] = {}
        self.multipliers: dict[str, tuple[Decimal, str | None]] = {}
        self.words: dict[str, Decimal] = {}
        self.phrase = _PhraseTables()
        self._unit_forms: dict[str, str] = {}
        self._mult_forms: dict[str, str] = {}
        self._prefix_heads: dict[str, str] = {}
        self._word_heads: dict[str, str] = {}
        claims = _Claims()
        rules: list[IgnoreRule] = []
        for pack in packs:
            self._add(pack, claims)
            rules.extend(IgnoreRule.compile(model, pack) for model in pack.model.ignore)
        self.phrase.ambiguous = frozenset(form for form in self.words if form in self.units)
        self.fast_scanner = re.compile(self._scanner_pattern(fast=True))
        self.scanner = re.compile(self._scanner_pattern(fast=False))
        self.prefix_split = re.compile(rf"(?i:{trie_pattern(dict.fromkeys(self.prefixes, ''))})\s*")
        self.multiplier_words = re.compile(f"(?i:{trie_pattern(self._mult_forms)})")
        self.phrase_tokens = re.compile(f"(?i:{trie_pattern(dict.fromkeys(self.phrase.kinds, ''))})")
        self.tail = re.compile(self._tail_pattern())
        ages = sorted({key(w) for pack in packs for w in pack.model.age_words}, key=len, reverse=True)
        # an age word of a pack ("age", "children under"): a bare number after it is an age in years
        self.age_words = (
            re.compile(rf"(?<![^\W\d_])(?:{'|'.join(re.escape(w) for w in ages)})(?![^\W\d_])", re.IGNORECASE)
            if ages
            else None
        )
        known = {
            *self.units.values(),
            *self.prefixes.values(),
            *(u for _, u in self.multipliers.values() if u),
        }
        self._ignore = _IgnoreIndex(rules, known)
        joins = sorted({key(w) for pack in packs for w in pack.model.range_words}, key=len, reverse=True)
        words = "|".join(re.escape(w) for w in joins)
        # a larger scale's part right before an amount ("4 triệu 200 nghìn", "۴ میلیون و ۲۰۰ هزار",
        # "4万2千"): the number, its scale word and maybe a joiner ("و", "lẻ", "零")
        joiners = "|".join(re.escape(w) for w in sorted(self.phrase.joiner_forms, key=len, reverse=True))
        scale = trie_pattern(self._mult_forms)
        self.compound_lead = re.compile(
            rf"(?<![\d.,])(\d+(?:[.,]\d+)?)\s*({scale})\s*(?:(?:{joiners or '(?!)'})\s*)?$", re.IGNORECASE
        )
        # a range's first number right before the quantity that ends it: "3-", "16 to ", "3至"
        self.range_start = re.compile(
            rf"(?<![\d:])(?<!\d[.,])(\d+(?:[.,]\d+)?)\s*(?:[-–~〜]|(?<![^\W\d_])(?:{words or '(?!)'}))\s*$"
        )

    def tail_unit(self, text: str, end: int) -> bool:
        """Whether a unit or scale word follows the number ending at ``end`` ("21 kg", "12 triệu")."""
        tail = self.tail.match(text, end)
        return tail is not None and bool(tail.group("unit") or tail.group("mult"))

    def unit_of(self, written: str) -> str:
        """Return the canonical unit of a unit form as matched by a scanner."""
        return self.units.get(written) or self.units[key(written)]

    def ignored(self, text: str, start: int, end: int, unit: str) -> bool:
        """Tell whether an ignore rule (a date, a weekday) covers the candidate ``text[start:end]``."""
        return self._ignore.covers(text, start, end, unit)

    def read_words(self, text: str) -> tuple[Decimal, int, str | None] | None:
        """Read a spelled number at the start of ``text`` ("hai mươi lăm", "twenty-five", "一点六五").

        Returns the value, where the number ends in ``text`` and the default unit of a scale word in
        it ("ba trăm nghìn" is VND), or None when no number word starts ``text``.
        """
        tokens = [(match.group().casefold(), match.end()) for match in self.phrase_tokens.finditer(text)]
        first = self.phrase_tokens.match(text)
        return self.phrase.read(tokens) if first is not None else None

    def _scanner_pattern(self, *, fast: bool) -> str:
        digits = {
            str(digit): f"(?<!{_NOT_BEFORE_DIGITS}.)(?<!{_MID_NUMBER}.){_DIGITS_REST}" for digit in range(10)
        }
        words = f"{trie_pattern(self._word_heads)}{self._phrase_rest()}"
        number = f"[0-9]{_DIGITS_REST}" if fast else f"(?:[0-9]{_DIGITS_REST}|{words})"
        prefixes = {f: tail for f, tail in self._prefix_heads.items() if not (fast and f[0].isalpha())}
        # The number after a currency prefix is written once, not once per prefix form: spelled
        # numbers make it long, and a copy per form made the scanner slow to compile.
        # the fast pass skips prefixes that start with a letter ("HK$", "A$"): their sign alone is no
        # prefix there, or "HK$30" would read as US$30 and support an answer's "US$30"
        named = r"(?<![A-Za-z])" if fast else ""
        heads = [trie_pattern(digits), rf"{named}{trie_pattern(prefixes)}\s*{number}"]
        if not fast:
            heads.append(words)
        return f"(?:{'|'.join(heads)})" + self._tail_pattern()

    def _tail_pattern(self) -> str:
        mult = f"(?i:{trie_pattern(self._mult_forms)})"
        unit = f"(?i:{trie_pattern(self._unit_forms)})"
        return f"(?P<mult>(?:{_SEP}{mult})*)(?:{_SEP}(?P<unit>{unit}))?"

    def _phrase_rest(self) -> str:
        """What may follow a spelled number's first word: more number words, a decimal part, a fraction."""
        p = self.phrase
        more, joiner = f"(?i:{trie_pattern(p.more_forms)})", f"(?i:{trie_pattern(p.joiner_forms)})"
        decimal, fraction = f"(?i:{trie_pattern(p.decimal_forms)})", f"(?i:{trie_pattern(p.fraction_forms)})"
        return (
            f"(?:{_SEP}(?:{joiner}{_SEP})?{more})*(?:{_SEP}{decimal}(?:{_SEP}{more})+)?(?:{_SEP}{fraction})?"
        )

    def _add(self, pack: Pack, claims: _Claims) -> None:
        model = pack.model
        for unit, forms in model.units.items():
            for form in map(key, forms):
                claims.claim("unit", form, unit, pack, f"units.{unit}")
                self.units[form] = unit
                self._unit_forms[form] = _after(form, pack.letter_class)
        for unit, forms in model.prefix_units.items():
            for form in map(key, forms):
                claims.claim("head", form, f"prefix {unit}", pack, f"prefix_units.{unit}")
                self.prefixes[form] = unit
                _add_head(self._prefix_heads, form, pack.letter_class, "")
        for word, mult in model.multipliers.items():
            claims.claim("multiplier", key(word), (mult.value, mult.unit), pack, f"multipliers.{word}")
            self.multipliers[key(word)] = (mult.value, mult.unit)
            self._mult_forms[key(word)] = _after(key(word), pack.letter_class)
        # In scripts without spaces a spelled number runs on ("二十五天"): the run is read whole.
        after = f"(?!{pack.word_class})" if model.word_boundaries else ""
        for word, value in model.number_words.items():
            claims.claim("head", key(word), f"number {value}", pack, f"number_words.{word}")
            self.words[key(word)] = value
            _add_head(self._word_heads, key(word), pack.word_class, after)
        for word, value in model.scales.items():
            claims.claim("head", key(word), f"scale {value}", pack, f"scales.{word}")
            _add_head(self._word_heads, key(word), pack.word_class, after)
        self.phrase.add(pack, after)


_Kind = tuple[str, Decimal, str | None]  # (atom | scale | more | joiner | decimal | fraction, value, unit)


@dataclass(slots=True)
class _PhraseTables:
    """The words of spelled numbers, and the reader that turns a run of them into one value.

    Values combine as people say them: a scale word multiplies the smaller amounts said just before
    it ("hai trăm năm mươi nghìn" = (2 x 100 + 5 x 10) x 1000, "二千五百万" = 25 000 000); two number
    words in a row add only when the second is below the first's last place ("mười hai", "twenty
    five", but not "một năm", which is one year); a word that is also a unit ("năm": five, year)
    is a number there only when a scale word follows it.
    """

    kinds: dict[str, _Kind] = field(default_factory=dict)
    more_forms: dict[str, str] = field(default_factory=dict)
    joiner_forms: dict[str, str] = field(default_factory=dict)
    decimal_forms: dict[str, str] = field(default_factory=dict)
    fraction_forms: dict[str, str] = field(default_factory=dict)
    ambiguous: frozenset[str] = frozenset()

    def add(self, pack: Pack, after: str) -> None:
        """Add one pack's number words, scales, multipliers, joiners, decimal points and fractions."""
        m = pack.model
        tables: list[tuple[str, dict[str, Decimal | None], dict[str, str]]] = [
            ("atom", dict(m.number_words), self.more_forms),
            ("scale", dict(m.scales), self.more_forms),
            ("scale", {word: mult.value for word, mult in m.multipliers.items()}, self.more_forms),
            ("more", dict(m.continuations), self.more_forms),
            ("joiner", dict.fromkeys(m.joiners), self.joiner_forms),
            ("decimal", dict.fromkeys(m.decimal_words), self.decimal_forms),
            ("fraction", dict(m.fractions), self.fraction_forms),
        ]
        for kind, words, forms in tables:
            for word, value in words.items():
                form = key(word)
                unit = m.multipliers[word].unit if word in m.multipliers else None
                self.kinds.setdefault(form, (kind, value if value is not None else Decimal(0), unit))
                forms[form] = after if form[-1].isalpha() else ""

    def read(self, tokens: Sequence[tuple[str, int]]) -> tuple[Decimal, int, str | None] | None:
        """Combine ``(word, end)`` tokens into ``(value, end of the last word read, default unit)``."""
        stack: list[Decimal] = []
        end, unit, previous, decimals = 0, None, "", ""
        for index, (form, stop) in enumerate(tokens):
            kind, value, scale_unit = self.kinds[form]
            following = self.kinds[tokens[index + 1][0]][0] if index + 1 < len(tokens) else ""
            if decimals or previous == "decimal":
                if kind not in ("atom", "more") or value >= 10:
                    break
                decimals, end = decimals + str(int(value)), stop
            elif kind in ("joiner", "decimal"):
                if not stack or following not in ("atom", "more", "scale"):
                    break
            elif kind == "fraction":
                if not stack:
                    break
                stack.append(value)
                end = stop
                break
            elif kind == "scale":
                below = Decimal(0)
                while stack and stack[-1] < value:
                    below += stack.pop()
                stack.append((below or 1) * value)
                unit, end = scale_unit or unit, stop
            else:  # atom or continuation
                if not self._adds(stack, previous, kind, form, value, following):
                    break
                if previous == "atom" or previous == "more":
                    stack[-1] += value
                else:
                    stack.append(value)
                end = stop
            previous = kind
        if not stack:
            return None
        total = sum(stack, Decimal(0)) + (Decimal("0." + decimals) if decimals else Decimal(0))
        return total, end, unit

    def _adds(
        self, stack: list[Decimal], previous: str, kind: str, form: str, value: Decimal, following: str
    ) -> bool:
        """Tell whether a number word continues the number read so far (see the class docstring)."""
        if not stack:
            return kind == "atom"
        if form in self.ambiguous and previous != "joiner" and following != "scale":
            return False
        return value < _place(stack[-1])


def _place(value: Decimal) -> Decimal:
    """The lowest nonzero place of a whole number: 20 -> 10, 500 -> 100, 12 -> 1."""
    place = Decimal(1)
    number = int(value)
    while number and number % 10 == 0:
        number //= 10
        place *= 10
    return place if value == value.to_integral_value() and value else Decimal(1)


def _add_head(heads: dict[str, str], form: str, boundary: str | None, tail: str) -> None:
    """Add ``form`` in lower, upper and capitalized case, each refusing a letter just before it."""
    for variant in _case_variants(form):
        before = f"(?<!{boundary}.{{{len(variant)}}})" if boundary and variant[0].isalpha() else ""
        heads[variant] = before + tail
