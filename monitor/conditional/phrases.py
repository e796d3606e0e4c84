"""The condition phrases of a clause, read with the packs' vocabulary (see docs/conditional.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from monitor.conditional.hours import EVERY_DAY
from monitor.conditional.statements import _Condition, _inside
from monitor.conditional.text import (
    _ACCENTS,
    _FIRST_NUMBER,
    _LEADING,
    _LIST_COMMA,
    _NUMBER,
    _PAREN,
    _TOKEN,
    _blank,
    _digit_between,
    _has,
    _overlaps,
    _part,
    _whole_words,
    tokens,
)
from monitor.conditional.vocabulary import _Vocabulary

# the Chinese word glued before a tier that names it ("超级" of "超级VIP"): the tier alone ("VIP") names
# every level of it
_GLUED_NAME = re.compile(r"[\u3400-\u9fff]{2}$")
_ITEM_MARKS = frozenset("、")  # the enumeration comma: what stands between the items of a list
_PART_END = re.compile(r"[,，،]")  # the commas that end a part (the enumeration comma does not)
_ROW_LABEL = re.compile(r"[^\d:：|｜]{0,40}[:：|｜]")
_RULED = re.compile(r"[\d:：|｜]")  # before a row label's word: a value or a separator ends the label
_RANGE_GAP = re.compile(r"\s*[^\W\d_]+\s*")  # a word between a range's end and its "đến": "14 ngày tuổi đến"
_CASE_WORDS = 6  # words a leading case may run to: "Trên mạng chuyển vùng quốc tế,"
_POST_REACH = 40  # characters from a value to the "for" of its case: "45 USD mỗi lần đổi đối với"
# what an "including" word widens; people after one still name who a case holds ("（含学生会员）")
_WIDENED = frozenset({"days"})
_SPACE = re.compile(r"\s*")
_ALL_OF_REACH = 8  # characters before a group noun to look for its general word ("所有", "tất cả")
_INCLUDED_REACH = 24  # characters back from a condition to look for its "including" word
_INCLUDED_GAP = " ,，:：、"  # what may stand between "including" and what it names


def _right_before(
    matcher: re.Pattern[str], low: str, start: int, at: int, reach: int, gap: str | None = None
) -> bool:
    """Whether a form of ``matcher`` ends right before ``at`` (only ``gap`` characters between, by
    default spaces), at most ``reach`` characters back and not before ``start``."""
    return any(not low[m.end() : at].strip(gap) for m in matcher.finditer(low, max(start, at - reach), at))


def _labels(low: str, start: int, end: int) -> bool:
    """Whether a group noun's words run up to a row's separator ("Cư dân tòa nhà Phú Gia: 1.200.000đ",
    "Household | $25"): in a label the words after a group noun name it, whatever their case."""
    return _ROW_LABEL.match(low, start, end) is not None


class _PhraseReader:
    """Finds the condition phrases of a clause: markers, groups, tiers, classes, thresholds, "X thì Y"."""

    def __init__(self, vocabulary: _Vocabulary) -> None:
        self.vocabulary = vocabulary
        han = [w for w in self.vocabulary.stopwords if len(w) > 1 and "\u3400" <= w[0] <= "\u9fff"]
        self._han_split = re.compile("|".join(map(re.escape, sorted(han, key=len, reverse=True))) or r"(?!)")

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
            ("every", v.every_markers),
            ("except", v.except_markers),
            ("scope", v.scope_markers),
            ("closing_except", v.closing_excepts),
        )
        for kind, matcher in markers:
            for match in matcher.finditer(low, start, end):
                part_start, part_end = _part(low, start, end, match.start())
                if kind == "except" and v.closing_excepts.match(low, match.start()) is not None:
                    continue  # "除外" is the except after its words, not "除" before "外"
                if kind == "lead":
                    if low[part_start : match.start()].strip(_LEADING):
                        continue  # "riêng" opens a case only where a part starts: "buổi tập riêng" does not
                    kind = "if"
                if kind == "every":
                    if not self._names_case(low, match.end(), part_end):
                        continue  # "凡在本店购买需安装的商品，均…": every one of them, a general rule
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
                if kind == "scope" and low[max(match.start() - 1, 0) : match.start()] in _ITEM_MARKS:
                    continue  # "…、30天无理由退货、专属客服通道": a list's item (a dedicated line), no scope
                if kind == "closing_except":  # "黑金卡会员除外": the exception is named before the marker
                    keys, begin, kind = (
                        self._keys(self._before(low, part_start, match.start())),
                        part_start,
                        "except",
                    )
                elif not keys and kind == "scope":  # "VIP会员专享": the scope is named before the marker
                    words = self._before(low, part_start, match.start())
                    keys, begin = self._keys(words), part_start
                if keys:
                    stop, listed = self._listed(low, stop, end)
                    phrase = low[begin:stop].translate(_ACCENTS)
                    aliases = frozenset(listed | keys) if listed else frozenset()
                    out.append(
                        _Condition(kind, match.start(), stop, frozenset(keys), phrase=phrase, aliases=aliases)
                    )
        out += self._postposed(low, start, end, values)
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
            begin = match.start()
            glued = _GLUED_NAME.search(low, max(start, begin - 2), begin)
            if glued is not None and not self._glued_word(glued.group()):
                begin, tier_keys = glued.start(), frozenset({glued.group() + match.group()})
            tier = _Condition(
                "group", begin, match.end(), tier_keys, phrase=low[begin : match.end()].translate(_ACCENTS)
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
            tier = _Condition("group", match.start(), match.end(), frozenset({key}), phrase=key, place=True)
            if not _inside(tier, [*out, *excluded]) and not _overlaps(match, values):
                out.append(tier)
        # "Trên các chặng quốc tế, ...": a case only where no marker, group or tier names it already
        out += [
            c
            for c in self._cases(low, start, end, values)
            if not _inside(c, out) and not any(c.start <= o.start < c.end for o in out)
        ]
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
        # "24/7 bằng thẻ từ, kể cả Chủ nhật và ngày lễ", "open daily, including public holidays": the
        # days after "including" widen the days, they set none apart
        out = [
            c
            for c in out
            if not (
                c.kind in _WIDENED
                and _right_before(v.including, low, start, c.start, _INCLUDED_REACH, _INCLUDED_GAP)
            )
        ]
        out = self._named_again(low, start, end, self._joined_tiers(low, out), values)
        return self._branches(low, start, end, sorted(out, key=lambda c: c.start))

    def _joined_tiers(self, low: str, conditions: list[_Condition]) -> list[_Condition]:
        """Two tier words in a row are one name, the first qualifying the second ("黄金VIP", "Gold
        VIP"): carried by the qualifier ("黄金会员"), not by the second word every tier shares."""
        out: list[_Condition] = []
        for condition in sorted(conditions, key=lambda c: c.start):
            last = out[-1] if out else None
            if (
                last is not None
                and last.kind == condition.kind == "group"
                and 0 <= condition.start - last.end <= 1
                and not low[last.end : condition.start].strip()
                and self._tier(low, last)
                and self._tier(low, condition)
            ):
                phrase = low[last.start : condition.end].translate(_ACCENTS)
                keys, aliases = last.keys | condition.keys, last.aliases | condition.aliases
                out[-1] = replace(last, end=condition.end, keys=keys, phrase=phrase, aliases=aliases)
                continue
            out.append(condition)
        return out

    def _tier(self, low: str, condition: _Condition) -> bool:
        """Whether a condition is a tier word and nothing more ("黄金", "VIP", "超级VIP")."""
        match = self.vocabulary.tiers.search(low, condition.start, condition.end)
        return match is not None and match.end() == condition.end

    def _named_again(
        self,
        low: str,
        start: int,
        end: int,
        conditions: list[_Condition],
        values: Sequence[tuple[int, int]],
    ) -> list[_Condition]:
        """A bracket right after a group that states no value names that group again ("超级VIP（SVIP）")
        or what it includes ("黄金VIP（含学生会员）"): another name of the group, no condition of its own."""
        out = list(conditions)
        for match in _PAREN.finditer(low, start, end):
            a, b = match.start(1), match.end(1)
            if any(a <= s < b for s, _ in values):
                continue
            named: list[_Condition] = []  # the groups naming it together ("黄金" and "VIP" of "黄金VIP")
            edge = match.start()
            for c in sorted(out, key=lambda c: -c.end):
                if c.kind == "group" and c.end <= edge and not low[c.end : edge].strip():
                    named.append(c)
                    edge = c.start
            if not named:
                continue
            inside = [c for c in out if a <= c.start < b and c.kind in ("group", "class")]
            names = {k for c in inside for k in c.keys}
            short = _TOKEN.fullmatch(low[a:b].strip())  # a short name of its own: "SVIP", "OTC"
            shorts: frozenset[str] = frozenset()
            if short is not None and len(short.group()) <= 12:
                shorts = frozenset({short.group().translate(_ACCENTS)})
            if not names and not shorts:
                continue
            out = [c for c in out if c not in inside]
            for group in named:
                aliases = group.aliases | group.keys | names | shorts
                short_names = group.short_names | shorts
                out[out.index(group)] = replace(group, aliases=aliases, short_names=short_names)
        return out

    def _names_case(self, low: str, start: int, end: int) -> bool:
        """Whether what a universal quantifier names holds a tier or a threshold ("凡年卡会员", "凡一次性
        购买30节及以上的"): a case of its own, not all of a kind."""
        v = self.vocabulary
        return any(m.search(low, start, end) for m in (v.tiers, v.threshold_words, v.thresholds_after))

    def _cases(self, low: str, start: int, end: int, values: Sequence[tuple[int, int]]) -> list[_Condition]:
        """A comma part that opens with a preposition and states no value ("Trên các chặng quốc tế,
        em bé trả 20%", "On international routes, ...", "در پروازهای خارجی، ..."): the case of the
        values after it, kept only where a neighbouring sentence gives the unit another value."""
        v = self.vocabulary
        out: list[_Condition] = []
        for match in v.case_markers.finditer(low, start, end):
            part_start, part_end = _part(low, start, end, match.start())
            if low[part_start : match.start()].strip(_LEADING) or part_end >= end:
                continue  # a preposition inside the part says where or when, not which case
            if any(part_start <= s < part_end for s, _ in values) or _FIRST_NUMBER.match(
                low, match.end(), part_end
            ):
                continue  # "Trên 70 tuổi, ...": a threshold, read as one
            stop, keys = self._window(low, match.end(), part_end, limit=_CASE_WORDS)
            if not keys or v.events.search(low, match.end(), part_end) is not None:
                continue  # "On all flights, ...", "Trên các chuyến bị hủy, ...": no case, or an event
            phrase = low[match.start() : stop].translate(_ACCENTS)
            out.append(_Condition("if", match.start(), stop, frozenset(keys), phrase=phrase, contrast=True))
        listed = self._listed_case(low, start, end, values)
        return out if listed is None else [*out, listed]

    def _listed_case(
        self, low: str, start: int, end: int, values: Sequence[tuple[int, int]]
    ) -> _Condition | None:
        """A clause's first comma part that lists things and states no value ("冰箱、洗衣机、空调、电视等
        大家电，购买期限放宽至180天"): the case of the values after it, carried by any one of them; kept
        only where a neighbouring sentence gives the unit another value."""
        part_start = start + len(low[start:end]) - len(low[start:end].lstrip(_LEADING))
        comma = _PART_END.search(low, part_start, end)  # not "、": it stands between the items
        part_end = comma.start() if comma is not None else end
        text = low[part_start:part_end]
        if part_end >= end or not any(mark in text for mark in _ITEM_MARKS):
            return None
        if any(part_start <= s < part_end for s, _ in values) or any(ch.isdigit() for ch in text):
            return None
        keys = tokens(text.translate(_ACCENTS), self.vocabulary.plurals)
        if not keys:
            return None
        phrase = text.strip().translate(_ACCENTS)
        return _Condition("if", part_start, part_end, frozenset(keys), phrase=phrase, contrast=True)

    def _postposed(
        self, low: str, start: int, end: int, values: Sequence[tuple[int, int]]
    ) -> list[_Condition]:
        """Cases after each of a clause's values ("45 USD đối với vé Eco Saver và 20 USD đối với vé Eco
        Flex", "$40 for domestic flights, $60 for international ones"): each value's own, named by the
        words that set it apart from the others' ("Saver", not "Eco")."""
        v = self.vocabulary
        ordered = sorted(values)
        found: list[tuple[int, int, int, list[str]]] = []
        for index, (begin, stop) in enumerate(ordered):
            limit = ordered[index + 1][0] if index + 1 < len(ordered) else end
            match = v.post_markers.search(low, stop, min(limit, stop + _POST_REACH))
            if match is None or _FIRST_NUMBER.match(low, match.end(), limit):
                continue  # "trên 4 giờ": a threshold
            if self._counts(low[match.end() : limit].lstrip()):
                continue  # "CNY 300 per night for one person": what the value covers, no case
            if any(c in low[stop : match.start()] for c in ".;:：。；"):
                continue
            words: list[str] = []
            at = match.end()
            for token in _TOKEN.finditer(low, match.end(), limit):
                word = token.group()
                if len(words) >= 4 or any(c.isdigit() or c in ":：,，" for c in low[at : token.start()]):
                    break
                if word in v.general_words or word in v.stopwords or word in v.links:
                    if words or word in v.general_words:
                        break
                    continue
                words.append(word)
                at = token.end()
            if words and not (index + 1 < len(ordered) and not low[at:limit].strip()):
                # not "free for the first 2 hours": words that run into the next value measure it
                found.append((begin, match.start(), at, words))
        if len(found) < 2:
            return []  # one value with a "for" after it: mostly what it is for ("a fee for changes")
        out = []
        for begin, marker, stop, words in found:
            others = {w for b, _, _, ws in found if b != begin for w in ws}
            own = [w for w in words if w not in others and v.content(w)]
            keys = self._keys(own)
            if keys:
                phrase = " ".join(own).translate(_ACCENTS)
                out.append(_Condition("post", marker, stop, frozenset(keys), phrase=phrase, of=begin))
        return out

    def _counts(self, text: str) -> bool:
        """Whether ``text`` opens with a number word ("one person", "một lớp", "一人"); the numeric
        packs' words, which the check's reader knows (this base reader knows none)."""
        return False

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
            if term is not None and (
                self._range(low, term[1], end)
                or self._range_ends(low, start, match.start(), term[1], end, values)
            ):
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

    def _range_ends(
        self, low: str, start: int, marker: int, term_end: int, end: int, values: Sequence[tuple[int, int]]
    ) -> bool:
        """Whether a threshold is one end of a range that gives its terms each a bound ("em bé từ 14
        ngày tuổi đến dưới 2 tuổi", "aged 2 to under 12", "2岁至未满12岁"): a range of who, no
        condition on either end (a word such as "tuổi" may stand between an end and the range word)."""
        v = self.vocabulary
        after = _RANGE_GAP.match(low, term_end, end)
        for at in {
            term_end + len(low[term_end:end]) - len(low[term_end:end].lstrip()),
            after.end() if after else term_end,
        }:
            word = v.ranges.match(low, at, end)
            if word is not None:
                rest = low[word.end() : end].lstrip()
                if rest and (rest[0].isdigit() or v.threshold_words.match(rest) is not None):
                    return True
        for _, stop in values:
            if not start <= stop <= marker or marker - stop > 24:
                continue
            between = low[stop:marker].split()
            if between and v.ranges.fullmatch(between[-1]) is not None and len(between) <= 2:
                return True
            compact = low[stop:marker].strip()  # "2岁至未满12岁": no spaces between the words
            if compact and len(compact) <= 3 and not compact.isascii() and v.ranges.search(compact):
                return True
        return False

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
        groups = list(self.vocabulary.groups.finditer(low, start, end))
        # a group noun whose qualifier stands before it ("Delivery Pass holders") ends the qualifier
        nouns = [m.end() for m in groups if " ".join(m.group().split()) in self.vocabulary.before]
        low = _blank(low, [(m.start(), m.end()) for m in groups])
        for match in _TOKEN.finditer(low, start, end):
            between = low[stop : match.start()]
            if words and any(stop <= noun <= match.start() for noun in nouns):
                break  # "for Delivery Pass holders the reporting period": the name ends at its noun
            if not words and (number := _FIRST_NUMBER.match(between)) is not None:
                words.append(number.group(1))  # "aged 65 and over", "年满70周岁": the age names it
                stop += number.end()
                break
            if len(words) >= limit or any(c.isdigit() or c in ":：" for c in between):
                break
            word = match.group()
            if word in self.vocabulary.general_words:
                return match.end(), set()
            if word in self.vocabulary.stopwords or word in self.vocabulary.verbs:  # "تعلق می‌گیرد که"
                apart = word in self.vocabulary.plurals and between == " "  # "نشانی‌های" read with a space
                if words and not apart:
                    break  # the name ends where the clause goes on: "khu vực miền Bắc | được giao"
                continue  # a plural written apart goes on with its word ("نشانی‌های داخل تهران")
            words.append(word)
            stop = match.end()
        return stop, self._keys(words)

    def _glued_word(self, word: str) -> bool:
        """Whether a word is a tier, group or stopword of its own (not a name glued to a tier)."""
        v = self.vocabulary
        return any(m.search(word) for m in (v.tiers, v.groups)) or any(w in word for w in v.stopwords)

    def _keys(self, words: Sequence[str]) -> set[str]:
        """A condition's keys: its tier words when it names one, else its content words."""
        text = " ".join(words)
        endings = self.vocabulary.endings
        tiers = {tier for tier in self.vocabulary.tier_words if _has(text, tier, endings)}
        if tiers:  # a tier is carried as a phrase: "ưu tiên" is not "rút tiền"
            return {" ".join(tier.translate(_ACCENTS).split()) for tier in tiers}
        return tokens(text.translate(_ACCENTS), self.vocabulary.plurals)  # a key sheds plurals only

    def _group(self, low: str, surface: str, start: int, end: int, match: re.Match[str]) -> _Condition | None:
        """A group noun's condition, from the qualifier beside it; None when unqualified or general."""
        v = self.vocabulary
        part_start, part_end = _part(low, start, end, match.start())
        noun = " ".join(match.group().split())
        written, low = low, self._unbracketed(low, max(part_start, match.start() - 24), part_end)
        if low[match.start()].isspace():
            return None  # "12元/月（需学生认证）": a noun in a bracket is another name or a note, not a group
        if noun in v.before:
            # a label before the noun is the row's topic, not its qualifier ("积分规则：会员每消费1元积1分")
            first = max(part_start, *(low.rfind(mark, part_start, match.start()) + 1 for mark in ":："))
            words = self._before(low, first, match.start())
            after = self._linked(low, match.end(), part_end)
            words += after
        else:
            space = _SPACE.match(low, match.end())
            if space is not None and v.modals.match(low, space.end()) is not None:
                return None  # "Khách hàng có thể mua gói THEM5": customers can buy it, no group named
            words, first = self._linked(low, match.end(), part_end, link_needed=False), match.start()
        if (
            not words
            or any(v.general_word(w) for w in words)
            # "所有会员", "各类会员卡": all of the group, as "all members" (a token of its own) in English;
            # a Chinese run ("所有会员购票") is no token to look up
            or _right_before(v.general, low, part_start, match.start(), _ALL_OF_REACH)
        ):
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
