"""Rows of a list ("Label: value", "Label | value") and footnotes ("*For Premier clients.")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from monitor.conditional.phrases import _PhraseReader
from monitor.conditional.statements import _Condition, _Row
from monitor.conditional.text import _ACCENTS, _NUMBER, _PAREN, _TOKEN, _clauses
from monitor.numeric import Quantity

_FOOTNOTE = re.compile(r"\s*(\*+|※|\(\*+\))")  # a clause opening a footnote: "*Áp dụng cho ..."
_MARK = re.compile(r"(?<=[^\s*(])(\*+|※|\(\*+\))")  # a footnote mark after a word or value: "0%*"


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
# a heading's section id: "TE-2 " of "TE-2 Trẻ em:" names no case
_SECTION = re.compile(r"^\s*[^\W\d_]{1,6}[-‐]\d+[.:)]?\s+")


def _plain(label: str) -> str:
    """A row label without its brackets, accent-folded, single-spaced."""
    return " ".join(_PAREN.sub(" ", label).translate(_ACCENTS).split())


def _head(label: str) -> str:
    """A row label's first word ("bậc" of "Bậc 2 (trên 2kg)"; "第" of "第二档"): counted tiers share it."""
    words: list[str] = _TOKEN.findall(_PAREN.sub(" ", label))
    if not words:
        return ""
    return words[0][0] if "\u3400" <= words[0][0] <= "\u9fff" else words[0]


def _marks(low: str, start: int, end: int) -> set[str]:
    """The footnote marks a clause carries ("0%*", "năm đầu*"); paired stars are Markdown emphasis
    ("**Gói Vàng**: 50GB")."""
    found = [m.group(1) for m in _MARK.finditer(low, start, end)]
    return {mark for mark in found if low.count(mark, start, end) == 1}


def _ends_row(low: str, found: Sequence[tuple[int, int, Quantity]], start: int, end: int) -> bool:
    """Whether a cell without a separator ends at its value, or at a per-unit after it ("大型车10元/小时；"):
    one that goes on ("延保须在签收之日起90天内购买；", "理赔材料齐全后，我们在5个工作日内完成审核；") is a
    sentence, its words before the value no label of a case."""
    last = max(e for s, e, _ in found if start <= s < end)
    rest = low[last:end].strip(" ;；,，.。\n")
    return not rest or rest.startswith("/")


class _RowReader(_PhraseReader):
    """Lists of rows and footnotes: a row's label names its case, a footnote binds what carries its mark."""

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
                unruled = match is None
                if match is None and _LISTED.search(line):
                    match = _UNRULED.match(line, a, b)  # "艺术类专业10000元/年；": a label, then its value
                if match is None:
                    continue
                sep = begin + match.end()
                values = [(s, q) for s, _, q in found if sep <= s < begin + b]
                if unruled and values and not _ends_row(low, found, sep, begin + b):
                    continue
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
        plain = " ".join(_PAREN.sub(" ", _SECTION.sub("", label)).translate(_ACCENTS).split())
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
