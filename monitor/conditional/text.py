"""How the conditional check reads text: case and accent folding, content-word keys, writings, clauses
and comma parts (offsets always those of ``nfc(text)``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal

from monitor.numeric.text import fold as fold_digits
from monitor.numeric.text import nfc

_CLAUSE_END = re.compile(r"[.!?؟](?=\s|$)|[。！？；;؛\n]")
_PAREN = re.compile(r"[(（]([^()（）]*)[)）]")
_COMMA = re.compile(r"[,，、،](?!\d)|\s[-–—]\s")
_LIST_COMMA = re.compile(r"\s*[,，、،]\s*")
_HAN = "\u3400-\u9fff"
_LEADING = " \t-–—:：·•*#"  # what may stand before a leading marker in its part
_TOKEN = re.compile(rf"[{_HAN}]+|[^\W\d_{_HAN}]+")
_NUMBER = re.compile(r"[0-9]+")
_FIRST_NUMBER = re.compile(r"[^\w:：]*?([0-9]+)")
_COUNTED = re.compile(rf"(?<![.,:])(?<![^\W{_HAN}])([0-9]+(?:[.,][0-9]+)*)\s*([{_HAN}]|[^\W\d_{_HAN}]+)")
# a count in Chinese numerals before its measure word ("四台设备", "三位家人", "四百集"); not an ordinal
# ("第三"), and "一" alone is mostly a word's part ("一起", "统一"), not a count
_NUMERALS = "〇零一二两兩三四五六七八九十百千万萬"
_HAN_COUNTED = re.compile(rf"(?<![{_NUMERALS}第])([{_NUMERALS}]+)(?![{_NUMERALS}])([{_HAN}])")
# the general measure word says nothing of what is counted: the noun after it does ("三个人" counts
# people, "三个等级" tiers), so the count's unit takes that character too
_GENERAL_MEASURE = frozenset("个個")


def counted_word(folded: str, word: str, end: int) -> str:
    """The counted thing of a count whose measure word ``word`` ends at ``end``: the general measure
    word with the character after it, any other as it stands."""
    if word in _GENERAL_MEASURE and end < len(folded) and "\u3400" <= folded[end] <= "\u9fff":
        return word + folded[end]
    return word


def other_things(unit: str, other: str) -> bool:
    """Whether two count units name different things by the noun after a general measure word
    ("count:个人" and "count:个等"): a count of one is no support for a count of the other."""
    one, two = unit.split(":", 1)[-1], other.split(":", 1)[-1]
    general = one[:1] in _GENERAL_MEASURE and two[:1] in _GENERAL_MEASURE
    return general and one != two and len(one) == len(two) == 2


_LATIN = (*range(0x41, 0x250), *range(0x1E00, 0x1F00))
_LOWER = {code: low for code in _LATIN if len(low := chr(code).lower()) == 1 and low != chr(code)}
# Persian writes a word's parts apart with a zero-width non-joiner ("نشانی‌های", "می‌شوند"); typed
# text often has a space or nothing there: read as a space, so words split the same way in both
_LOWER[0x200C] = " "
_ACCENTS = {
    code: base
    for code in _LATIN
    if len(base := unicodedata.normalize("NFD", chr(code))[0].lower()) == 1 and base != chr(code)
} | {ord("đ"): "d", ord("Đ"): "d"}
_Amount = tuple[Decimal, str]
_COUNT = "count:"  # the unit prefix of counted things: "count:lan" for "20 lần"


def lower(text: str) -> str:
    """Lower-case, digit-normalized ``text`` of the same length as ``nfc(text)``, a zero-width
    non-joiner read as a space; accents kept, so the packs' markers stay apart ("mỗi" each, "mọi"
    every)."""
    return fold_digits(nfc(text)).translate(_LOWER)


def fold(text: str) -> str:
    """``lower(text)`` without accents (đ -> d): how a question typed without them is compared."""
    return lower(text).translate(_ACCENTS)


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
    for key in ordered_tokens(text):
        keys.add(key)
        keys.update(stems(key, endings))  # a Chinese pair is too short to shed an ending
    return keys


def ordered_tokens(text: str) -> list[str]:
    """The keys of folded ``text`` that ``tokens`` yields for its words and Chinese pairs, in the order
    they stand and once each (numbers left out)."""
    keys: list[str] = []
    for run in _TOKEN.findall(text):
        if "\u3400" <= run[0] <= "\u9fff":
            keys += [run[i : i + 2] for i in range(max(len(run) - 1, 1))]
        else:
            keys.append(run)
    return list(dict.fromkeys(keys))


def stems(word: str, endings: Sequence[str]) -> set[str]:
    """``word`` without each inflection ending it carries, when at least three letters remain."""
    return {word[: -len(e)] for e in endings if len(word) - len(e) >= 3 and word.endswith(e)}


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


def _overlaps(match: re.Match[str], spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < match.end() and match.start() < end for start, end in spans)


def _digit_between(text: str, start: int, end: int) -> bool:
    return any(char.isdigit() for char in text[start:end])


_REACH = 400  # characters a comma part reaches either side of its value: an unpunctuated run is no part


def _part(low: str, start: int, end: int, position: int) -> tuple[int, int]:
    """The comma part of the clause ``low[start:end]`` around ``position``, at most ``_REACH``
    characters either side (a flattened table without punctuation would otherwise make every value's
    part the whole chunk, and the work per chunk quadratic)."""
    start, end = max(start, position - _REACH), min(end, position + _REACH)
    part_start, part_end = start, end
    # a bracket's commas list its own items ("do lỗi của hãng (kỹ thuật, tổ bay, điều hành): 400.000
    # đồng"): they do not divide the sentence around it
    brackets = [
        (m.start(), m.end()) for m in _PAREN.finditer(low, start, end) if not m.start() < position < m.end()
    ]
    for match in _COMMA.finditer(low, start, end):
        if brackets and any(a < match.start() < b for a, b in brackets):
            continue
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
