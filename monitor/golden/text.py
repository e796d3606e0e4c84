"""Normalized text keys for golden matching, and the cheap lexical similarities.

Customers write Vietnamese without accents and in teen-code ("ko", "dc", "bn"), English with typos and
inflections, Chinese without spaces, and mix them ("refund sau khi tra hang", "change地址"). Both the
golden wordings and the live question go through one pipeline, so whatever it does it does to both:

1. ``fold``: NFKC (full-width forms), lower case, diacritics stripped, đ -> d.
2. Chinese runs: known words (the packs' synonyms and ``words``) are cut out whole, a synonym is
   replaced by its canonical spelling (which may be another language's word), stop strings are cut,
   and what is left is read as character bigrams (no segmenter: bigrams suffice for FAQ matching).
3. Other tokens: abbreviations expanded ("dc" -> "duoc"), a light English stemmer ("charges",
   "charged", "charging" -> "charg"), phrase synonyms mapped onto one spelling (longest first), and
   stopwords dropped, so the words left are the question's intent.

``qualifiers`` are words that change which answer applies (a membership, a defect, an excluded product
class, a direction such as porting *out*): the matcher discounts a wording whose qualifiers differ
from the question's, since sharing every other word with it is then no evidence of the same intent.

The vocabulary is data: one pack per language under ``rules/golden/`` (``vi.yaml``, ``en.yaml``,
``zh.yaml``), merged into one ``Vocabulary``; a key defined differently by two packs, a synonym defined
twice (in one file, or two keys that stem alike) and a synonym chain or cycle are each a ConfigError.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from monitor.exceptions import ConfigError

if TYPE_CHECKING:
    from monitor.rulepacks import RulePacks

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_PIECE = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
# A figure glued to its unit ("50gb", "5g", "24h") is read as two tokens: the unit word then maps.
_DIGITS = re.compile(r"\d+|\D+")
PACK_DIR = "golden"
Phrase = tuple[str, ...]


def fold(text: str) -> str:
    """Lower-case ``text`` and strip its diacritics (đ -> d), so accented and plain spellings agree."""
    lowered = unicodedata.normalize("NFKC", text).lower().replace("đ", "d")
    lowered = lowered.replace("'", "").replace("\u2019", "")  # didn't -> didnt, i'm -> im
    return "".join(c for c in unicodedata.normalize("NFD", lowered) if not unicodedata.combining(c))


def is_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK ideograph."""
    return _CJK_CHAR.search(text) is not None


def stem(word: str) -> str:
    """A light English stemmer: plurals, -ing, -ed, doubled consonants, a final e (ASCII words only).

    Vietnamese syllables never end in these suffixes once folded, so the stemmer runs on every token.
    """
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    elif word.endswith("ed") and len(word) >= 5:
        word = word[:-2]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    if word.endswith("e") and len(word) >= 5:
        word = word[:-1]
    return word


def _stemmed(value: object) -> Phrase:
    return tuple(stem(w) for w in fold(str(value)).split())


