"""Diacritic- and case-insensitive text keys for golden matching, and the cheap lexical similarity.

Customers write Vietnamese without accents and with chat abbreviations ("ko", "dc", "ship"); the
golden set is written either way. Both sides are folded (accents removed, đ -> d, lower case), the
abbreviation pack in ``rules/golden_abbreviations.yaml`` expands short forms and maps synonyms onto one
spelling, and filler words are dropped, so the words left are the question's intent.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from monitor.exceptions import ConfigError

_WORD = re.compile(r"\w+")
Phrase = tuple[str, ...]


def fold(text: str) -> str:
    """Lower-case ``text`` and strip its diacritics (đ -> d), so accented and plain spellings agree."""
    lowered = text.lower().replace("đ", "d")
    return "".join(c for c in unicodedata.normalize("NFD", lowered) if not unicodedata.combining(c))


@dataclass(frozen=True)
class Vocabulary:
    """The abbreviation pack: token expansions, phrase synonyms (longest first) and stopwords."""

    abbreviations: Mapping[str, Phrase]
    synonyms: tuple[tuple[Phrase, Phrase], ...]
    stopwords: frozenset[str]

    @classmethod
    def load(cls, path: Path | None = None) -> Vocabulary:
        """Read the pack from ``path``, or the one shipped in ``monitor/rules``; ConfigError when invalid."""
        source = path or resources.files("monitor") / "rules" / "golden_abbreviations.yaml"
        try:
            data = yaml.safe_load(source.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{source}: cannot read the abbreviation pack: {exc}") from exc
        return cls.from_mapping(data, str(source))

    @classmethod
    def from_mapping(cls, data: Any, origin: str = "abbreviations") -> Vocabulary:
        """Build a vocabulary from the pack's decoded YAML, naming the bad field in ConfigError."""
        if not isinstance(data, dict):
            raise ConfigError(f"{origin}: expected a mapping at the top level")
        abbreviations = {fold(k): _phrase(v) for k, v in _str_map(data, "abbreviations", origin).items()}
        synonyms = sorted(
            ((_phrase(k), _phrase(v)) for k, v in _str_map(data, "synonyms", origin).items()),
            key=lambda pair: -len(pair[0]),
        )
        stopwords = data.get("stopwords", [])
        if not isinstance(stopwords, list) or not all(isinstance(w, str) for w in stopwords):
            raise ConfigError(f"{origin}: 'stopwords' must be a list of strings")
        return cls(abbreviations, tuple(synonyms), frozenset(fold(w) for w in stopwords))

    def tokens(self, text: str) -> Phrase:
        """The intent words of ``text``: folded, abbreviations expanded, synonyms mapped, fillers dropped."""
        words: list[str] = []
        for word in _WORD.findall(fold(text)):
            words.extend(self.abbreviations.get(word, (word,)))
        return tuple(w for w in self._map_synonyms(words) if w not in self.stopwords)

    def _map_synonyms(self, words: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(words):
            for phrase, canonical in self.synonyms:
                if tuple(words[i : i + len(phrase)]) == phrase:
                    out.extend(canonical)
                    i += len(phrase)
                    break
            else:
                out.append(words[i])
                i += 1
        return out


def _phrase(value: object) -> Phrase:
    return tuple(fold(str(value)).split())


def _str_map(data: dict[str, Any], key: str, origin: str) -> dict[str, str]:
    value = data.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str | int) for v in value.values()):
        raise ConfigError(f"{origin}: '{key}' must map strings to strings")
    return {str(k): str(v) for k, v in value.items()}


def terms(tokens: Sequence[str]) -> frozenset[str]:
    """Unigrams and adjacent bigrams: bigrams keep "man hinh" apart from a stray "man"."""
    return frozenset(tokens) | frozenset(f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False))


class TermWeights:
    """Inverse document frequency over the golden questions; unseen terms weigh the most."""

    def __init__(self, documents: Iterable[frozenset[str]]) -> None:
        docs = list(documents)
        df = Counter(t for doc in docs for t in doc)
        self._n = len(docs)
        self._weights = {t: self._idf(count) for t, count in df.items()}
        self._unseen = self._idf(0)

    def _idf(self, df: int) -> float:
        return math.log(1.0 + (self._n + 1) / (df + 0.5))

    def weight(self, term: str) -> float:
        """The weight of one term."""
        return self._weights.get(term, self._unseen)

    def mass(self, items: Iterable[str]) -> float:
        """The summed weight of a set of terms."""
        return sum(self.weight(t) for t in items)


def lexical_similarity(query: frozenset[str], golden: frozenset[str], weights: TermWeights) -> float:
    """Weighted Dice of two term sets in [0, 1]: shared weight over the mean of both weights."""
    total = weights.mass(query) + weights.mass(golden)
    return 2.0 * weights.mass(query & golden) / total if total else 0.0
