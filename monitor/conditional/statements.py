"""What a chunk's reading yields: condition phrases, rows of a list and the statements they bind."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from monitor.conditional.text import _Amount

_CLAUSE_KINDS = frozenset({"if", "then", "except", "threshold"})
# a clause's case: "در تهران", "only in Hanoi, Hue and Da Nang", "20 USD đối với vé Eco Flex"
_CASE_KINDS = frozenset({"if", "scope", "post"})


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
    # a short name the chunk gives it in brackets ("SVIP" of "超级VIP（SVIP）"): it names the group in
    # the other chunks too (``ConditionalRules.check``)
    short_names: frozenset[str] = frozenset()
    # a case only where a neighbouring sentence states another value of the unit ("Trên các chặng
    # quốc tế, em bé trả 20%" after "... trả 10%"): else a preposition that says where, not which case
    contrast: bool = False
    of: int = -1  # a postposed case's value ("45 USD đối với vé Eco Saver"): the offset it qualifies
    place: bool = False  # a label word naming a channel or place ("tại cửa hàng", "online")


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
    section: frozenset[str] = frozenset()  # content words of the heading it stands under ("【以旧换新】")
    clause: str = ""  # its clause as written: what an answer in another writing is compared with


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


def _inside(condition: _Condition, others: Iterable[_Condition]) -> bool:
    return any(o.start <= condition.start < o.end for o in others)