@dataclass(frozen=True)
class Vocabulary:
    """The merged golden text packs: abbreviations, synonyms (longest first), stopwords, Chinese words."""

    abbreviations: Mapping[str, Phrase]
    synonyms: tuple[tuple[Phrase, Phrase], ...]
    stopwords: frozenset[str]
    cjk_synonyms: Mapping[str, str] = field(default_factory=dict)
    cjk_words: frozenset[str] = frozenset()
    cjk_stopwords: frozenset[str] = frozenset()
    qualifier_texts: tuple[str, ...] = ()
    characters: Mapping[str, str] = field(default_factory=dict)
    ask_texts: tuple[str, ...] = ()
    contrast_texts: tuple[tuple[str, str, str], ...] = ()  # (dimension, case, wording)
    _cjk_pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    _qualifiers: frozenset[Phrase] = field(init=False, repr=False, compare=False, default=frozenset())
    _table: dict[int, str] = field(init=False, repr=False, compare=False, default_factory=dict)
    _asks: frozenset[str] = field(init=False, repr=False, compare=False, default=frozenset())
    _contrasts: tuple[tuple[str, str, Phrase], ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        # Longest first, so a word wins over a stop string or a shorter word inside it.
        known = sorted({*self.cjk_synonyms, *self.cjk_words, *self.cjk_stopwords}, key=lambda s: (-len(s), s))
        pattern = re.compile("|".join(map(re.escape, known))) if known else None
        object.__setattr__(self, "_cjk_pattern", pattern)  # frozen: set once, here
        object.__setattr__(self, "_table", str.maketrans(dict(self.characters)))
        qualifiers = frozenset(q for q in map(self.tokens, self.qualifier_texts) if q)
        object.__setattr__(self, "_qualifiers", qualifiers)
        object.__setattr__(self, "_asks", frozenset(t for text in self.ask_texts for t in self.tokens(text)))
        contrasts = tuple(
            (dimension, case, phrase)
            for dimension, case, text in self.contrast_texts
            if (phrase := self.tokens(text))
        )
        object.__setattr__(self, "_contrasts", contrasts)

    @classmethod
    def load(cls, path: Path | Traversable | None = None) -> Vocabulary:
        """The packs in a directory (default: the packaged ``rules/golden``), or one pack file."""
        source = path if path is not None else resources.files("monitor") / "rules" / PACK_DIR
        try:
            files = sorted(
                (f for f in source.iterdir() if f.name.endswith(".yaml")) if source.is_dir() else [source],
                key=lambda f: f.name,
            )
            packs = [(str(f), _unique_yaml(f.read_text(encoding="utf-8"), str(f))) for f in files]
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{source}: cannot read the golden text packs: {exc}") from exc
        return cls.merge(packs)

    @classmethod
    def from_packs(cls, packs: RulePacks) -> Vocabulary:
        """Every ``golden/*.yaml`` under the rule packs' root (``--rules-dir`` or the packaged one)."""
        directory = packs.path(PACK_DIR)
        if not directory.is_dir():
            raise ConfigError(f"{packs.label(PACK_DIR)}: not a directory of golden text packs")
        names = sorted(f.name for f in directory.iterdir() if f.name.endswith(".yaml"))
        if not names:
            raise ConfigError(f"{packs.label(PACK_DIR)}: no golden text packs (*.yaml)")
        return cls.merge([_read_pack(packs, f"{PACK_DIR}/{n}") for n in names])

    @classmethod
    def from_mapping(cls, data: Any, origin: str = "abbreviations") -> Vocabulary:
        """Build a vocabulary from one pack's decoded YAML, naming the bad field in ConfigError."""
        return cls.merge([(origin, data)])

    @classmethod
    def merge(cls, packs: Sequence[tuple[str, Any]]) -> Vocabulary:
        """One vocabulary from ``(origin, decoded YAML)`` packs; conflicting definitions are refused."""
        merged: dict[str, dict[str, tuple[str, str]]] = {
            "abbreviations": {},
            "synonyms": {},
            "characters": {},
        }
        stopwords: set[str] = set()
        words: set[str] = set()
        qualifiers: list[str] = []
        asks: list[str] = []
        contrasts: list[tuple[str, str, str]] = []
        for origin, data in packs:
            if not isinstance(data, dict):
                raise ConfigError(f"{origin}: expected a mapping at the top level")
            for key in merged:
                for name, value in _str_map(data, key, origin).items():
                    _define(merged[key], fold(name), fold(value), origin, key)
            _check_characters(data, origin)
            stopwords.update(fold(w) for w in _str_list(data, "stopwords", origin))
            words.update(fold(w) for w in _str_list(data, "words", origin))
            qualifiers.extend(_str_list(data, "qualifiers", origin))
            asks.extend(_str_list(data, "asks", origin))
            contrasts.extend(_contrasts(data, origin))
        texts = (
            tuple(dict.fromkeys(qualifiers)),
            tuple(dict.fromkeys(asks)),
            tuple(dict.fromkeys(contrasts)),
        )
        return cls._build(merged, stopwords, words, *texts)

    @classmethod
    def _build(
        cls,
        merged: dict[str, dict[str, tuple[str, str]]],
        stopwords: set[str],
        words: set[str],
        qualifiers: tuple[str, ...],
        asks: tuple[str, ...] = (),
        contrasts: tuple[tuple[str, str, str], ...] = (),
    ) -> Vocabulary:
        characters = {k: v for k, (v, _) in merged["characters"].items()}
        # Text folds its variant characters before anything else, so the packs' own keys do too.
        table = str.maketrans(characters)
        synonyms = {k.translate(table): v for k, (v, _) in merged["synonyms"].items()}
        stopwords = {w.translate(table) for w in stopwords}
        words = {w.translate(table) for w in words}
        cjk = {k: v.strip() for k, v in synonyms.items() if is_cjk(k)}
        latin = sorted(
            ((_stemmed(k), _stemmed(v)) for k, v in synonyms.items() if k not in cjk),
            key=lambda pair: -len(pair[0]),
        )
        _check_synonyms({k.translate(table): o for k, (_, o) in merged["synonyms"].items()}, synonyms, latin)
        return cls(
            abbreviations={k: tuple(v.split()) for k, (v, _) in merged["abbreviations"].items()},
            synonyms=tuple(latin),
            stopwords=frozenset(stem(w) for w in stopwords if not is_cjk(w)),
            cjk_synonyms=cjk,
            cjk_words=frozenset(w for w in words | {v for v in cjk.values() if is_cjk(v)} if is_cjk(w)),
            cjk_stopwords=frozenset(w for w in stopwords if is_cjk(w)),
            qualifier_texts=qualifiers,
            characters=characters,
            ask_texts=asks,
            contrast_texts=contrasts,
        )

    def tokens(self, text: str) -> Phrase:
        """The intent words of ``text``; Chinese outside the known words as character bigrams."""
        return self._normalize(text, bigrams=True)

    def qualifiers(self, tokens: Sequence[str]) -> frozenset[Phrase]:
        """The qualifiers (normalized like questions) that occur in ``tokens`` as a contiguous run."""
        found = set()
        for qualifier in self._qualifiers:
            n = len(qualifier)
            if any(tuple(tokens[i : i + n]) == qualifier for i in range(len(tokens) - n + 1)):
                found.add(qualifier)
        return frozenset(found)

    def topic(self, tokens: Sequence[str]) -> frozenset[str]:
        """The words of ``tokens`` that say what is asked about, without the ones that only ask
        ("how much", "bao lâu", "多少"): two questions sharing only those share no topic."""
        return frozenset(tokens) - self._asks

    def cases(self, tokens: Sequence[str]) -> frozenset[tuple[str, str]]:
        """The ``(dimension, case)`` pairs of the packs' contrasts that ``tokens`` name (a contiguous run):
        ("route", "domestic"), ("channel", "online")."""
        found = set()
        for dimension, case, phrase in self._contrasts:
            n = len(phrase)
            if any(tuple(tokens[i : i + n]) == phrase for i in range(len(tokens) - n + 1)):
                found.add((dimension, case))
        return frozenset(found)

    def intent_text(self, text: str) -> str:
        """The intent words as one string, Chinese runs kept whole (what the embedding compares)."""
        return " ".join(self._normalize(text, bigrams=False))

    def _normalize(self, text: str, bigrams: bool) -> Phrase:
        folded = fold(text).translate(self._table)
        if self._cjk_pattern is not None:
            folded = self._cjk_pattern.sub(self._cjk_replacement, folded)
        words: list[str] = []
        for piece in _PIECE.findall(folded):
            if is_cjk(piece):
                words.extend(self._cjk_tokens(piece) if bigrams else (piece,))
            else:
                for part in _DIGITS.findall(piece):
                    words.extend(stem(w) for w in self.abbreviations.get(part, (part,)))
        # Twice: a synonym's output may join the words beside it into another synonym ("switch" -> "move",
        # then "move my number" -> "port number"); no canonical form is rewritten (checked at load).
        mapped = self._map_synonyms(self._map_synonyms(words))
        return tuple(w for w in mapped if w not in self.stopwords)

    def _cjk_replacement(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if found in self.cjk_stopwords:
            return " "
        return f" {self.cjk_synonyms.get(found, found)} "

    def _cjk_tokens(self, run: str) -> Phrase:
        if run in self.cjk_words or len(run) == 1:
            return (run,)
        return tuple(run[i : i + 2] for i in range(len(run) - 1))

    def _map_synonyms(self, words: list[str]) -> list[str]:
        return _map_once(self.synonyms, words)


def _define(table: dict[str, tuple[str, str]], key: str, value: str, origin: str, field: str) -> None:
    previous = table.get(key)
    if previous is not None and previous[0] != value:
        raise ConfigError(f"{origin}: '{field}.{key}' is {value!r} here but {previous[0]!r} in {previous[1]}")
    table[key] = (value, origin)


def _unique_yaml(text: str, origin: str) -> Any:
    """Decoded YAML whose mappings may not repeat a key (PyYAML keeps the last one silently)."""

    class _Unique(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node)
            if key in seen:
                line = key_node.start_mark.line + 1
                raise ConfigError(f"{origin}: key {key!r} is defined twice (line {line})")
            seen.add(key)
        return loader.construct_mapping(node)

    _Unique.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Loader=_Unique)  # noqa: S506 - a SafeLoader subclass


def _read_pack(packs: RulePacks, name: str) -> tuple[str, Any]:
    """One golden pack from the rule packs' root, read with repeated keys refused."""
    origin = packs.label(name)
    try:
        return origin, _unique_yaml(packs.path(name).read_text(encoding="utf-8"), origin)
    except OSError as exc:
        raise ConfigError(f"{origin}: cannot read: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{origin}: invalid YAML: {exc}") from exc


def _check_synonyms(
    origins: Mapping[str, str], synonyms: Mapping[str, str], latin: Sequence[tuple[Phrase, Phrase]]
) -> None:
    """Refuse a synonym defined twice once stemmed, or whose canonical form another synonym rewrites.

    Synonyms map once, longest first: a chain (a -> b, b -> c) or a cycle (a -> b, b -> a) would make
    the result depend on the pass count, so each key must map straight onto a form no key rewrites.
    """
    seen: dict[Phrase, str] = {}
    for key in sorted(k for k in synonyms if not is_cjk(k)):
        phrase = _stemmed(key)
        if phrase in seen:
            first = seen[phrase]
            raise ConfigError(
                f"{origins[key]}: 'synonyms.{key}' is 'synonyms.{first}' of {origins[first]} once stemmed "
                f"({' '.join(phrase)!r}): the synonym is defined twice"
            )
        seen[phrase] = key
    for key, value in sorted(synonyms.items()):
        canonical = _stemmed(value)
        rewritten = _map_once(latin, list(canonical))
        if is_cjk(value) or tuple(rewritten) == canonical:
            continue
        kind = "a cycle" if _returns(latin, _stemmed(key), canonical) else "a chain"
        raise ConfigError(
            f"{origins[key]}: 'synonyms.{key}' -> {value!r} is rewritten again to {' '.join(rewritten)!r} "
            f"by another synonym ({kind}): map it straight onto the final form"
        )


def _returns(synonyms: Sequence[tuple[Phrase, Phrase]], key: Phrase, canonical: Phrase) -> bool:
    """Whether rewriting ``canonical`` again and again brings back ``key`` (a cycle, not a chain)."""
    words = list(canonical)
    for _ in range(8):  # packs are short chains at worst; a cycle shows within a few rewrites
        if any(tuple(words[i : i + len(key)]) == key for i in range(len(words) - len(key) + 1)):
            return True
        words = _map_once(synonyms, words)
    return False


def _map_once(synonyms: Sequence[tuple[Phrase, Phrase]], words: list[str]) -> list[str]:
    """Phrase synonyms applied once, longest first, left to right."""
    out: list[str] = []
    i = 0
    while i < len(words):
        for phrase, canonical in synonyms:
            if tuple(words[i : i + len(phrase)]) == phrase:
                out.extend(canonical)
                i += len(phrase)
                break
        else:
            out.append(words[i])
            i += 1
    return out


def _check_characters(data: dict[str, Any], origin: str) -> None:
    for name, value in _str_map(data, "characters", origin).items():
        if len(name) != 1 or len(value) != 1:
            raise ConfigError(f"{origin}: 'characters.{name}' must map one character to one character")


def _str_map(data: dict[str, Any], key: str, origin: str) -> dict[str, str]:
    value = data.get(key) or {}
    if not isinstance(value, dict) or not all(isinstance(v, str | int) for v in value.values()):
        raise ConfigError(f"{origin}: '{key}' must map strings to strings")
    return {str(k): str(v) for k, v in value.items()}


def _contrasts(data: dict[str, Any], origin: str) -> list[tuple[str, str, str]]:
    """A pack's ``contrasts``: dimension -> case -> the words naming that case, as flat triples."""
    value = data.get("contrasts") or {}
    if not isinstance(value, dict):
        raise ConfigError(f"{origin}: 'contrasts' must map a dimension to its cases")
    out: list[tuple[str, str, str]] = []
    for dimension, cases in value.items():
        if not isinstance(cases, dict):
            raise ConfigError(f"{origin}: 'contrasts.{dimension}' must map a case to a list of words")
        for case in cases:
            out.extend((str(dimension), str(case), w) for w in _str_list(cases, case, f"{origin} contrasts"))
    return out


def contradicts(question: frozenset[tuple[str, str]], wording: frozenset[tuple[str, str]]) -> bool:
    """Whether the two sides name different cases of one dimension, and neither names the other's
    ("domestic" against "international"): the question asks about a case the wording excludes."""
    for dimension in {d for d, _ in question} & {d for d, _ in wording}:
        if not {c for d, c in question if d == dimension} & {c for d, c in wording if d == dimension}:
            return True
    return False


def _str_list(data: dict[str, Any], key: str, origin: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise ConfigError(f"{origin}: '{key}' must be a list of strings")
    return value


def terms(tokens: Sequence[str]) -> frozenset[str]:
    """Unigrams and adjacent bigrams: bigrams keep "man hinh" apart from a stray "man"."""
    return frozenset(tokens) | frozenset(f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False))


def char_grams(tokens: Sequence[str], n: int = 3) -> frozenset[str]:
    """Character n-grams of the non-Chinese tokens, word edges marked: they survive typos ("laptp")."""
    grams: set[str] = set()
    for token in tokens:
        if not is_cjk(token):
            padded = f"#{token}#"
            grams.update(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))
    return frozenset(grams)


