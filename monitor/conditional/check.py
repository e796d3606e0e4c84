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
  general qualifier ("các gói khác", "standard", "普通", "همه") marks the general case instead;
- a sentence right after another on the same topic that gives the same unit another value, naming a
  subject the first does not ("Vé Eco Flex đổi ... 100.000 đồng" after "phí thay đổi là 350.000
  đồng"), is a sibling case named by those words: no pack needs to know the fare.

An answer value whose every supporting statement is bound, to conditions that neither the question nor
the answer carries (their content words, accent-folded, are not there), is a finding: critical when
the context also states another value of the same unit for the general case, a warning otherwise.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from monitor.conditional.asked import _Asked, _Carried
from monitor.conditional.hours import CLOCK, DaySpan, blank
from monitor.conditional.model import ConditionalFinding, ConditionalReport
from monitor.conditional.mutes import MuteList
from monitor.conditional.packs import ConditionalPack, load_packs
from monitor.conditional.rows import _FOOTNOTE, _marks, _RowReader
from monitor.conditional.scopes import _HEADING, _LABEL, _SECTION, _days_of, _ScopeReader
from monitor.conditional.statements import (
    _CASE_KINDS,
    _CLAUSE_KINDS,
    _all_carried,
    _beside,
    _Condition,
    _inside,
    _Statement,
)
from monitor.conditional.text import (
    _ACCENTS,
    _COUNT,
    _COUNTED,
    _HAN_COUNTED,
    _LEADING,
    _TOKEN,
    _Amount,
    _blank,
    _clauses,
    _digit_between,
    _has,
    _parentheticals,
    _part,
    counted_word,
    fold,
    lower,
    ordered_tokens,
    other_things,
    script,
    stems,
    tokens,
)
from monitor.conditional.times import CLOCK_TIME, TIME_OF_DAY, TimeWriting, _TimesOfDay, minutes_of
from monitor.conditional.vocabulary import _Vocabulary
from monitor.embeddings import Embedder
from monitor.golden.abstain import AbstentionDetector
from monitor.numeric import NumericRules, Quantity
from monitor.numeric.rules import dollars_alike
from monitor.numeric.text import nfc, parse_number
from monitor.rulepacks import RulePacks

__all__ = ["DEFAULT_CARRIED_SHARE", "DEFAULT_CONTEXT_CACHE", "FREE", "ConditionalRules", "fold", "lower"]

DEFAULT_CONTEXT_CACHE = 4096  # analysed chunk texts remembered: the same policy chunks recur
# how much closer (cosine) an answer in another writing must be to a condition-bound sentence than to
# every unbound one stating its value, for the bound one to be what it speaks of
DEFAULT_ACROSS_MARGIN = 0.0
DEFAULT_CARRIED_SHARE = 0.5  # share of a condition's content words the question/answer must hold
FREE = "free"  # the unit of a price stated without a number ("miễn phí", "ships free", "包邮", "رایگان")

_AGE = "year"  # the numeric rules' unit of "70周岁", "65 years", "۷۰ ساله"
_WORD_START = re.compile(r"(?<!\w)\w")
_LABELLED = re.compile(r"(?<!\w)[^\W\d_]{1,6}[-‐]$")  # a section label's letters before its number: "CL-"
_RANGE_END = re.compile(r"(?<![\d.,])(\d+)(\s*[^\d\s]{1,5}\s*)$")  # "16-", "16 đến ", "16至": a range's start
# topic words the best qualified sentence must share with the answer's clause to be the one it speaks
# of: one in common ("期为", "delivery") is chance, the qualifier's own sentence shares its subject too
_DROPPED_SHARED = 2
_ROW_LABEL = re.compile(r"[:：]\s*\S")  # "Single session: $75", "洗牙：...每次198元": a row of a list
_LIST_COLON = re.compile(r"[:：]")
_SENTENCE_END = re.compile(r"[.。!！?？\n](?!\d)")
_BRACKET_GAP = " (（["  # between a value and the bracket that names its case
_RESTATED = 40  # characters from a value to a bracket that may restate it ("24/7 (24 hours a day)")
_NEIGHBOURS = 2  # sentences either side where a prepositional case's other value may stand
_SIBLINGS = 1  # sentences before a statement where a sibling case's other value may stand
_SIBLING_SHARED = 0.5  # share of the smaller topic two sibling sentences have in common
_SIBLING_KEYS = 2  # the words of a sibling's subject that name its case


_SEMICOLONS = (";", "；", "؛")
_TIMES = frozenset({"x", "×"})  # the sign between a size's numbers
_DIGIT_AFTER = re.compile(r"\s*\d")
_GOODS = frozenset({"post", "class"})  # conditions that may name a class of goods ("for OTC products")
_KEYED = frozenset({"if", "scope", "except"})  # a clause marker's window of words, not a name
_NAMED = frozenset({"group", "row"})  # conditions that name who: "Students", "Gold cardholders:"
_DEFINING = frozenset({"if", "threshold"})  # an age or bound that may only define such a group


def _restated(
    statements: list[_Statement], at: Sequence[int], inner: Sequence[tuple[int, int]]
) -> list[_Statement]:
    """``statements`` where a bracket restating the value just before it ("شبانه‌روزی (۲۴ ساعته)",
    "48 hours (2 days)") holds under that value's conditions: it is the same statement, said again."""
    out = list(statements)
    for index, statement in enumerate(statements):
        span = next(((a, b) for a, b in inner if a <= at[index] < b), None)
        if span is None or statement.conditions:
            continue
        outside = [
            j
            for j, position in enumerate(at)
            if position < span[0] and not any(a <= position < b for a, b in inner)
        ]
        if not outside:
            continue
        nearest = max(outside, key=lambda j: at[j])  # the value right before the bracket
        if statements[nearest].amount == statement.amount and span[0] - at[nearest] <= _RESTATED:
            out[index] = replace(statement, conditions=statements[nearest].conditions)
    return out


def _full_names(statements: Sequence[_Statement], text: str) -> str:
    """The full names of the groups ``text`` calls by a short name the chunks give them in brackets
    ("SVIP" of "超级VIP（SVIP）"), one per line, to read as if written out."""
    words = tokens(fold(text), ())
    names = {
        " ".join(sorted(condition.keys))
        for statement in statements
        for condition in statement.conditions
        if condition.kind == "group" and any(name in words for name in condition.short_names)
    }
    return "".join(f"\n{name}" for name in sorted(names))


def _alike(one: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two sentences speak of one thing: they share at least two topic words, and half the
    words of the one with fewer."""
    shared = len(one & other)
    return shared >= 2 and shared >= _SIBLING_SHARED * min(len(one), len(other))


def _defines(condition: _Condition, group: _Condition, chunk: str) -> bool:
    """Whether ``condition`` stands inside the group's phrase or right after its name (here or where a
    footnote repeats it: "Student*: $23.90" with "*Full-time students aged 16 to 25 only")."""
    if group.start <= condition.start < group.end or 0 <= condition.start - group.end <= 2:
        return True
    before = re.findall(r"\w+", fold(chunk[max(0, condition.start - 24) : condition.start]))[-2:]
    return any(word.startswith(key) for word in before for key in group.keys)


class ConditionalRules(_RowReader, _ScopeReader, _Carried, _TimesOfDay):
    """The conditional-value check with every loaded pack; build once, share (chunks are cached)."""

    def __init__(
        self,
        packs: Sequence[ConditionalPack],
        numeric: NumericRules,
        *,
        carried_share: float = DEFAULT_CARRIED_SHARE,
        context_cache: int = DEFAULT_CONTEXT_CACHE,
        embedder: Embedder | None = None,
        across_margin: float = DEFAULT_ACROSS_MARGIN,
    ) -> None:
        """``embedder``: compares an answer in another writing than the policy with the policy's
        sentences, which share no word with it (None: such an answer's value passes when an unbound
        sentence also states it)."""
        super().__init__(_Vocabulary(packs))
        self.embedder = embedder
        self.across_margin = across_margin
        self.languages = self.vocabulary.languages
        self.numeric = numeric
        self.carried_share = carried_share
        # an answer that abstains names its support line's hours, which no policy chunk need hold
        self.abstention: AbstentionDetector | None = None
        self.mutes = MuteList()  # findings reviewers muted; the daemon reloads it from the review store
        self._statements = functools.lru_cache(maxsize=context_cache)(self._analyse)
        self._times_stated = functools.lru_cache(maxsize=context_cache)(self._times_in)
        self._writing = TimeWriting(packs, lambda text: bool(numeric.extract(text)))
        self._answer_cases = functools.lru_cache(maxsize=64)(self._own_cases)

    @classmethod
    def load(
        cls, numeric: NumericRules, packs: RulePacks | None = None, embedder: Embedder | None = None
    ) -> ConditionalRules:
        """The packs under ``conditional/`` of the rule packs (packaged when none are given)."""
        packs = packs or RulePacks()
        rules = cls(load_packs(packs), numeric, embedder=embedder)
        rules.abstention = AbstentionDetector.load(packs.directory("abstention"))
        return rules

    def _times_in(self, context: str) -> frozenset[int]:
        """The times of day one chunk states as clock values, in minutes (cached per chunk text)."""
        return frozenset(
            minutes
            for s in self._statements(context)
            if s.amount[1] in (CLOCK, TIME_OF_DAY)
            for minutes in minutes_of(Quantity(s.amount[0], s.amount[1], s.text))
        )

    def check(self, question: str, answer: str, contexts: Sequence[str]) -> ConditionalReport:
        """Answer values that only condition-bound statements of ``contexts`` support, unqualified;
        the findings a reviewer muted are reported apart."""
        return self.mutes.apply(self._check(question, answer, contexts))

    def _check(self, question: str, answer: str, contexts: Sequence[str]) -> ConditionalReport:
        placed = self._asserted(answer)
        said = list(dict.fromkeys(quantity for _, quantity in placed))
        if not said or not contexts:
            return ConditionalReport()
        statements = [s for context in contexts for s in self._statements(context)]
        asked_about = self._quantities(question)
        endings, plurals = self.vocabulary.endings, self.vocabulary.plurals
        # a short name one chunk gives a group ("超级VIP（SVIP）") names it in every chunk
        named, told = _full_names(statements, question), _full_names(statements, answer)
        asked = _Asked(
            fold(f"{question}\n{answer}{named}{told}"),
            # every value the answer names carries a condition, denied or not ("不满300,000越南盾")
            [(q.value, q.unit) for q in [*self._quantities(answer), *asked_about]],
            [q.unit for q in asked_about],
            endings,
            plurals,
        )
        asked.universal = self.vocabulary.universal.search(lower(answer)) is not None
        asked.answer = _Asked(fold(answer + told), [(q.value, q.unit) for q in said], (), endings, plurals)
        asked.question = _Asked(
            fold(question), [(q.value, q.unit) for q in asked_about], (), endings, plurals
        )
        asked.denied = asked.question.denied = self._denied(fold(question))
        asked.stated = frozenset((q.value, q.unit) for q in self._quantities(answer))
        folded = fold(answer)
        low = lower(answer)
        topics: dict[Quantity, frozenset[str]] = {}
        hedged: dict[Quantity, str] = {}  # the writing of the answer sentence that states a condition
        writing: dict[Quantity, str] = {}  # the writing of the answer sentence that states the value
        said_in: dict[Quantity, str] = {}  # the answer clause that states the value, as written
        written = nfc(answer)
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
            said_in[quantity] = written[a:b]
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
                quantity,
                statements,
                here,
                topics[quantity],
                hedged.get(quantity, ""),
                writing[quantity],
                said_in[quantity],
                answer,
            )
            finding = finding or self._dropped(quantity, statements, topics[quantity])
            if finding is not None:
                findings.append(finding)
            elif self._qualified(
                quantity, statements, asked.on_days(days[quantity]) if quantity in days else asked
            ):
                qualified.append(quantity)
        return ConditionalReport(tuple(findings), tuple(qualified))

    def _across(
        self, said_in: str, writing: str, bound: Sequence[_Statement], held: Sequence[_Statement]
    ) -> _Statement | None:
        """For an answer clause in another writing than the supporting sentences, which shares no word
        with them ("A technician will visit within 48 hours" over "市区用户48小时内上门" and
        "安装师傅将在48小时内上门"): the sentence closest to it in the embedder's space, a condition-bound
        one only when it beats every unbound one by ``across_margin``. None: no embedder, the same
        writing, or a single candidate."""
        candidates = [*bound, *held]
        if self.embedder is None or len(candidates) < 2 or all(s.script == writing for s in candidates):
            return None
        clauses = list(dict.fromkeys(s.clause for s in candidates))
        rows = self.embedder.embed([said_in, *clauses], "query")
        closeness = dict(zip(clauses, (rows[1:] @ rows[0]).tolist(), strict=True))
        top = max(bound, key=lambda s: closeness[s.clause])
        if held and closeness[top.clause] < max(closeness[s.clause] for s in held) + self.across_margin:
            return max(held, key=lambda s: closeness[s.clause])
        return top

    def _sibling_case(
        self,
        quantity: Quantity,
        support: Sequence[_Statement],
        statements: Sequence[_Statement],
        asked: _Asked,
        topic: frozenset[str],
    ) -> ConditionalFinding | None:
        """A value whose sentence names no condition the packs know, beside a sentence that reads as the
        general case of the same topic with another value of the unit ("押金一般为2,000元；豪华型车辆押
        金为10,000元", "Every bill is due 21 days after it is issued. Holders of a Pensioner Concession
        Card are allowed 35 days"): the words the value's sentence adds are its case, which the question or
        answer must say. Only in the policy's writing, where those words can be quoted; not a row of a
        list ("Single session: $75"), whose label the row reader has read."""
        kind = self.vocabulary.kind(quantity.unit)
        best = max(support, key=lambda s: (len(s.topic & topic), len(s.section & topic)))
        low = lower(best.clause)
        at = best.chunk.find(best.clause)
        if at < 0 or self.vocabulary.general.search(low) is not None or _ROW_LABEL.search(best.clause):
            return None
        rivals = [
            s
            for s in statements
            if s.chunk == best.chunk
            and not s.conditions
            and s.clause != best.clause
            and self.vocabulary.kind(s.amount[1]) == kind
            and s.amount[0] != quantity.value
            and self._sibling(s, best, at)
        ]
        if not rivals or any(s.amount in asked.answer.amounts for s in rivals):
            return None  # no general case beside it, or the answer gives it too (it lists the cases)
        units = self._topic(quantity.text.lower().translate(_ACCENTS))
        shared = set().union(*(best.topic & s.topic for s in rivals))
        # a Chinese character pair across the shared words and the case's ("辆押" of "车辆押金") is neither
        joined = {char for key in shared for char in key if "\u3400" <= char <= "\u9fff"}
        case = {
            key
            for key in best.topic - shared - units
            if not key.startswith("topic:") and not joined & set(key)
        }
        if not case or any(asked.holds(key) for key in case):
            return None
        general = tuple(Quantity(s.amount[0], s.amount[1], s.text) for s in rivals)
        return ConditionalFinding(
            quantity.text, quantity.value, quantity.unit, " ".join(best.clause.split()), general
        )

    def _sibling(self, rival: _Statement, best: _Statement, at: int) -> bool:
        """Whether ``rival`` reads as the general case beside ``best``: a topic word in common, and
        before it in the chunk (a policy states the rule, then its cases) or anywhere with a general
        marker ("一般", "standard", "thường")."""
        if not self._topic_shared(rival, best):
            return False
        general = self.vocabulary.general.search(lower(rival.clause)) is not None
        return general or 0 <= rival.chunk.find(rival.clause) < at

    def _counts(self, text: str) -> bool:
        """Whether ``text`` opens with a number, digits or the numeric packs' words ("one person")."""
        return self.numeric.number_at(text) is not None

    def _own_cases(self, answer: str) -> tuple[tuple[_Amount, tuple[_Condition, ...]], ...]:
        """The answer read as a policy: each value it binds to a case of its own ("每晚260元，仅限行政房",
        "9岁及以上宠物的老年体检费用为$175", "Đơn từ 1.000 đô được 0%"), with those cases (an "except"
        names another case, a soft group may be only a topic; cached for the trace's values)."""
        out = []
        for statement in self._analyse(answer):
            cases = tuple(c for c in statement.conditions if not c.soft and c.kind != "except")
            if cases:
                out.append((statement.amount, cases))
        return tuple(out)

    def _states_a_case(self, amount: _Amount, statement: _Statement, answer: str, asked: _Asked) -> bool:
        """Whether an answer in another writing than the policy's sentence binds the value to a case of
        its own, which its words cannot quote: not the thing the question asks about ("PLUS bao nhieu":
        "PLUS 69 tệ" names no case), and by a term, only the policy's own ("for orders from $300" is
        not the policy's "$1,000 or more")."""
        cases = [
            c
            for value, bound in self._answer_cases(answer)
            if value == amount
            for c in bound
            if not c.keys or not all(asked.question.holds(key) for key in c.keys)
        ]
        if not cases:
            return False
        terms = {term for c in cases for term in c.terms}
        return not terms or bool(terms & {term for c in statement.conditions for term in c.terms})

    def _qualified(self, quantity: Quantity, statements: Sequence[_Statement], asked: _Asked) -> bool:
        """Whether a condition-bound statement supports the value and the question or answer carries
        every one of its conditions."""
        amount = (quantity.value, quantity.unit)

        def carried(condition: _Condition) -> bool:
            return self._carried(condition, asked)

        return any(
            s.amount == amount and s.conditions and _all_carried(s.conditions, carried) for s in statements
        )

    def _dropped(
        self, quantity: Quantity, statements: Sequence[_Statement], topic: frozenset[str]
    ) -> ConditionalFinding | None:
        """A value whose number the best-matching sentence states in a qualified unit ("8 giờ" for
        "8 giờ làm việc", "7 days" for "7 business days"): the qualifier is dropped, though the plain
        value may stand in an unrelated sentence ("nhịn ăn 8 tiếng"). A tie passes, and so does a sentence
        sharing fewer than two topic words ("Shipping takes 7 days" beside "Refunds ... within 7 business
        days"; "价保期为15天" shares only "期为" with "退款周期为15个工作日的")."""
        units = self.vocabulary.qualified.get(quantity.unit)
        if not units:
            return None
        qualified = [s for s in statements if s.amount[1] in units and s.amount[0] == quantity.value]
        if not qualified:
            return None
        topic = topic - self._topic(quantity.text.lower().translate(_ACCENTS))  # "days" is no topic
        best = max(qualified, key=lambda s: len(s.topic & topic))
        shared = len(best.topic & topic)
        exact = [len(s.topic & topic) for s in statements if s.amount == (quantity.value, quantity.unit)]
        if shared < _DROPPED_SHARED or (exact and shared <= max(exact)):  # another sentence's value
            return None
        return ConditionalFinding(quantity.text, quantity.value, quantity.unit, best.text)

    def _finding(
        self,
        quantity: Quantity,
        statements: Sequence[_Statement],
        asked: _Asked,
        topic: frozenset[str] = frozenset(),
        hedged: str = "",
        writing: str = "",
        said_in: str = "",
        answer: str = "",
    ) -> ConditionalFinding | None:
        amount = (quantity.value, quantity.unit)
        support = [s for s in statements if s.amount == amount]
        if not support and quantity.unit.startswith(_COUNT):  # "6 lounge visits" for "6 visits"
            support = [
                s
                for s in statements
                if s.amount[0] == quantity.value
                and _COUNT in s.amount[1]
                and not other_things(s.amount[1], quantity.unit)
            ]
        if not support:  # "A$19" for an Australian policy's "$19"
            support = [
                s for s in statements if dollars_alike(quantity, Quantity(s.amount[0], s.amount[1], s.text))
            ]

        # An answer sentence in another writing than the policy that states a condition of its own ("if
        # it is our error", "因个人原因", "در این حالت") does not state the value as general: a clause
        # condition (if, then, except, threshold) counts as carried there, since its words cannot be.
        def carried(condition: _Condition, statement: _Statement) -> bool:
            if hedged and hedged != statement.script and condition.kind in _CLAUSE_KINDS:
                return True
            foreign = bool(writing) and writing != statement.script
            if foreign and self._states_a_case(amount, statement, answer, asked):
                return True
            if foreign and condition.kind in _CASE_KINDS and contrasted:
                return True
            if condition.kind in _GOODS and self._common(condition, statement, statements):
                return True
            if condition.place and self._everywhere(condition, statement, statements):
                return True
            if not self._carried(condition, asked):
                return False
            # carried by its words: by one that sets it apart from its siblings too (not needed where a
            # term, another name or another language's word carries it)
            apart = self._setting_apart(condition, statement, statements)
            return (
                apart is None
                or any(asked.holds(key) for key in apart)
                or self._carried(replace(condition, keys=frozenset()), asked)
            )

        def holds(statement: _Statement) -> bool:
            named = [c for c in statement.conditions if c.kind in _NAMED and carried(c, statement)]
            bounds = [c for c in statement.conditions if c.kind in _DEFINING and carried(c, statement)]

            def kept(condition: _Condition) -> bool:
                # an age or bound that only says who the named group is ("students aged 16 to 25",
                # "children under 12") is carried with the group's name, and the name with it ("10%
                # for people 65+" of "Seniors: customers aged 65 and over ... 10%")
                chunk = statement.chunk
                if carried(condition, statement):
                    return True
                if condition.kind in _DEFINING:
                    return any(_defines(condition, group, chunk) for group in named)
                return condition.kind in _NAMED and any(_defines(bound, condition, chunk) for bound in bounds)

            return _all_carried(statement.conditions, kept)

        # An answer in another writing that gives the general value too ("3 business days in Tehran and
        # up to 7 business days in other cities" for "در تهران ... در سایر شهرها"): it sets the cases
        # apart, though it cannot quote the policy's words for the case.
        kind = self.vocabulary.kind(quantity.unit)
        contrasted = any(  # the general value, or a sibling case's ("20 USD đối với vé Eco Flex")
            all(c.kind == "post" for c in s.conditions) and s.amount != amount and s.amount in asked.stated
            for s in statements
            if self.vocabulary.kind(s.amount[1]) == kind
        )
        held = [s for s in support if holds(s)]
        bound = [s for s in support if s not in held]
        if not bound:
            if (
                support
                and not any(s.conditions for s in support)
                and all(s.script == writing for s in support)
            ):
                return self._sibling_case(quantity, support, statements, asked, topic)
            return None
        # The best supporting statement decides: the one whose clause shares most words with the
        # answer's ("等待期是30天" is DT-3's "等待期为30天", not a reminder "到期前30天"); a tie passes.
        # A tie is broken by the headings they stand under ("【上门维修】 ... 市区用户48小时内上门" is the
        # repair visit, "【安装服务】 ... 48小时内上门" the installation).

        def shared(s: _Statement) -> tuple[int, int]:
            return len(s.topic & topic), len(s.section & topic)

        best = max(bound, key=shared)
        tied = not any(shared(s) > (0, 0) for s in (*bound, *held))  # no word in common with any
        across = self._across(said_in, writing, bound, held) if said_in and tied else None
        if across is not None:  # an answer in another writing: the closest sentence in meaning decides
            if across not in bound:
                return None
            best = across
        elif held and max(shared(s) for s in held) >= shared(best):
            return None
        # An answer that also gives another value the context states on the same topic ("12 weeks;
        # Anytime members 12 weeks", "积3分，也有积1分的", "CNY 2,000 for economy, CNY 3,000 for
        # comfort" over "经济型：2,000元 舒适型：3,000元") lists the cases: it does not state this one as
        # the value for everyone, whether or not its words for the cases can be matched with the
        # policy's. (The fourth round required the case's words or another writing as well: on the train
        # wordings of eleven businesses nobody had fitted, that kept 146 false flags for 32 caught answers.)
        if self._lists_cases(quantity, best, statements, asked):
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

    def _lists_cases(
        self, quantity: Quantity, best: _Statement, statements: Sequence[_Statement], asked: _Asked
    ) -> bool:
        """Whether the answer also gives another value the context states on the topic of ``best``, and
        every value of the answer's unit that value's sentence states: a sentence it quotes only in part
        ("月卡售价25元，每天2次免费骑行" for "月卡15元，每天2次免费") holds the general value the answer
        left out, not a case it set apart."""
        kind = self.vocabulary.kind(quantity.unit)
        own = {s.amount for s in statements if s.chunk == best.chunk and s.topic == best.topic}
        told = asked.answer.amounts

        def whole(other: _Statement) -> bool:
            return all(
                s.amount in told
                for s in statements
                if s.clause == other.clause and s.chunk == other.chunk and s.amount[1] == quantity.unit
            )

        return any(
            s.amount not in own  # its own clause's values ("up to 12 weeks in any 12-month period")
            and s.amount in told  # not a value it denies ("không có mức miễn phí")
            and self.vocabulary.kind(s.amount[1]) == kind
            and (kind != _COUNT or s.amount[1] == quantity.unit)  # "三个人" lists no "三个等级"
            and self._same_topic(s, best)
            and whole(s)
            for s in statements
        )

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

    def _bracketed_case(
        self,
        low: str,
        begin: int,
        stop: int,
        found: Sequence[tuple[int, int, Quantity]],
        here: Sequence[tuple[int, int, Quantity]],
    ) -> list[_Condition]:
        """A bracket right after a value that gives another value of its kind names that value's case
        in its other words, in any language and with no marker: "$20 ($12 with a valid student card)",
        "运费30元（凭学生证15元）". Its words are the condition of the bracket's value."""
        before = [q for s, e, q in found if e <= begin and not low[e:begin].strip(" (（[")]
        kind = self.vocabulary.kind
        if not before or not any(
            kind(q.unit) == kind(before[-1].unit) and (q.value, q.unit) != (before[-1].value, before[-1].unit)
            for _, _, q in here
        ):
            return []  # no other value of its kind: the bracket restates it ("شبانه‌روزی (۲۴ ساعته)")
        rest = _blank(low, [(s, e) for s, e, _ in here])[begin:stop]
        words = [w for w in _TOKEN.findall(rest) if self.vocabulary.content(w)]
        keys = self._keys(words)
        if not keys:
            return []
        return [_Condition("if", begin, stop, frozenset(keys), phrase=rest.translate(_ACCENTS).strip())]

    def _setting_apart(
        self, condition: _Condition, statement: _Statement, statements: Sequence[_Statement]
    ) -> frozenset[str] | None:
        """The condition's keys that set its value apart, None when all do: a word the sibling
        statements (another value of the kind, on the same topic) also say is what they are about,
        not the case ("join" of "If you join online ... $29" beside "A joining fee of $79 is charged
        when you join"), and a question saying only it carries nothing."""
        if condition.kind not in _KEYED:
            return None
        kind = self.vocabulary.kind(statement.amount[1])
        shared = {
            word
            for s in statements
            if s.amount != statement.amount
            and self.vocabulary.kind(s.amount[1]) == kind
            and self._same_topic(s, statement)
            for word in s.topic
        }
        keys = condition.keys - shared
        return keys if keys and keys != condition.keys else None

    def _common(self, condition: _Condition, statement: _Statement, statements: Sequence[_Statement]) -> bool:
        """Whether a class of goods is what the value and the general case (another value of the kind,
        on the same topic, in another clause, under no condition) both speak of: "for non-prescription
        products" beside "non-prescription products can be returned within 7 days" sets neither apart.
        A class described in several words, not one name ("vé Eco Flex"), which a sentence may state
        without the check reading it as a case."""
        kind = self.vocabulary.kind(statement.amount[1])
        return len(condition.keys) > 1 and any(
            condition.keys <= s.topic
            for s in statements
            if not s.conditions
            and s.amount != statement.amount
            and s.clause != statement.clause
            and self.vocabulary.kind(s.amount[1]) == kind
            and self._same_topic(s, statement)
        )

    def _everywhere(
        self, condition: _Condition, statement: _Statement, statements: Sequence[_Statement]
    ) -> bool:
        """Whether a channel or place heads a list ("Phí thay SIM tại cửa hàng: khách hàng thông thường
        25.000đ; hội viên Vàng 10.000đ"): the list's values, two or more of the kind after its colon in
        the sentence, all hold there, so the place sets none of them apart."""
        chunk = statement.chunk
        colon = _LIST_COLON.search(chunk, condition.end)
        if colon is None or _digit_between(chunk, condition.end, colon.start()):
            return False
        end = _SENTENCE_END.search(chunk, colon.end())
        stop = end.start() if end is not None else len(chunk)
        kind = self.vocabulary.kind(statement.amount[1])
        listed = {
            s.amount
            for s in statements
            if s.chunk == chunk
            and self.vocabulary.kind(s.amount[1]) == kind
            and chunk.find(s.text, colon.end(), stop) >= 0
        }
        return len(listed) > 1

    def _same_topic(self, one: _Statement, other: _Statement) -> bool:
        """Whether two statements speak of the same thing: two content words in common, besides the
        words of their values ("ngày", "days")."""
        return self._topic_shared(one, other) >= 2

    def _topic_shared(self, one: _Statement, other: _Statement) -> int:
        """How many content words two statements share, besides the words of their values."""
        units = self._topic(one.text.lower().translate(_ACCENTS)) | self._topic(
            other.text.lower().translate(_ACCENTS)
        )
        return len((one.topic & other.topic) - units)

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
            f"topic:{i}"
            for i, group in enumerate(v.topics)
            # a form's first word stands in the text as written wherever the form does: a cheap test
            # that spares the whole-word search of most forms
            if any(f.split(" ", 1)[0] in folded and _has(folded, f, v.endings) for f in group)
        )
        return frozenset(words)

    def _quantities(self, text: str) -> list[Quantity]:
        """Numeric quantities of ``text`` and counted things ("20 lần", "4 times", "5次"), once each."""
        return list(dict.fromkeys(q for _, _, q in self._found(text)))

    def _found(self, text: str) -> list[tuple[int, int, Quantity]]:
        low, surface, folded = lower(text), nfc(text), fold(text)  # each once: this runs on every trace
        found = self.numeric.locate(text)
        clocks = self.vocabulary.clock.ranges(low)
        if clocks:  # "từ 7 giờ đến 17 giờ" is opening hours, not two durations
            found = [f for f in found if not any(s < f[1] and f[0] < e for s, e, _ in clocks)] + clocks
        found += self._times(low, surface, [(start, end) for start, end, _ in found])
        found += self._ages(low, surface, [(start, end) for start, end, _ in found])
        found += [
            first
            for start, _, quantity in found
            if quantity.unit == _AGE
            for first in self._range_start(low, surface, start)
            if not any(s < first[1] and first[0] < e for s, e, _ in found)
        ]
        taken = [(start, end) for start, end, _ in found]
        for match in self.vocabulary.free.finditer(low):  # a price without a number
            if match.start() > 0 and text[match.start() - 1] in "-‐":
                continue  # "interest-free", "sugar-free": without that thing, no price of nothing
            if not any(start < match.end() and match.start() < end for start, end in taken):
                free = Quantity(Decimal(0), FREE, surface[match.start() : match.end()])
                found.append((match.start(), match.end(), free))
        for match in _COUNTED.finditer(folded):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            word = match.group(2)
            if word in self.vocabulary.stopwords or self._clock_time(folded, match.start()):
                continue
            if word in _TIMES and _DIGIT_AFTER.match(folded, match.end()):
                continue  # "56 x 36 x 23 cm": one size, not 56 things called "x"
            if _LABELLED.search(folded, max(0, match.start() - 8), match.start()):
                continue  # "CL-3 مشاوره": a section's label, not 3 consultations
            try:
                value = parse_number(match.group(1))
            except ValueError:
                continue
            word = counted_word(folded, word, match.end())
            counted = Quantity(value, f"{_COUNT}{word}", surface[match.start() : match.end()])
            found.append((match.start(), match.end(), counted))
        found += self._han_counts(folded, surface, [(start, end) for start, end, _ in found])
        return sorted(found, key=lambda item: item[0])

    def _han_counts(
        self, folded: str, surface: str, taken: Sequence[tuple[int, int]]
    ) -> list[tuple[int, int, Quantity]]:
        """Counts written in Chinese numerals ("最多四台设备", "邀请三位家人"): the numeric packs read the
        numerals, the measure word after them is the counted thing, as after digits."""
        out = []
        stopwords = self.vocabulary.stopwords
        for match in _HAN_COUNTED.finditer(folded):
            numerals, word = match.group(1), match.group(2)
            if numerals == "一" or numerals in stopwords or match.group() in stopwords:
                continue
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            read = self.numeric.number_at(numerals)
            if read is None or read[1] != len(numerals):
                continue
            word = counted_word(folded, word, match.end())
            counted = Quantity(read[0], f"{_COUNT}{word}", surface[match.start() : match.end()])
            out.append((match.start(), match.end(), counted))
        return out

    @staticmethod
    def _times(low: str, surface: str, taken: Sequence[tuple[int, int]]) -> list[tuple[int, int, Quantity]]:
        """Times of day written alone on a 24-hour clock ("check-in from 11:00", "15:00之后"), outside a
        clock range: a value of unit ``clock_time`` (HHMM), which a case may set apart like a price."""
        out = []
        for match in CLOCK_TIME.finditer(low):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            value = Decimal(int(match.group(1)) * 100 + int(match.group(2)))
            out.append(
                (
                    match.start(),
                    match.end(),
                    Quantity(value, TIME_OF_DAY, surface[match.start() : match.end()]),
                )
            )
        return out

    def _clock_time(self, folded: str, start: int) -> bool:
        """Whether the number at ``start`` is a time of day by the word before it ("تا ساعت ۱۶ سفارش"
        is 16 o'clock, not 16 orders; "lúc 16 giờ")."""
        before = folded[max(0, start - 16) : start].rstrip()
        return any(m.end() == len(before) for m in self.vocabulary.clock_before.finditer(before))

    def _ages(
        self, low: str, surface: str, taken: Sequence[tuple[int, int]]
    ) -> list[tuple[int, int, Quantity]]:
        """Ages a bare number states by a word beside it, in years: after an age marker ("年满七十",
        "aged 65", "aged over 65") or before an age word ("sáu mươi tuổi", "60 tuổi"); ``low`` and
        ``surface`` are the text's ``lower`` and ``nfc`` forms."""
        v = self.vocabulary
        spans: list[tuple[int, int]] = []
        for match in v.ages_before.finditer(low):
            start = match.end() + len(low[match.end() :]) - len(low[match.end() :].lstrip())
            bound = v.threshold_words.match(low, start)  # "aged over 65", "سن بالای ۶۵"
            if bound is not None:
                start = bound.end() + len(low[bound.end() :]) - len(low[bound.end() :].lstrip())
            read = self.numeric.number_at(low[start:])
            if read is not None:
                spans.append((start, start + read[1]))
        for match in v.ages_after.finditer(low):
            words = [m.start() for m in _WORD_START.finditer(low, max(0, match.start() - 40), match.start())]
            for begin in words:  # the earliest start whose number ends at the age word
                read = self.numeric.number_at(low[begin : match.start()])
                if read is not None and not low[begin + read[1] : match.start()].strip():
                    spans.append((begin, match.end()))
                    break
        out = []
        for start, end in spans:
            if any(s < end and start < e for s, e in taken):
                continue  # "年满70周岁": the numeric rules read it with its unit
            read = self.numeric.number_at(low[start:end])
            if read is not None:
                out.append((start, end, Quantity(read[0], _AGE, surface[start:end])))
        return out

    def _range_start(self, low: str, surface: str, start: int) -> list[tuple[int, int, Quantity]]:
        """The first age of a range that ends at ``start`` ("16-24 tuổi", "aged 16 to 25", "16至24周岁"):
        an age too, though only the last number stands by the age word."""
        before = low[max(0, start - 24) : start]
        joined = _RANGE_END.search(before)
        if joined is None or self.vocabulary.ranges.fullmatch(joined.group(2).strip()) is None:
            return []
        begin = start - len(before) + joined.start(1)
        read = self.numeric.number_at(low[begin:start])
        if read is None:
            return []
        return [(begin, begin + read[1], Quantity(read[0], _AGE, surface[begin : begin + read[1]]))]

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
        clause_of: list[int] = []  # the clause index of each statement
        at: list[int] = []  # the offset of each statement's value
        clauses = list(_clauses(low))
        section: frozenset[str] = frozenset()  # the words of the last heading
        # a scope set on a subject in a clause with values of its own ("ارسال فوری تنها در شهر تهران ...
        # ارائه می‌شود"): the subject's words, and the scope, for later clauses that name the subject
        subject: tuple[frozenset[str], tuple[_Condition, ...]] = (frozenset(), ())
        opened: tuple[_Condition, ...] = ()  # who the sentence's first clause names, for its ";" parts
        # a bracket right after a value whose own values only name its conditions ("普通号10元（限年满65周岁
        # 的长者）", "$10 (customers aged 65 and over)"): those conditions are that value's
        bracketed: dict[int, tuple[_Condition, ...]] = {}
        for index, (start, end) in enumerate(clauses):
            first, number = len(out), index
            following = clauses[index + 1] if index + 1 < len(clauses) else (end, end)
            contrast = self._contrasted(low, start, end, *following)
            heading = _HEADING.match(low, start, end)
            if _LABEL.match(low, start, end) or heading:
                carried = ()  # "SP-2.", "【分期免息】": a new section; the scope of the last one ends there
                subject = (frozenset(), ())
            if heading:
                section = self._topic(low[heading.start() : heading.end()].translate(_ACCENTS))
            marks = _marks(low, start, end)
            noted = tuple(c for mark in marks for c in notes.get(mark, ()))
            parts = [(low, a, b) for a, b in inner if start <= a < end] + [(outer, start, end)]
            topic = self._topic(self._unclocked(low, start, end).translate(_ACCENTS))
            about = subject[1] if subject[1] and topic & subject[0] else ()
            continued = low[:start].rstrip().endswith(_SEMICOLONS)
            if not continued:
                opened = ()
            for text, begin, stop in parts:
                here = [(s, e, q) for s, e, q in found if begin <= s < stop and text[s] == low[s]]
                conditions = self._conditions(text, surface, begin, stop, [(s, e) for s, e, _ in here])
                if text is low and not conditions:  # a bracket after a value: "$20 ($12 with a card)"
                    conditions = self._bracketed_case(low, begin, stop, found, here)
                conditions += [c for c in contrast if begin <= c.start < stop and not _inside(c, conditions)]
                conditions = [self._with_terms(text, c, here) for c in conditions]
                conditions = [replace(c, terms=threshold) if c.anaphoric else c for c in conditions]
                threshold = next(
                    (c.terms for c in reversed(conditions) if c.kind == "threshold" and c.terms), threshold
                )
                if text is low and here:
                    bracketed.update(self._bracket_terms(low, begin, found, here, conditions))
                general = self.vocabulary.general.search(text, begin, stop) is not None
                if general or any(c.kind != "threshold" for c in conditions):
                    carried = ()  # a new case; a threshold ("up to 6 visits") may be the value's own
                # "超级VIP同一时间最多四台设备同时播放；离线缓存上限为400集": a ";" part that names no
                # case of its own goes on speaking of who its sentence opened with
                inherited = () if general or conditions else opened
                clocks = [(s, e) for s, e, q in here if q.unit == CLOCK]
                starts = [s for s, _, _ in here]
                for position, finish, quantity in here:
                    bound = self._bound(text, begin, stop, position, conditions, starts)
                    bound = bound or carried or inherited or about
                    bound = (*bound, *noted, *bracketed.get(position, ()))
                    if position in rows:
                        bound = rows[position].govern(bound)
                    if quantity.unit == CLOCK:
                        place = (position, finish)
                        days = _days_of(text, begin, stop, place, clocks, conditions)
                        # "周末及法定节假日", "weekends and holidays": a time window beside the days is
                        # one of them, and the days decide a clock range
                        bound = (*(c for c in bound if not any(_beside(c, d) for d in days)), *days)
                    amount = (quantity.value, quantity.unit)
                    out.append(
                        _Statement(
                            amount, bound, surface, quantity.text, topic, writing, section, surface[start:end]
                        )
                    )
                    at.append(position)
                back = self._back(text, begin, stop, conditions) if last and not here else ()
                for index in last if back else ():  # "Ưu đãi trên chỉ áp dụng cho ...": the one before
                    out[index] = replace(out[index], conditions=(*out[index].conditions, *back))
                if _FOOTNOTE.match(low, start, end) is None and not back:  # a footnote speaks of its marks
                    carried = self._carry(text, begin, stop, conditions, [s for s, _, _ in here]) or carried
                if here and text is outer:
                    subject = self._subject(text, begin, conditions) or subject
                if text is outer and not continued:  # who the sentence opens with: nothing before it
                    opened = tuple(c for c in conditions if self._opens(low, start, c))
            last = range(first, len(out)) if len(out) > first else last
            clause_of += [number] * (len(out) - len(clause_of))
        out = self._contrasted_cases(_restated(out, at, inner), clause_of)
        return tuple(self._sibling_cases(out, clause_of, at, clauses, low))

    @staticmethod
    def _bracket_terms(
        low: str,
        begin: int,
        found: Sequence[tuple[int, int, Quantity]],
        here: Sequence[tuple[int, int, Quantity]],
        conditions: Sequence[_Condition],
    ) -> dict[int, tuple[_Condition, ...]]:
        """The value right before a bracket (by its offset) with the bracket's conditions, when every
        value in the bracket is a term of one of them (an age, a threshold); else nothing."""
        terms = {amount for c in conditions for amount in c.terms}
        if not terms or any((q.value, q.unit) not in terms for _, _, q in here):
            return {}
        before = [(s, e) for s, e, _ in found if e <= begin and not low[e:begin].strip(_BRACKET_GAP)]
        return {before[-1][0]: tuple(conditions)} if before else {}

    @staticmethod
    def _opens(low: str, start: int, condition: _Condition) -> bool:
        """Whether a group or scope opens the sentence at ``start`` (after its section label)."""
        before = _SECTION.sub("", low[start : condition.start])
        return condition.kind in ("group", "scope") and not before.strip(_LEADING)

    def _subject(
        self, low: str, start: int, conditions: Sequence[_Condition]
    ) -> tuple[frozenset[str], tuple[_Condition, ...]] | None:
        """The words of what a clause's scope is set on ("ارسال فوری (اکسپرس)" of "ارسال فوری (اکسپرس)
        تنها در شهر تهران ..."), with that scope; None when it sets none after words of its own."""
        scopes = tuple(c for c in conditions if c.kind == "scope")
        if not scopes:
            return None
        words = self._topic(low[start : scopes[0].start].translate(_ACCENTS))
        return (words, scopes) if words else None

    def _sibling_cases(
        self,
        statements: list[_Statement],
        clause_of: Sequence[int],
        at: Sequence[int],
        clauses: Sequence[tuple[int, int]],
        low: str,
    ) -> list[_Statement]:
        """Statements whose sentence sets a case apart by its subject alone: a sentence right after
        another on the same topic that gives the unit another value, naming a subject the first does not
        ("... phí thay đổi là 350.000 đồng. Vé Eco Flex đổi chặng nội địa với phí 100.000 đồng", "Flex
        members give 14 days' notice. Members on a 12-month contract ... 30 days' notice"): the words
        before its value that the first sentence lacks are its case, whatever the pack names."""
        v = self.vocabulary
        out = list(statements)
        for index, statement in enumerate(statements):
            if statement.conditions or statement.amount[1] == CLOCK:
                continue
            here = clause_of[index]
            earlier = [
                other
                for position, other in enumerate(statements)
                if 0 < here - clause_of[position] <= _SIBLINGS
                and other.amount[1] == statement.amount[1]
                and other.amount[0] != statement.amount[0]
                and _alike(other.topic, statement.topic)
            ]
            start, end = clauses[here]
            if not earlier or v.general.search(low, start, end) is not None:  # "in other cities": the rest
                continue
            prefix = self._unclocked(low, start, at[index]).translate(_ACCENTS)
            seen = frozenset().union(*(other.topic for other in earlier))
            words = [
                w
                for w in ordered_tokens(prefix)
                if w not in seen
                and not stems(w, v.endings) & seen
                and w not in v.folded_stopwords
                and v.content(w)
            ][:_SIBLING_KEYS]
            if not words:
                continue
            case = _Condition("if", start, at[index], frozenset(words), soft=True, phrase=" ".join(words))
            out[index] = replace(statement, conditions=(case,))
        return out

    def _contrasted_cases(
        self, statements: Sequence[_Statement], clause_of: Sequence[int]
    ) -> list[_Statement]:
        """``statements`` without the prepositional cases no neighbouring sentence sets apart: "Trên
        các chặng quốc tế, em bé trả 20%" is a case after "... trả 10% giá vé"; "Tại Hà Nội, cửa hàng
        mở từ 8 giờ" alone says where."""
        out = list(statements)
        for index, statement in enumerate(statements):
            cases = [c for c in statement.conditions if c.contrast]
            if not cases:
                continue
            kind = self.vocabulary.kind(statement.amount[1])
            near = [
                other
                for position, other in enumerate(statements)
                if 0 < abs(clause_of[position] - clause_of[index]) <= _NEIGHBOURS
                and other.amount != statement.amount
                and self.vocabulary.kind(other.amount[1]) == kind
            ]
            dropped = [c for c in cases if all(c in other.conditions for other in near)]
            if dropped:
                kept = tuple(c for c in statement.conditions if c not in dropped)
                out[index] = replace(statement, conditions=kept)
        return out
