"""The numeric rules: extract number+unit quantities and compare answer, context and reference."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from monitor.numeric.lexicon import Lexicon
from monitor.numeric.model import Conflict, NumericReport, Quantity, ReferenceReport
from monitor.numeric.packs import ComplementModel, Pack, key, load_catalog, load_packs
from monitor.numeric.periods import Periods
from monitor.numeric.text import canonical, fold, nfc, parse_number

_LEADING_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*")

DEFAULT_CONTEXT_CACHE = 4096  # distinct chunk texts remembered: the same policy chunks recur across traces

_Amount = tuple[Decimal, str]  # (value, canonical unit): what equality of quantities means
_Hit = tuple[int, int, Decimal, str]  # (start, end, value, unit) in the scanned text
_Read = tuple[_Amount | None, int]  # what a scanner match means, and how many of its characters it takes
_Rated = tuple[_Amount, str | None]  # an amount and the rate period written beside it, if any
_AMOUNT_MEMO = 65536  # matched texts whose amount is remembered (a match's amount depends on its text only)


class NumericRules:
    """Number+unit extraction with every loaded pack at once, and the checks built on it.

    Build once (``NumericRules.load()``) and share: it holds compiled, read-only state and a
    thread-safe cache, so one instance serves every trace and thread. Answers mix languages, so
    all packs always apply.
    """

    def __init__(
        self,
        packs: Sequence[Pack],
        *,
        context_cache: int = DEFAULT_CONTEXT_CACHE,
        kinds: Mapping[str, str] | None = None,
        complements: Mapping[str, ComplementModel] | None = None,
    ) -> None:
        self._lexicon = Lexicon(packs)
        self._complements: Mapping[str, ComplementModel] = complements or {}  # "9.5折" is 5% off
        self._periods = Periods(packs)
        self._kinds: Mapping[str, str] = kinds or {}  # unit -> kind of quantity (common/units.yaml)
        self.languages = tuple(pack.model.language for pack in packs)
        self._context_amounts = functools.lru_cache(maxsize=context_cache)(self._fast_amounts)
        self._context_all_amounts = functools.lru_cache(maxsize=context_cache)(self._all_amounts)
        # each chunk's amounts with their periods, read for rated answers: the fast scanner first, in
        # full (spelled numbers, "HK$") when a rated amount is not found that way
        cache = functools.lru_cache(maxsize=context_cache)
        self._context_periods = cache(functools.partial(self._rated, scanner=self._lexicon.fast_scanner))
        self._context_all_periods = cache(functools.partial(self._rated, scanner=self._lexicon.scanner))
        self._amounts: dict[str, _Read] = {}  # matched text -> amount; the same "7 ngày" recurs
        # each chunk as the scanners read it, for an answer quantity written as the chunk writes it
        self._context_text = functools.lru_cache(maxsize=context_cache)(_normalized)

    @classmethod
    def load(
        cls, directory: Path | None = None, *, context_cache: int = DEFAULT_CONTEXT_CACHE
    ) -> NumericRules:
        """Load the packs in ``directory`` (None: the packaged rules/numeric); ConfigError if one is bad."""
        root: Traversable = directory if directory is not None else files("monitor") / "rules" / "numeric"
        catalog = load_catalog(root)
        _, packs = load_packs(root, catalog)
        return cls(
            packs, context_cache=context_cache, kinds=catalog.unit_kinds(), complements=catalog.complements
        )

    def extract(self, text: str) -> list[Quantity]:
        """Return the quantities written in ``text``, in order; bare numbers (years, phones) are skipped."""
        return [quantity for _, _, quantity in self.locate(text)]

    def locate(self, text: str) -> list[tuple[int, int, Quantity]]:
        """The quantities of ``text`` with their offsets in ``nfc(text)``, in order (review highlighting)."""
        return self._located(text)[1]

    def _located(self, text: str) -> tuple[str, list[tuple[int, int, Quantity]]]:
        """``locate``, with the normalized text its offsets index (periods are read on it)."""
        surface = nfc(text)
        folded = fold(surface)
        return folded, [
            (start, end, Quantity(value, unit, surface[start:end]))
            for start, end, value, unit in self._hits(folded, self._lexicon.scanner)
        ]

    def number_at(self, text: str) -> tuple[Decimal, int] | None:
        """The number that starts ``text`` without a unit (digits or number words: "七十", "sáu
        mươi", "sixty-five") and where it ends; None when none does. For words that make a bare
        number a quantity of their own ("年满七十", "aged 65")."""
        folded = fold(nfc(text))
        digits = _LEADING_NUMBER.match(folded)
        if digits is not None:
            return parse_number(digits.group()), digits.end()
        words = self._lexicon.read_words(folded)
        return None if words is None else (canonical(words[0]), words[1])

    def check(self, answer: str, contexts: Sequence[str], question: str = "") -> NumericReport:
        """Reference-free check: answer quantities found in no chunk, and chunks that disagree.

        Chunks are read with the fast scanner (digits and currency signs, cached per chunk text);
        only when an answer quantity is not found that way are they read in full (number words too).
        A quantity with a rate period ("每季度1,200元") is unsupported as well when every chunk that
        writes its amount gives it another period ("每年1,200元"); one without a period never is. One
        unit of a period a chunk writes ("一年", "1 năm" beside "每年") stands in that chunk. The
        customer's own quantity, from ``question``, restated beside a supported one of its kind is no
        claim about the policy ("4 km is inside our 5 km area").
        """
        text, located = self._located(answer)
        said = _unique(quantity for _, _, quantity in located)
        per_chunk = [self._context_amounts(context) for context in contexts]
        supported: frozenset[_Amount] = frozenset().union(*per_chunk)
        unsupported = [quantity for quantity in said if (quantity.value, quantity.unit) not in supported]
        if unsupported:
            full = frozenset().union(*(self._context_all_amounts(context) for context in contexts))
            unsupported = [
                quantity for quantity in unsupported if (quantity.value, quantity.unit) not in full
            ]
        if unsupported:  # "4K" as the chunk writes it ("4K超高清"), however the packs read either
            folded = [self._context_text(context) for context in contexts]
            unsupported = [q for q in unsupported if not any(_written(q.text, chunk) for chunk in folded)]
            if unsupported:  # "A$24" for an Australian policy's "$24": a bare "$" names no country
                unsupported = [q for q in unsupported if not _dollar_alike(q, full, folded)]
            if unsupported and self._lexicon.age_words is not None:  # "21 سال" for "the minimum age is 21"
                unsupported = [
                    q for q in unsupported if not (q.unit == _AGE and self._bare_age(q.value, folded))
                ]
        if unsupported and question:  # "9 روز از تحویل گذشته" beside the policy's "مهلت ۱۰ روزه"
            unsupported = self._not_echoed(unsupported, said, question)
        if self._periods.known and any(quantity.value == 1 for quantity in unsupported):
            # "一年保费1,200元" over "每年1,200元": a year is the period the chunk writes
            spans = {period for context in contexts for _, period in self._context_periods(context)}
            unsupported = [q for q in unsupported if not (q.value == 1 and q.unit in spans)]
        if located and self._periods.known:
            rated = [
                (quantity, period)
                for start, end, quantity in located
                if (period := self._periods.of(text, start, end)) is not None
            ]
            if rated:
                unsupported.extend(_unique(self._off_period(rated, contexts, unsupported)))
        return NumericReport(tuple(unsupported), _conflicts(per_chunk, {quantity.unit for quantity in said}))

    def _not_echoed(
        self, unsupported: list[Quantity], said: Sequence[Quantity], question: str
    ) -> list[Quantity]:
        """``unsupported`` without the customer's own quantities, restated beside the policy's: a
        quantity the question states, in an answer that also states a supported one of its kind ("4
        km" for "4 km from the shop?": "4 km is inside our 5 km area"). A number the question
        offers and the answer only confirms ("30 days?" "Yes, 30 days") stays unsupported."""
        asked = {(q.value, q.unit) for q in self.extract(question)}
        if not asked:
            return unsupported
        held = {self.kind(q.unit) for q in said if q not in unsupported}
        return [q for q in unsupported if (q.value, q.unit) not in asked or self.kind(q.unit) not in held]

    def _bare_age(self, value: Decimal, chunks: Sequence[str]) -> bool:
        """Whether a chunk writes ``value`` as a bare number shortly after an age word ("the minimum
        check-in age is 21", "children under 12"), with no unit of its own after it."""
        ages = self._lexicon.age_words
        assert ages is not None  # noqa: S101 - checked by the caller
        for chunk in chunks:
            for match in _BARE_NUMBER.finditer(chunk):
                if parse_number(match.group()) != value or self._lexicon.tail_unit(chunk, match.end()):
                    continue
                if ages.search(chunk, max(0, match.start() - _AGE_REACH), match.start()) is not None:
                    return True
        return False

    def _off_period(
        self, rated: Sequence[tuple[Quantity, str]], contexts: Sequence[str], unsupported: Sequence[Quantity]
    ) -> Iterator[Quantity]:
        """The answer's rated quantities whose amount every chunk writes with another period only.

        Chunks are read with the fast scanner first; in full (spelled numbers, "HK$") only when one of
        the rated amounts is not found that way.
        """
        written = _written_periods(contexts, self._context_periods)
        if any((quantity.value, quantity.unit) not in written for quantity, _ in rated):
            written = _written_periods(contexts, self._context_all_periods)
        for quantity, period in rated:
            periods = written.get((quantity.value, quantity.unit))
            if periods and None not in periods and period not in periods and quantity not in unsupported:
                yield quantity

    def check_reference(
        self,
        answer: str,
        expected_answer: str,
        expected_sources: Sequence[str],
        *,
        omissions: bool = True,
    ) -> ReferenceReport:
        """Golden check (seed 000 section 5): expected numbers the answer lacks, answer numbers off-source.

        ``omissions=False`` (live traffic) counts an expected number as missing only when the answer
        says another value of its kind instead ("30 ngày" for "7 ngày", "5 ngày" for "5 ngày làm
        việc"): a chat answer shorter than the reference answer leaves figures out without being wrong.
        A CI gate over the golden questions keeps the strict rule (``omissions=True``).
        """
        said = _unique(self.extract(answer))
        sources: set[Quantity] = set().union(*(self.extract(source) for source in expected_sources))
        expected = _unique(self.extract(expected_answer))
        # kinds in which the answer says something the reference does not ("30 ngày" beside "7 ngày");
        # an answer giving one of the reference's two data allowances contradicts neither, and one that
        # gives an expected value beside another the expected sources state ("14 days", then "5 business
        # days" to the refund) leaves the rest of that kind out ("Thirty days" for Premium subscribers)
        agreed = {self.kind(quantity.unit) for quantity in said if quantity in expected}
        contradicted = {
            kind
            for quantity in said
            if quantity not in expected
            and ((kind := self.kind(quantity.unit)) not in agreed or quantity not in sources)
        }
        missing = tuple(
            quantity
            for quantity in expected
            if quantity not in said and (omissions or self.kind(quantity.unit) in contradicted)
        )
        return ReferenceReport(missing, tuple(quantity for quantity in said if quantity not in sources))

    def kind(self, unit: str | None) -> str | None:
        """The kind of quantity a unit measures ("duration", "money"), or the unit itself."""
        return self._kinds.get(unit, unit) if unit is not None else None

    def _fast_amounts(self, context: str) -> frozenset[_Amount]:
        """Amounts written with digits or currency signs in one chunk (the cached, hot path)."""
        return frozenset(
            (value, unit) for _, _, value, unit in self._hits(fold(nfc(context)), self._lexicon.fast_scanner)
        )

    def _all_amounts(self, context: str) -> frozenset[_Amount]:
        """Every amount in one chunk, number words included (read only when the fast pass falls short)."""
        return frozenset(
            (value, unit) for _, _, value, unit in self._hits(fold(nfc(context)), self._lexicon.scanner)
        )

    def _rated(self, context: str, scanner: re.Pattern[str]) -> frozenset[_Rated]:
        """The amounts ``scanner`` finds in one chunk, each with the rate period written beside it."""
        text = fold(nfc(context))
        return frozenset(
            ((value, unit), self._periods.of(text, start, end))
            for start, end, value, unit in self._hits(text, scanner)
        )

    def _hits(self, text: str, scanner: re.Pattern[str]) -> Iterator[_Hit]:
        """The quantities of ``_scanned``, an amount written in two scales read as one: "4 triệu 200
        nghìn đồng" is 4,200,000 đồng, "۴ میلیون و ۲۰۰ هزار تومان" 4,200,000 toman, "4万2千元" 42,000
        yuan (the larger part, a quantity of its own or not, is taken into the smaller's)."""
        lead, multipliers = self._lexicon.compound_lead, self._lexicon.multipliers
        hits = list(self._scanned(text, scanner))
        for index, (start, end, value, unit) in enumerate(hits):
            inner = self._lexicon.multiplier_words.match(text, _number_end(text, start), end)
            found = lead.search(text, max(0, start - 32), start) if inner is not None else None
            if found is not None and inner is not None:
                outer_scale = multipliers[key(found.group(2))][0]
                inner_scale = multipliers[key(inner.group())][0]
                if inner_scale < outer_scale and value < outer_scale:
                    value = canonical(parse_number(found.group(1)) * outer_scale + value)
                    if index and hits[index - 1][:2] == (found.start(), found.start(2) + len(found.group(2))):
                        hits[index - 1] = (-1, -1, value, unit)  # the larger part alone is no quantity
                    hits[index] = (found.start(), end, value, unit)
        yield from (hit for hit in hits if hit[0] >= 0)

    def _scanned(self, text: str, scanner: re.Pattern[str]) -> Iterator[_Hit]:
        """Yield the quantities a scanner finds in normalized ``text``, dates and weekdays left out.

        A spelled number may end before the scanner's match does ("một năm" is one year, not six):
        scanning goes on from where the quantity really ended.
        """
        ignored, memo = self._lexicon.ignored, self._amounts
        position = last = 0  # where the scan goes on; where the last quantity yielded ended
        while (match := scanner.search(text, position)) is not None:
            written = match.group()
            read = memo.get(written)
            if read is None:
                read = self._amount(match)
                if len(memo) < _AMOUNT_MEMO:
                    memo[written] = read
            amount, length = read
            start, end = match.start(), match.start() + length
            position = max(end, start + 1)
            if _MINUTES.search(text, max(0, start - 3), start) is not None:
                continue  # "9:00-18:00 ngày làm việc": the minutes of a time of day, not 0 days
            if amount is not None and not ignored(text, start, end, amount[1]):
                first = self._lexicon.range_start.search(text, max(last, start - 24), start)
                # "3-5 ngày làm việc": 3 business days too
                if first is not None and (scale := _scale(written, amount[0])) is not None:
                    value = canonical(parse_number(first.group(1)) * scale)
                    yield first.start(1), first.end(1), value, amount[1]
                yield start, end, amount[0], amount[1]
                last = end

    def _amount(self, match: re.Match[str]) -> _Read:
        """Read value and canonical unit from a scanner match (None for a bare number), and its length."""
        start = match.start()
        head = match.string[start : match.start("mult")]
        unit_text, mult_text = match.group("unit", "mult")
        prefix_unit, value, default_unit, used = self._head(head)
        if used < len(head):  # a spelled number ended early: read its unit again from there
            tail = self._lexicon.tail.match(match.string, start + used, match.end())
            assert tail is not None  # noqa: S101 - the tail pattern matches the empty string
            unit_text, mult_text = tail.group("unit", "mult")
            match = tail
        length = match.end() - start
        if unit_text is None and not mult_text and prefix_unit is None and default_unit is None:
            return None, length  # only a written unit, scale word or currency sign makes a quantity
        if mult_text:
            for word in self._lexicon.multiplier_words.findall(mult_text):
                scale, scale_unit = self._lexicon.multipliers[word.casefold()]
                value = canonical(value * scale)
                default_unit = default_unit or scale_unit
        unit = prefix_unit or (self._lexicon.unit_of(unit_text) if unit_text else default_unit)
        complement = self._complements.get(unit) if unit is not None else None
        if complement is not None:  # "9.5折": 5 percent off
            value, unit = complement.read(value), complement.unit
        return (None if unit is None else (canonical(value), unit)), length

    def _head(self, head: str) -> tuple[str | None, Decimal, str | None, int]:
        """Split a match's head: (currency written before the number, value, a scale word's default
        unit, how much of the head the number really takes)."""
        if head[0].isdigit():
            return None, parse_number(head), None, len(head)
        prefix = self._lexicon.prefix_split.match(head)
        if prefix is None:
            words = self._lexicon.read_words(head)
            assert words is not None  # noqa: S101 - the scanner's other heads are number words
            value, used, unit = words
            return None, value, unit, used
        number = head[prefix.end() :]
        prefix_unit = self._lexicon.prefixes[key(prefix.group())]
        words = self._lexicon.read_words(number)
        if words is not None:
            return prefix_unit, words[0], None, prefix.end() + words[1]
        return prefix_unit, parse_number(number), None, len(head)


def _written_periods(
    contexts: Sequence[str], rated: Callable[[str], frozenset[_Rated]]
) -> dict[_Amount, set[str | None]]:
    """Amount -> the periods the chunks write it with (None: written without one)."""
    written: dict[_Amount, set[str | None]] = {}
    for context in contexts:
        for amount, period in rated(context):
            written.setdefault(amount, set()).add(period)
    return written


def _unique(quantities: Iterable[Quantity]) -> tuple[Quantity, ...]:
    """Drop repeats of the same amount and unit, keeping the first writing."""
    return tuple(dict.fromkeys(quantities))


def _conflicts(per_chunk: Sequence[frozenset[_Amount]], units: set[str]) -> tuple[Conflict, ...]:
    """Units the answer uses for which two chunks state different values (seed 000: L2 30 vs L1 7 days)."""
    values: dict[str, set[Decimal]] = {}
    chunks: dict[str, int] = {}
    for amounts in per_chunk:
        for unit in {unit for _, unit in amounts} & units:
            chunks[unit] = chunks.get(unit, 0) + 1
        for value, unit in amounts:
            if unit in units:
                values.setdefault(unit, set()).add(value)
    return tuple(
        Conflict(unit, tuple(sorted(found)))
        for unit, found in sorted(values.items())
        if len(found) > 1 and chunks[unit] > 1
    )


_MINUTES = re.compile(r"\d[:：]$")  # a number right after "9:" is a clock's minutes
_AGE = "year"  # the unit ages are read in ("18 tuổi", "18岁", "aged 18")
_BARE_NUMBER = re.compile(r"(?<![\d.,])\d+(?![\d]|[.,]\d)")
_AGE_REACH = 24  # how far before a bare number an age word may stand ("age is 21", "children under 12")


# Dollars of a named country; a bare "$" is read as USD but names none ("$24" in an Australian policy).
_DOLLARS = frozenset({"USD", "AUD", "CAD", "SGD", "HKD"})
_BARE_DOLLAR = re.compile(r"(?<![A-Za-z])\$\s?([0-9][0-9,.]*[0-9]|[0-9])")  # "US$", "HK$" name one


def _bare_dollar(text: str) -> bool:
    return _BARE_DOLLAR.search(fold(nfc(text))) is not None


def dollars_alike(one: Quantity, other: Quantity) -> bool:
    """Whether two quantities are one dollar amount, one of them written with a bare "$" ("A$19" and an
    Australian policy's "$19"); two named countries' dollars differ."""
    return (
        one.value == other.value
        and one.unit in _DOLLARS
        and other.unit in _DOLLARS
        and (_bare_dollar(one.text) or _bare_dollar(other.text))
    )


def _dollar_alike(quantity: Quantity, amounts: frozenset[_Amount], chunks: Sequence[str]) -> bool:
    """Whether a dollar amount stands in the chunks as another country's dollar where one side writes a
    bare "$": "A$24" for "$24", "$24" for "A$24"; "A$24" for "US$24" or "HK$24" is still another amount."""
    if quantity.unit not in _DOLLARS:
        return False
    if _bare_dollar(quantity.text):
        return any((quantity.value, unit) in amounts for unit in _DOLLARS)
    return any(
        parse_number(match.group(1)) == quantity.value
        for chunk in chunks
        for match in _BARE_DOLLAR.finditer(chunk)
    )


def _written(quantity: str, chunk: str) -> bool:
    """Whether a chunk writes the quantity as the answer does, not inside a longer number ("5 tuổi"
    is not in "15 tuổi") or a longer unit ("5 ngày" is not in "5 ngày làm việc")."""
    written = fold(nfc(quantity)).strip()
    if not written:
        return False
    pattern = rf"(?<![\d.,]){re.escape(written)}(?![\d.,]?\d)(?![a-z]|\s+[^\W\d_])"
    return re.search(pattern, chunk) is not None


def _normalized(text: str) -> str:
    """``text`` as the scanners read it."""
    return fold(nfc(text))


def _scale(written: str, value: Decimal) -> Decimal | None:
    """What the scale word of a quantity written with digits multiplies its number by ("2 triệu": a
    million), for the first number of its range; None when it is not written with digits. ``written``
    is already normalized (the scanners' text)."""
    digits = _LEADING_NUMBER.match(written)
    if digits is None:
        return None
    number = parse_number(digits.group())
    return value / number if number else Decimal(1)


_NUMBER_END = re.compile(r"[0-9]+(?:[.,][0-9]+)*\s*")


def _number_end(text: str, start: int) -> int:
    """Where the digits starting at ``start`` end, with the space after them (``start`` if none)."""
    found = _NUMBER_END.match(text, start)
    return start if found is None else found.end()