# Adjacent-word pairs confirm word order but repeat their words' evidence: they count for less.
PAIR_WEIGHT = 0.5


class TermWeights:
    """Inverse document frequency over the golden entries; unseen terms weigh the most."""

    def __init__(self, documents: Iterable[frozenset[str]]) -> None:
        docs = list(documents)
        df = Counter(t for doc in docs for t in doc)
        self._n = len(docs)
        self._weights = {t: self._idf(count) * (PAIR_WEIGHT if " " in t else 1.0) for t, count in df.items()}
        self._unseen = self._idf(0)

    def _idf(self, df: int) -> float:
        return math.log(1.0 + (self._n + 1) / (df + 0.5))

    def weight(self, term: str) -> float:
        """The weight of one term."""
        found = self._weights.get(term)
        if found is None:
            return self._unseen * (PAIR_WEIGHT if " " in term else 1.0)
        return found

    def mass(self, items: Iterable[str]) -> float:
        """The summed weight of a set of terms, the same whatever order the set iterates in.

        ``fsum`` rounds the exact sum once: a plain ``sum`` over a frozenset depends on its iteration
        order, which PYTHONHASHSEED changes, so two entries tied on the same weights (one shared
        term swapped for another of equal IDF) came out a few ulps apart, and which one won the tie,
        or whether a negative's bar held, changed from one process to the next.
        """
        return math.fsum(self.weight(t) for t in items)


def lexical_similarity(
    query: frozenset[str], golden: frozenset[str], weights: TermWeights, balance: float = 0.5
) -> float:
    """Shared weight over a weighted mean of both sides' weights, in [0, 1] (0.5: weighted Dice).

    A ``balance`` under 0.5 forgives the question's extra words more than the golden wording's
    missing ones: customers add context ("ran outta data lol"), the golden wording is terse.
    """
    total = balance * weights.mass(query) + (1.0 - balance) * weights.mass(golden)
    return weights.mass(query & golden) / total if total else 0.0
