"""The local judge: verdicts from rules, numbers and lexical evidence, no LLM.

It is the default judge when no LLM endpoint is configured, so every sampled trace gets a score
offline. Each claim (``monitor.judge.claims``) is measured against all chunks combined
(``monitor.judge.support``: coverage, content-word pairs, word order, novelty, monitor.numeric's
verdict on quantities, polarity) and a logistic model fitted on human-labelled data
(``rules/local_judge.yaml``, ``scripts/fit_local_judge.py``) turns the features into the claim's
support probability (``ClaimVerdict.score``); a claim with a number in no chunk, or a copied claim with
its polarity flipped, gets 0. A claim is supported from ``model.threshold``; faithfulness (``triad``)
is the mean support probability. A chunk is useful when it holds the best-covering sentence of a
supported claim. Answer relevance is the calibrated e5 similarity of question and answer; a one-claim
answer's support also reads e5 (``answer_similarity``: its opening against the chunk sentence covering
most of its words, scored by the rules' ``similarity_model``); abstention, noncommittal and
support-contact phrases come from ``rules/abstention/*.yaml``.
"""

from __future__ import annotations

import asyncio
import functools
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib.resources import files
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import yaml

from monitor import triad
from monitor.conditional import ConditionalRules
from monitor.conditional.check import lower
from monitor.conditional.hours import EVERY_DAY, ClockReader, blank
from monitor.conditional.packs import load_packs
from monitor.embeddings import Embedder, VectorCache, Vectors
from monitor.exceptions import ConfigError
from monitor.golden.abstain import AbstentionClauses
from monitor.judge.base import ClaimVerdict, JudgeInput, JudgeResult, Usage, Verdicts
from monitor.judge.claims import (
    CJK,
    Claim,
    Languages,
    comparable,
    detect_language,
    fold,
    split_claims,
    split_sentences,
)
from monitor.judge.support import (
    FEATURES,
    ContextIndex,
    SupportModel,
    char_bigrams,
    novelty,
    pair_share,
    share,
)
from monitor.numeric import NumericRules
from monitor.numeric.text import nfc
from monitor.rulepacks import RulePacks

JUDGE_NAME = "local"
JUDGE_VERSION = "local-v1"
Matrix = npt.NDArray[np.float64]
Vector = npt.NDArray[np.float64]
# Anchoring is measured for claims of at most this many content units (the fitted cut-off is below it).
_ANCHOR_MAX_UNITS = 8
# Coverage of its content words from which a claim with flipped polarity contradicts, not paraphrases.
_COPIED = 0.9
_QUANTITY_CACHE = 4096  # context sentences whose quantities are kept (like the fold and unit caches)
# What the judge checks of an answer written in another language than its chunks (``cross_language``)
CROSS_LANGUAGE_CHECKS = ("numbers", "lexical")
_NUMBERS_BAD = FEATURES.index("numbers_bad")
_FLIP = FEATURES.index("flip")
_SIMILARITY = FEATURES.index("answer_similarity")
# context sentences whose e5 rows are kept (``answer_similarity``): popular chunks recur across traces
_SENTENCE_VECTORS = 2048
_PHONE_RUN = re.compile(r"\+?\d(?:[\d().\- ]*\d)?")  # a phone number's digits and separators
_PHONE_MIN = 100  # the smallest number a context sentence's contact pointer is read as a phone line by
Numbers = tuple[frozenset[tuple[float, str | None]], frozenset[float]]  # quantities, bare values

_CJK_RUN = re.compile(f"[{CJK}]+")
_KANA = re.compile(r"[\u3040-\u30ff]")
# name-like runs of a claim (``names_novel``): katakana words, ideograph runs, words of spaced scripts
_NAME_RUN = re.compile(rf"[\u30a0-\u30ff]{{2,}}|[\u3400-\u4dbf\u4e00-\u9fff]{{2,}}|[^\W_{CJK}]+")
_WORD = re.compile(rf"[^\W_{CJK}]+")
_TOKEN = re.compile(rf"[^\W_{CJK}]+|[{CJK}]+")
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩０１２３４５６７８９", "012345678901234567890123456789")
# Latin letters with diacritics: text that carries them is read as written (see ``_negated``)
_MARKED = re.compile(r"[\u00e0-\u024f\u1e00-\u1eff]")
_NEGATABLE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")  # "nor'easter" is one word, not "nor"
# a number starts after no letter of a spaced script: in Chinese and Japanese it follows a character
# ("は9日", "共39人"), which the older rule (no word character before it) left unread
_NUMBER = re.compile(
    rf"(?<![.,])(?<![^\W{CJK}])(\d+(?:[.,]\d+)*)\s*(万|亿|億|千|million|billion|thousand|triệu|tỷ|nghìn|ngàn|میلیون|میلیارد|هزار)?",
    re.IGNORECASE,
)
_MULTIPLIER = {"万": 1e4, "亿": 1e8, "億": 1e8, "千": 1e3, "million": 1e6, "billion": 1e9, "thousand": 1e3}
_MULTIPLIER |= {
    "triệu": 1e6,
    "tỷ": 1e9,
    "nghìn": 1e3,
    "ngàn": 1e3,
    "میلیون": 1e6,
    "میلیارد": 1e9,
    "هزار": 1e3,
}


class Quantity(Protocol):
    """A number found in text, with its canonical unit when the extractor knows one."""

    @property
    def value(self) -> float | Decimal: ...

    @property
    def unit(self) -> str | None: ...


class NumberExtractor(Protocol):
    """What the judge needs from ``monitor.numeric.NumericRules``: quantities in a text."""

    def extract(self, text: str) -> Sequence[Quantity]: ...


@dataclass(frozen=True, slots=True)
class _Number:
    value: float
    unit: str | None = None


class PlainNumbers:
    """Bare numbers with scale words (万, million, triệu): what the unit rules skip (years, counts)."""

    def extract(self, text: str) -> Sequence[Quantity]:
        out: list[Quantity] = []
        for match in _NUMBER.finditer(text.translate(_DIGITS)):
            scale = _MULTIPLIER.get((match.group(2) or "").lower(), 1.0)
            out.append(_Number(round(_parse_number(match.group(1)) * scale, 6)))
        return out


def _parse_number(raw: str) -> float:
    """``30.000`` and ``1,000`` are thousands; ``3.5`` and ``3,5`` are decimals."""
    groups = re.split(r"[.,]", raw)
    if len(groups) > 1 and all(len(g) == 3 for g in groups[1:]):
        return float("".join(groups))
    if len(groups) > 2:  # a version or a date ("2.11.1"): its first group is the number it starts with
        return float(groups[0])
    return float(raw.replace(",", "."))


@dataclass(frozen=True, slots=True)
class Antonyms:
    """Word pairs of opposite meaning (``antonyms:`` in the rules), matched lowercase with diacritics kept:
    whole words in spaced scripts, substrings in Chinese and Japanese."""

    opposites: Mapping[str, tuple[str, ...]]
    words: re.Pattern[str] | None
    cjk: re.Pattern[str] | None

    @classmethod
    def from_rules(cls, lists: Mapping[str, Any]) -> Antonyms:
        """``lists``: per language, entries ``"word/opposite"``."""
        opposites: dict[str, set[str]] = {}
        for entry in (e for items in lists.values() for e in items):
            a, sep, b = str(entry).partition("/")
            if not sep or not a.strip() or not b.strip():
                raise ConfigError(f"an antonym entry is 'word/opposite', found {entry!r}")
            a, b = _lowered(a.strip()), _lowered(b.strip())
            opposites.setdefault(a, set()).add(b)
            opposites.setdefault(b, set()).add(a)
        ordered = sorted(opposites, key=len, reverse=True)
        spaced = [re.escape(w) for w in ordered if not _CJK_RUN.search(w)]
        cjk = [re.escape(w) for w in ordered if _CJK_RUN.search(w)]
        return cls(
            {w: tuple(sorted(o)) for w, o in opposites.items()},
            re.compile(rf"(?<!\w)(?:{'|'.join(spaced)})(?!\w)") if spaced else None,
            re.compile("|".join(cjk)) if cjk else None,
        )

    def terms(self, text: str) -> set[str]:
        """The listed words in ``text`` (already lowercased)."""
        found: set[str] = set()
        for pattern in (self.words, self.cjk):
            if pattern is not None:
                found.update(pattern.findall(text))
        return found

    def contradicted(self, claim: str, context: str) -> bool:
        """The claim says a word no chunk says whose opposite a chunk says (both lowercased). Only the
        claim is scanned for the listed words; the context is asked about the few it holds."""
        said = self.terms(claim)
        for word in said:
            if not _holds(context, word) and any(
                o not in said and _holds(context, o) for o in self.opposites[word]
            ):
                return True
        return False


def _holds(text: str, term: str) -> bool:
    if _CJK_RUN.search(term):
        return term in text
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text) is not None


def _lowered(text: str) -> str:
    """Lowercase, diacritics kept (NFC)."""
    return unicodedata.normalize("NFC", text.lower())


@dataclass(frozen=True, slots=True)
class LocalJudgeRules:
    """Everything the local judge reads from ``rules/``: weights, word lists and phrase packs."""

    model: SupportModel
    decided: Mapping[str, float]
    relevance_floor: float
    relevance_ceiling: float
    negation: frozenset[str]
    negation_zh: tuple[str, ...]
    negation_ja: tuple[str, ...]
    stopwords: frozenset[str]
    particles: frozenset[str]
    relevance_chars: int
    anchor_radius: int
    question_words: frozenset[str]
    abstention: tuple[str, ...]
    noncommittal: tuple[str, ...]
    contact: tuple[str, ...] = ()
    contact_calls: re.Pattern[str] | None = None  # "call", "gọi", "拨打": a phone line's pointer words
    abstention_clauses: AbstentionClauses = AbstentionClauses()
    politeness: frozenset[str] = frozenset()  # answer_politeness: words after an opening particle
    unreadable_markers: frozenset[str] = frozenset()  # relevance.unreadable: questions e5 cannot read
    unreadable_min: int = 2
    supported_from: float = 0.8  # a supported claim's score starts here (score_scale in the rules)
    unsupported_below: float = 0.7  # an unsupported claim's score stays below this
    attribution: tuple[re.Pattern[str], ...] = ()
    negation_marked: frozenset[str] = frozenset()  # the cues as written, for text with its diacritics
    negation_added: tuple[str, ...] = ()  # substring cues read only for ``negation_added`` (ja)
    antonyms: Antonyms = Antonyms({}, None, None)
    # which language a text is written in (stopwords and cross_language.letters of the rules)
    languages: Languages = Languages({})
    cross_language: str = "numbers"  # CROSS_LANGUAGE_CHECKS: how an answer over foreign chunks is judged
    # ``answer_similarity`` (``similarity:`` in the rules): measured for answers of at most this many
    # claims in these languages, against the best sentence's first ``similarity_chars`` characters; a
    # claim where it is measured is scored by ``similarity_model`` (``model`` scores the others)
    similarity_claims: int = 1
    similarity_chars: int = 300
    similarity_languages: frozenset[str] = frozenset()
    similarity_model: SupportModel | None = None

    @classmethod
    def load(cls, rules_dir: Path | None = None) -> LocalJudgeRules:
        """Read ``local_judge.yaml`` and ``abstention/*.yaml`` from ``rules_dir`` (default: packaged)."""
        root: Any = rules_dir if rules_dir is not None else files("monitor") / "rules"
        data = _read_yaml(root / "local_judge.yaml")
        packs = [
            _read_yaml(p)
            for p in sorted(root.joinpath("abstention").iterdir(), key=str)
            if p.name.endswith(".yaml")
        ]
        try:
            relevance = data["relevance"]
            negation: Mapping[str, list[str]] = data["negation"]
            shifts = data.get("language_shift") or {}  # per language, on both models' logits
            return cls(
                model=SupportModel.from_rules({**data["model"], "language_shift": shifts}),
                decided={str(k): float(v) for k, v in (data.get("decided") or {}).items()},
                relevance_floor=float(relevance["floor"]),
                relevance_ceiling=float(relevance["ceiling"]),
                negation=_words({k: v for k, v in negation.items() if k not in ("zh", "ja")}),
                negation_zh=tuple(negation.get("zh", [])),
                negation_ja=tuple(negation.get("ja", [])),
                stopwords=_words(data["stopwords"]),
                particles=_words(data.get("answer_particles", {})),
                politeness=_words(data.get("answer_politeness", {})),
                relevance_chars=int(relevance.get("answer_chars", 400)),
                unreadable_markers=frozenset(relevance.get("unreadable", {}).get("markers", [])),
                unreadable_min=int(relevance.get("unreadable", {}).get("min_markers", 2)),
                anchor_radius=int(data.get("anchor", {}).get("radius", 8)),
                question_words=_words(data.get("anchor", {}).get("question_words", {})),
                abstention=tuple(fold(p) for pack in packs for p in pack.get("abstention", [])),
                noncommittal=tuple(fold(p) for pack in packs for p in pack.get("noncommittal", [])),
                contact=tuple(fold(p) for pack in packs for p in pack.get("contact", [])),
                contact_calls=_alternation(
                    frozenset(
                        _lowered(str(w)) for ws in (data.get("contact_calls") or {}).values() for w in ws
                    )
                ),
                abstention_clauses=AbstentionClauses.load(packs),
                supported_from=float(data.get("score_scale", {}).get("supported_from", 0.8)),
                unsupported_below=float(data.get("score_scale", {}).get("unsupported_below", 0.7)),
                attribution=tuple(re.compile(p, re.IGNORECASE) for p in data.get("attribution", [])),
                negation_marked=_marked_words({k: v for k, v in negation.items() if k not in ("zh", "ja")}),
                negation_added=tuple(
                    str(c) for items in (data.get("negation_added") or {}).values() for c in items
                ),
                antonyms=Antonyms.from_rules(data.get("antonyms") or {}),
                languages=Languages.of(
                    {str(k): [str(w) for w in v] for k, v in data["stopwords"].items()},
                    (data.get("cross_language") or {}).get("letters"),
                ),
                cross_language=_cross_language(data.get("cross_language") or {}),
                similarity_claims=int((data.get("similarity") or {}).get("max_claims", 1)),
                similarity_chars=int((data.get("similarity") or {}).get("sentence_chars", 300)),
                similarity_languages=frozenset(
                    str(x) for x in (data.get("similarity") or {}).get("languages", [])
                ),
                similarity_model=(
                    SupportModel.from_rules({**data["similarity_model"], "language_shift": shifts})
                    if data.get("similarity_model")
                    else None
                ),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"invalid local judge rules in {root}: {exc!r}") from exc

    def unreadable(self, question: str) -> bool:
        """Whether e5 cannot read the question (Vietnamese without diacritics): ASCII letters only and
        at least ``unreadable_min`` of the marker words."""
        if not self.unreadable_markers or not question.isascii():
            return False
        words = re.findall(r"[a-z]+", question.lower())
        return sum(1 for w in words if w in self.unreadable_markers) >= self.unreadable_min

    def opening(self, text: str) -> str:
        """The claim without an opening answer particle and its politeness words ("Có bạn nhé, khách đổi
        ý tự chịu phí ..." -> "khách đổi ý tự chịu phí ..."): the particle answers the question."""
        head, sep, rest = text.partition(",") if "," in text[:40] else text.partition("，")
        if not sep or not rest.strip():
            return text
        words = fold(head).strip(" .!?。！？").split()
        if words and words[0] in self.particles and all(w in self.politeness for w in words[1:]):
            return rest.strip()
        return text

    def is_claim(self, text: str) -> bool:
        """Abstention sentences, support-contact pointers and bare yes/no particles (with their politeness
        words: "Không ạ") are no checkable facts."""
        folded = fold(text).strip(" .,!?。！？")
        if folded in self.particles:
            return False
        words = folded.split()
        if words and words[0] in self.particles and all(w in self.politeness for w in words[1:]):
            return False
        if any(p in folded for p in self.contact) and not any(ch.isdigit() for ch in text):
            return False  # "liên hệ CSKH": where to ask, not a fact (a phone number would be one)
        if self.abstention_clauses.abstains(text):
            return False  # "chính sách của BanHang không nói về ...": a denial of a source, no fact
        return not any(p in folded for p in self.abstention + self.noncommittal)

    def without_abstention(self, claims: Sequence[ClaimVerdict], answer: str) -> tuple[ClaimVerdict, ...]:
        """An LLM's claims minus the answer's abstention: a claim that is no fact by the phrase packs, or an
        unsupported one sharing most of its words with an abstention sentence of the answer ("The
        documents do not say whether the shop sells plane tickets" for "tài liệu không nói về ...")."""
        declined = [lexical_units(s, self.stopwords) for s in split_sentences(answer) if not self.is_claim(s)]
        kept = []
        for claim in claims:
            units = lexical_units(claim.text, self.stopwords)
            echoes = any(coverage(units, sentence) >= 0.5 for sentence in declined)
            if self.is_claim(claim.text) and not (echoes and not claim.supported):
                kept.append(claim)
        return tuple(kept)


def _cross_language(section: Mapping[str, Any]) -> str:
    check = str(section.get("check", "numbers"))
    if check not in CROSS_LANGUAGE_CHECKS:
        raise ConfigError(f"cross_language.check is one of {CROSS_LANGUAGE_CHECKS}, found {check!r}")
    return check


def _words(lists: Mapping[str, Any], skip: str = "") -> frozenset[str]:
    """Folded words of every language's list; a non-string entry (YAML reads bare ``no`` as false) fails."""
    words = [w for lang, items in lists.items() if lang != skip for w in items]
    if bad := [w for w in words if not isinstance(w, str)]:
        raise ConfigError(f"word lists must hold strings, found {bad!r} (quote YAML words like 'no' or 'on')")
    return frozenset(fold(w) for w in words)


def _marked_words(lists: Mapping[str, Any]) -> frozenset[str]:
    """The words of every language's list lowercased as written (diacritics kept)."""
    return frozenset(_lowered(str(w)) for items in lists.values() for w in items)


def _read_yaml(path: Any) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read rule pack {path}: {exc}") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"rule pack {path} is not a mapping")
    return loaded


def lexical_units(text: str, stopwords: frozenset[str] = frozenset()) -> set[str]:
    """Content words (folded) plus character bigrams of CJK runs: what lexical coverage counts."""
    return {u for u in unit_sequence(text) if u not in stopwords}


def unit_sequence(text: str) -> list[str]:
    """The units of ``lexical_units`` in text order, function words included: words and CJK bigrams."""
    return list(_units(text))


@functools.lru_cache(maxsize=4096)  # the units of recent chunk sentences and answers
def _units(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for run in _TOKEN.findall(fold(text)):
        if _CJK_RUN.match(run):
            out.extend(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
        else:
            out.append(run)
    return tuple(out)


def word_pairs(sequence: Sequence[str]) -> set[tuple[str, str]]:
    """Adjacent unit pairs: what a claim keeps of the context's word order when it copies it."""
    return set(zip(sequence, sequence[1:], strict=False))


def pair_coverage(claim: Sequence[str], context: set[tuple[str, str]]) -> float:
    """Share of the claim's adjacent unit pairs found adjacent in the context; 1.0 for a one-word claim."""
    pairs = word_pairs(claim)
    return len(pairs & context) / len(pairs) if pairs else 1.0


def anchoring(claim: set[str], question: set[str], windows: Sequence[set[str]], hits: Sequence[int]) -> float:
    """How near the question's words the claim sits, relative to the context's best place for the question.

    ``windows[p]`` holds the units around position ``p``; ``hits`` are the positions of claim units.
    The claim's best window (claim coverage x question coverage) over the best question coverage of any
    window: 1.0 when the claim is where the question points, lower when it is copied from elsewhere.
    """
    if not question or not windows:
        return 1.0
    best_anywhere = max(coverage(question, w) for w in windows)
    if best_anywhere == 0.0:
        return 1.0
    near = max((coverage(claim, windows[p]) * coverage(question, windows[p]) for p in hits), default=0.0)
    return near / best_anywhere


def coverage(claim: set[str], context: set[str]) -> float:
    """Share of the claim's units found in the context; 1.0 for a claim with no content units."""
    return len(claim & context) / len(claim) if claim else 1.0


@dataclass(frozen=True, slots=True)
class Measured:
    """A trace's claims with their support features (rows, in ``support.FEATURES`` order), before the
    model: ``window`` is each claim's coverage by each context sentence's window, ``sentence_chunk``
    the chunk of each context sentence."""

    claims: tuple[Claim, ...]
    features: Matrix
    window: Matrix
    sentence_chunk: tuple[int, ...]
    language: str
    opening: Vectors | None = None  # the answer's opening as e5 embedded it for ``answer_similarity``


def ranking_score(claims: Sequence[ClaimVerdict]) -> float | None:
    """The share of supported claims (score at or over the threshold), ties broken by the mean claim score.

    A second order of answers beside faithfulness (the mean claim score): the 1e-6 step keeps every
    difference of the supported share (at least 1/n^2 for n claims) larger than any tie-break.
    """
    if not claims:
        return None
    supported = sum(c.supported for c in claims) / len(claims)
    return supported + 1e-6 * sum(c.score or 0.0 for c in claims) / len(claims)


class LocalJudge:
    """Judges traces offline with rules and multilingual-e5-small; the default when no LLM is configured."""

    def __init__(
        self,
        embedder: Embedder,
        rules_dir: Path | None = None,
        numeric: NumberExtractor | None = None,
        *,
        answer_relevance: bool = True,
        packs: RulePacks | None = None,
        similarity: bool | None = None,
        conditional: ConditionalRules | None = None,
    ) -> None:
        """``answer_relevance=False`` leaves answer relevance undefined (``ragmon eval judge`` skips it);
        ``packs``: the composition root's rule packs, so the conditional packs are parsed once;
        ``similarity``: measure ``answer_similarity`` (None: when the rules have a ``similarity_model``;
        the fit script measures it always); ``conditional``: the conditional-value check whose critical
        findings cap a claim (loaded from ``packs`` when not given)."""
        self._embedder = embedder
        self._answer_relevance = answer_relevance
        self.rules = LocalJudgeRules.load(rules_dir)
        self._numbers: NumberExtractor = numeric if numeric is not None else NumericRules.load()
        # a value stated without the condition the chunks bind it to: monitor.conditional's verdict (an
        # instance of the judge's own: it runs in worker threads, apart from the pipeline's check)
        self._conditional = conditional or ConditionalRules.load(
            numeric if isinstance(numeric, NumericRules) else NumericRules.load(), packs
        )
        self._bare = PlainNumbers()
        # opening hours as one value on both sides: "9:00-18:00" is "上午9点至下午6点", not 9, 18 and 6
        self._clock = ClockReader(load_packs(packs if packs is not None else RulePacks(rules_dir)))
        # quantities per context sentence: every claim with a number reads all of them, and chunks recur
        self._quantities: OrderedDict[str, frozenset[tuple[float, str | None]]] = OrderedDict()
        self._similarity = self.rules.similarity_model is not None if similarity is None else similarity
        self._sentence_vectors = VectorCache(_SENTENCE_VECTORS)

    @property
    def name(self) -> str:
        return JUDGE_NAME

    @property
    def prompt_version(self) -> str:
        return JUDGE_VERSION

    async def judge(self, item: JudgeInput) -> JudgeResult:
        """Score one trace in a worker thread so the CPU work does not block the event loop."""
        verdicts, similarities = await asyncio.to_thread(self.decide, item)
        scores = triad.score(verdicts, similarities)
        return JudgeResult(JUDGE_NAME, JUDGE_VERSION, verdicts, scores, usage=Usage(calls=0))

    async def aclose(self) -> None:
        """Nothing to release: the embedder belongs to the caller."""

    def decide(self, item: JudgeInput) -> tuple[Verdicts, list[float]]:
        """Verdicts and the question-answer similarity for one trace (synchronous, CPU-bound)."""
        abstained, evasive = self._phrases(item.answer)
        # An honest abstention has nothing to compare with the question: relevance is undefined, not zero.
        asked = (
            self._answer_relevance
            and bool(item.question.strip())
            and not abstained
            and not self.rules.unreadable(item.question)
        )
        measured = self.measure(item)
        lexical = self.comparable(item)
        if lexical:
            claims = self._claim_verdicts(item, measured, self.support(measured))
        else:
            claims = self._number_verdicts(item, measured)
        useful = tuple(
            any(c.supported and chunk.chunk_id in c.chunk_ids for c in claims) for chunk in item.chunks
        )
        if not lexical and not claims:
            useful = ()  # nothing of the answer could be read against the chunks: usefulness unknown
        similarity = self.relevance(item.question, item.answer, measured.opening) if asked else None
        verdicts = Verdicts(
            claims=claims,
            chunk_useful=useful,
            reverse_questions=(item.answer,) if similarity is not None else (),
            noncommittal=(abstained or evasive,) if similarity is not None else (),
            abstained=abstained,
        )
        return verdicts, [similarity] if similarity is not None else []

    def comparable(self, item: JudgeInput) -> bool:
        """Whether the support model can read the answer against the chunks: both written in one
        language (``Languages.written_in``), or ``cross_language.check: lexical`` in the rules. An English or
        Chinese answer over Vietnamese chunks shares no words with them, whatever its truth."""
        if self.rules.cross_language == "lexical" or not item.chunks:
            return True
        languages = self.rules.languages
        chunks = " ".join(chunk.text for chunk in item.chunks)
        return comparable(languages.written_in(item.answer), languages.written_in(chunks))

    def _number_verdicts(self, item: JudgeInput, measured: Measured) -> tuple[ClaimVerdict, ...]:
        """The claims of an answer in another language than its chunks, judged by what needs no shared
        words: a claim holding a number is supported when monitor.numeric finds each of its quantities
        (and bare numbers) in the chunks, by the chunks holding them, and unsupported when one is in no
        chunk; a claim without a number cannot be judged and is left out, so an answer without one has
        undefined faithfulness (``None``: no flag) instead of the low score of words found nowhere."""
        held = [self._chunk_numbers(chunk.text) for chunk in item.chunks]
        out: list[ClaimVerdict] = []
        for row, claim in enumerate(measured.claims):
            quantities, values = self._numbers_of(self._unattributed(self.rules.opening(claim.text)))
            if not quantities and not values:
                continue
            supported = not measured.features[row, _NUMBERS_BAD]
            holders = (
                [i for i, (q, v) in enumerate(held) if quantities & q or values & v] if supported else []
            )
            ids = tuple(item.chunks[i].chunk_id for i in holders)
            out.append(ClaimVerdict(claim.text, supported, ids, None))
        return tuple(out)

    def _numbers_of(self, text: str) -> Numbers:
        """The quantities (value, unit) monitor.numeric reads in ``text``, its clock ranges, and its other
        bare numbers."""
        clocks, text = self._clocks(text)
        said = self._numbers.extract(text)
        rest = text
        for q in said:
            surface = getattr(q, "text", "")
            rest = rest.replace(surface, " ") if surface else rest
        quantities = frozenset((round(float(q.value), 6), q.unit) for q in said) | clocks
        return quantities, frozenset(round(float(q.value), 6) for q in self._bare.extract(rest))

    def _clocks(self, text: str) -> tuple[frozenset[tuple[float, str | None]], str]:
        """The clock ranges of ``text`` as quantities, and the text without them."""
        text = nfc(text)  # the clock reader's offsets are those of the NFC text
        low = lower(text)
        found = self._clock.ranges(low)
        # "seven days a week", "一周七天": every day, a day set and no quantity (one week, seven days);
        # blanked on both sides, so "一周七天" agrees with "seven days a week" ("six days a week" is read)
        every = [(s.start, s.end) for s in self._clock.days(low) if s.days == EVERY_DAY]
        if not found and not every:
            return frozenset(), text
        for start, end in every:
            text = text[:start] + " " * (end - start) + text[end:]
        return frozenset((round(float(q.value), 6), q.unit) for _, _, q in found), blank(text, found)

    def _chunk_numbers(self, text: str) -> Numbers:
        """A chunk's quantities and clock ranges, and every number of it (a claim's bare number may be
        any of them)."""
        clocks, _ = self._clocks(text)
        found = self._numbers.extract(text)
        values = {round(float(q.value), 6) for q in (*found, *self._bare.extract(text))}
        return frozenset((round(float(q.value), 6), q.unit) for q in found) | clocks, frozenset(values)

    def relevance(self, question: str, answer: str, opening: Vectors | None = None) -> float:
        """Question-answer similarity mapped from the compressed e5 range onto [0, 1]; ``opening``: the
        answer's opening already embedded (by ``measure``), so it is not embedded twice."""
        if opening is None:
            opening = self._embedder.embed([answer[: self.rules.relevance_chars]], "passage")
        cos = float((self._embedder.embed([question], "query") @ opening.T)[0, 0])
        span = max(self.rules.relevance_ceiling - self.rules.relevance_floor, 1e-6)
        return float(min(max((cos - self.rules.relevance_floor) / span, 0.0), 1.0))

    def support(self, measured: Measured) -> Vector:
        """Each claim's support probability: the model's, unless a decided feature caps it (a number
        missing from every chunk, a polarity mismatch)."""
        if not measured.claims or not measured.window.shape[1]:  # no context: nothing can be supported
            return np.zeros(len(measured.claims))
        probability = self.rules.model.probability(measured.features, measured.language)
        measured_similarity = ~np.isnan(measured.features[:, _SIMILARITY])
        if self.rules.similarity_model is not None and measured_similarity.any():
            # a one-claim answer with its e5 similarity has its own weights: the lexical model's stay
            # those fitted without it, for every answer where it is not measured
            rescored = self.rules.similarity_model.probability(measured.features, measured.language)
            probability = np.where(measured_similarity, rescored, probability)
        for name, cap in self.rules.decided.items():
            hit = measured.features[:, FEATURES.index(name)] > 0
            probability = np.where(hit, np.minimum(probability, cap), probability)
        return probability

    def measure(self, item: JudgeInput) -> Measured:
        """Split the answer into claims and measure every support feature of each against the chunks."""
        language = _language_key(item.language or detect_language(item.answer))
        claims = tuple(c for c in split_claims(item.answer, item.language) if self._is_claim(c.text))
        sentences, owner = _context_sentences(item)
        context = self._context(item, sentences, language)
        claims = tuple(c for c in claims if not self._pointer(c.text, context))
        stop = self.rules.stopwords
        window_units = [set(u) for u in context.sentence_units]
        windows = [_window(window_units, owner, i) for i in range(len(sentences))]
        texts = [self._unattributed(self.rules.opening(c.text)) for c in claims]
        units = [lexical_units(t, stop) for t in texts]
        window = np.array([[coverage(u, w) for w in windows] for u in units], dtype=np.float64).reshape(
            len(claims), len(sentences)
        )
        own = np.array([[coverage(u, s) for s in window_units] for u in units], dtype=np.float64)
        own = own.reshape(window.shape)
        mismatch = self._mismatch(texts, sentences).reshape(window.shape)
        polarity = [_polarity(window[i], own[i], mismatch[i], owner) for i in range(len(texts))]
        order, anchor, _ = self._placement(texts, item)
        answer = self._answer_features(item.answer, context)
        rows = [
            self._claim_features(text, context, window[i], polarity[i], order[i], anchor[i]) + answer
            for i, text in enumerate(texts)
        ]
        weakest = min((row[FEATURES.index("window")] for row in rows), default=0.0)
        added = self._added(texts, item)
        rows = [[*row, weakest, *extra, float("nan")] for row, extra in zip(rows, added, strict=True)]
        features = np.array(rows, dtype=np.float64).reshape(len(claims), len(FEATURES))
        similarity, opening = self._answer_similarity(item, features, context, language)
        features[:, _SIMILARITY] = similarity
        return Measured(claims, features, window, owner, language, opening)

    def _answer_similarity(
        self, item: JudgeInput, features: Matrix, context: _Context, language: str
    ) -> tuple[float, Vectors | None]:
        """e5 cosine of the answer's opening (``passage:``, what answer relevance embeds, so the
        embedder's cache serves both) and the context sentence covering most of its words (``query:``,
        cached here by text). NaN, with nothing embedded, where it is not measured: an answer of more
        than ``similarity_claims`` claims or in a language outside ``similarity_languages``, one whose
        every claim is already capped at 0 (a number in no chunk, a copied claim with its polarity
        flipped), an answer in another language than its chunks (its words pick no sentence), or no
        context. With it, the embedded opening (answer relevance reuses it)."""
        claims = len(features)
        if not self._similarity or not claims or claims > self.rules.similarity_claims:
            return float("nan"), None
        if language not in self.rules.similarity_languages:
            return float("nan"), None
        if not context.sentences or (features[:, [_NUMBERS_BAD, _FLIP]] > 0).any(axis=1).all():
            return float("nan"), None
        if not self.comparable(item):
            return float("nan"), None
        opening = item.answer[: self.rules.relevance_chars]
        asked = lexical_units(opening, self.rules.stopwords)
        covered = [coverage(asked, set(units)) for units in context.sentence_units]
        sentence = context.sentences[int(np.argmax(covered))][: self.rules.similarity_chars]
        answer = self._embedder.embed([opening], "passage")
        best = self._sentence_vectors.embed(self._embedder, [sentence], "query")
        return float(answer[0] @ best[0]), answer

    def _context(self, item: JudgeInput, sentences: Sequence[str], language: str = "") -> _Context:
        stop = self.rules.stopwords
        sentence_units = [[u for u in unit_sequence(s) if u not in stop] for s in sentences]
        tokens = [unit_sequence(chunk.text) for chunk in item.chunks]
        content = [[u for u in seq if u not in stop] for seq in tokens]
        chars = [char_bigrams(chunk.text) for chunk in item.chunks]
        index = ContextIndex.build(sentence_units, tokens, content, chars, _names(item.question))
        quantities: set[tuple[float, str | None]] = set()
        values: set[float] = set()
        for chunk in item.chunks:
            held, numbers = self._chunk_numbers(chunk.text)
            quantities |= held
            values |= numbers
        # a phone line's number has three digits or more: "SP-4. ... call support" states none
        calls = (self._numbers_of(s)[1] for s in sentences if self._calls(s))
        contacts = frozenset(v for values in calls for v in values if v >= _PHONE_MIN)
        return _Context(
            index,
            sentence_units,
            frozenset(quantities),
            frozenset(values),
            sentences,
            fold(item.question),
            self._unqualified(item),
            contacts,
        )

    def _unqualified(self, item: JudgeInput) -> frozenset[tuple[float, str]]:
        """The answer's values that monitor.conditional finds stated as general while the chunks bind
        them to a condition and give the general case another value: the pipeline's verdict when it
        ran the check (the cheap path checks every trace), else the judge's own check."""
        if item.told_to_everyone is not None:
            return item.told_to_everyone
        chunks = [c.text for c in item.chunks]
        return self._conditional.check(item.question, item.answer, chunks).told_to_everyone()

    def _calls(self, text: str) -> bool:
        """The text points to a phone line or support: a ``contact_calls`` word or a ``contact:`` phrase."""
        pattern = self.rules.contact_calls
        if pattern is not None and pattern.search(_lowered(text)):
            return True
        folded = fold(text)
        return any(p in folded for p in self.rules.contact)

    def _pointer(self, text: str, context: _Context) -> bool:
        """A contact pointer with a phone number ("If it's been longer, contact support at 611", "quá hạn
        thì gọi 611 nhé"): where to ask, not a policy fact, when the chunks hold each of its numbers or
        state no contact number at all. Beside a contact number the chunks do state, another one is a
        claim (a wrong hotline), and so is a pointer with a quantity or a clock ("call 611 within 14
        days")."""
        if not self._calls(text):
            return False
        # every number of it is a phone line (three digits or more: "611", "1-800-555-0142"); "Call 611
        # between 8 am and 10 pm" also states the hours, a fact to check
        rest = _PHONE_RUN.sub(
            lambda m: " " if sum(ch.isdigit() for ch in m.group()) >= 3 else m.group(), text
        )
        quantities, values = self._numbers_of(text)
        if quantities or not values or any(ch.isdigit() for ch in rest):
            return False
        return values <= context.values or not context.contacts

    def _claim_features(
        self, text: str, context: _Context, window: Vector, polarity: Polarity, order: float, anchor: float
    ) -> list[float]:
        """The claim's own features, in ``FEATURES`` order up to the answer-level ones."""
        content = [u for u in unit_sequence(text) if u not in self.rules.stopwords]
        best = int(np.argmax(window)) if window.size else -1
        novel_count, novel_idf, novel_run = novelty(content, context.index)
        return [
            share(set(content), context.index.units),
            float(window[best]) if best >= 0 else 0.0,
            pair_share(content, context.index.pairs),
            order,
            novel_count,
            novel_idf,
            novel_run,
            float(not self._numbers_found(text, context)),
            polarity.window,
            float(
                polarity.flipped
                and self._copied(content, context)
                and not self._negation_stated(text, context)
            ),
            float(self._condition_dropped(text, context)),
            float(np.log1p(len(set(content)))),
            anchor,
        ]

    def _added(self, texts: Sequence[str], item: JudgeInput) -> list[list[float]]:
        """Per claim, what it adds to the chunks: ``antonym``, ``negation_added``, ``names_novel``."""
        # the chunks' folded texts are cached (their units were read from them); the context is only
        # asked about what the claims hold, never scanned for every cue and antonym
        folded = " ".join(fold(chunk.text) for chunk in item.chunks)
        lowered = " ".join(_lowered(chunk.text) for chunk in item.chunks)
        marked = bool(_MARKED.search(lowered))
        asked = fold(item.question)
        out = []
        for text in texts:
            names = {fold(n) for n in _NAME_RUN.findall(text)}
            novel = [n for n in names if n not in folded and n not in asked]
            added = any(not self._cue_held(c, lowered, folded, marked) for c in self._cues(text))
            out.append(
                [
                    float(self.rules.antonyms.contradicted(_lowered(text), lowered)),
                    float(added),
                    float(np.log1p(len(novel))),
                ]
            )
        return out

    def _cue_held(self, cue: str, lowered: str, folded: str, marked: bool) -> bool:
        """Whether the context holds a negation cue of a claim: a substring cue anywhere; a word cue
        as written when both the cue and the context carry their diacritics ("không" is not "khong"
        there, nor "đừng" the folded "dung" of "áp dụng"), else folded on both sides, so a claim typed
        without diacritics finds "không" in a context that has them, and the other way round."""
        if cue in self.rules.negation_zh or cue in self.rules.negation_added:
            return cue in lowered
        if marked and _MARKED.search(cue):
            return _holds(lowered, cue)
        return _holds(folded, fold(cue))

    def _cues(self, text: str) -> set[str]:
        """The negation cues in ``text``: words (read with their diacritics when the text has them) and
        the Chinese and Japanese substring cues."""
        lowered = _lowered(text)
        if _MARKED.search(lowered):
            found = set(_NEGATABLE.findall(lowered)) & self.rules.negation_marked
        else:
            found = set(_NEGATABLE.findall(fold(text))) & self.rules.negation
        return found | {c for c in (*self.rules.negation_zh, *self.rules.negation_added) if c in text}

    def _condition_dropped(self, text: str, context: _Context) -> bool:
        """A quantity of the claim that monitor.conditional finds stated without the condition the
        chunks bind it to ("30 ngày" for everyone, from "Thành viên BanHang Plus ... 30 ngày"). A
        negated claim ("Điện thoại không được áp dụng 30 ngày") denies the quantity instead of granting
        it to everyone."""
        if not context.unqualified or self._negated(text):
            return False
        said = self._numbers.extract(text)
        return any((round(float(q.value), 6), q.unit) in context.unqualified for q in said)

    def _sentence_quantities(self, sentence: str) -> frozenset[tuple[float, str | None]]:
        found = self._quantities.get(sentence)
        if found is None:
            found = frozenset((round(float(q.value), 6), q.unit) for q in self._numbers.extract(sentence))
            self._quantities[sentence] = found
            if len(self._quantities) > _QUANTITY_CACHE:
                self._quantities.popitem(last=False)
        return found

    def _unattributed(self, text: str) -> str:
        """The claim without a trailing attribution ("... theo chính sách của BanHang"): the source's name
        is not a fact of the claim."""
        for pattern in self.rules.attribution:
            stripped = pattern.sub("", text).strip(" ,")
            if stripped and stripped != text:
                return stripped
        return text

    def _copied(self, content: Sequence[str], context: _Context) -> bool:
        """The claim's content words, negation cues aside, are (nearly) all in the chunks."""
        return share(set(content) - self.rules.negation, context.index.units) >= _COPIED

    def _negation_stated(self, text: str, context: _Context) -> bool:
        """Each negation of the claim is in a context sentence with the word after it, and that sentence
        holds the claim's clause around it, of the words some chunk holds ("Không có BHYT thì bạn trả …"
        for "Bệnh nhân không có BHYT trả 100%"): the claim spans sentences of both polarities (its best
        window is another), it does not flip one. A negation stated of another subject ("Khách chưa
        là thành viên không được hoàn tiền" for "Thành viên Plus không được hoàn tiền") excuses
        nothing. Spaced scripts only (CJK cues are substrings)."""
        if _CJK_RUN.search(text):
            return False
        lowered = unicodedata.normalize("NFC", text.lower())
        marked = bool(_MARKED.search(lowered))  # read as written, like ``_negated``: "áp dụng" is no "đừng"
        cues, read = (self.rules.negation_marked, _lowered) if marked else (self.rules.negation, fold)
        negated = []  # per clause with a negation: its (negation, next word) pairs and its content
        for clause in _clauses(text):
            words = _NEGATABLE.findall(read(clause))
            if pairs := [f"{w} {words[i + 1]}" for i, w in enumerate(words[:-1]) if w in cues]:
                # of the clause's words the chunks hold (one in no chunk, "bạn", is novelty's business)
                units = lexical_units(clause, self.rules.stopwords) - self.rules.negation
                negated.append((pairs, units & context.index.units))
        if not negated:
            return False
        stated = [
            (" ".join(_NEGATABLE.findall(read(s))), set(u))
            for s, u in zip(context.sentences, context.sentence_units, strict=True)
        ]
        return all(
            any(
                re.search(rf"(?<!\w){re.escape(pair)}(?!\w)", s) and coverage(content, units) >= _COPIED
                for s, units in stated
            )
            for pairs, content in negated
            for pair in pairs
        )

    def _answer_features(self, answer: str, context: _Context) -> list[float]:
        content = [u for u in unit_sequence(answer) if u not in self.rules.stopwords]
        return [
            share(unit_sequence(answer), context.index.tokens),
            share(char_bigrams(answer), context.index.chars),
            pair_share(content, context.index.pairs),
            novelty(content, context.index)[2],
        ]

    def _numbers_found(self, text: str, context: _Context) -> bool:
        """monitor.numeric's verdict for quantities ("30k" is 30.000 đồng); bare numbers (years, counts)
        outside any quantity must appear as some number of the context."""
        quantities, values = self._numbers_of(text)
        return quantities <= context.quantities and values <= context.values

    def _claim_verdicts(
        self, item: JudgeInput, measured: Measured, support: Vector
    ) -> tuple[ClaimVerdict, ...]:
        """A supported claim names the chunks of its best-covering sentences; every claim gets its
        support probability as its score."""
        threshold = self.rules.model.threshold
        out: list[ClaimVerdict] = []
        for row, claim in enumerate(measured.claims):
            probability = float(support[row])
            supported = probability >= threshold
            score = self.scaled(probability)
            hits: set[int] = set()
            if supported and measured.window.shape[1]:
                best = measured.window[row].max()
                # the best-covering sentence and every one nearly as good: a fact stated in two chunks is
                # in both. No absolute floor: the model found the claim supported, so the chunk that
                # covers it best is its support even when a paraphrase ("hai ngày" for "2 ngày") covers
                # little of it word for word (a floor here left context relevance 0 for such answers).
                cols = np.flatnonzero(measured.window[row] >= 0.75 * best) if best > 0 else ()
                hits = {measured.sentence_chunk[col] for col in cols}
            ids = tuple(item.chunks[i].chunk_id for i in sorted(hits))
            out.append(ClaimVerdict(claim.text, supported, ids, score))
        return tuple(out)

    def scaled(self, probability: float) -> float:
        """A claim's score on the scale the faithfulness bands read (rules/flags.yaml, seed 002 §9): the
        support probability mapped monotonically so that a supported claim scores at least
        ``supported_from`` (0.8) and an unsupported one below ``unsupported_below`` (0.7). The order of
        claims, and so the AUROC of a one-claim answer, is the probability's; a single supported claim
        no longer reads as "likely fabricating" because the model was only 57% sure."""
        t, high, low = self.rules.model.threshold, self.rules.supported_from, self.rules.unsupported_below
        p = min(max(probability, 0.0), 1.0)
        if p >= t:
            return high + (1.0 - high) * (p - t) / (1.0 - t) if t < 1.0 else 1.0
        return low * p / t if t > 0 else 0.0

    def _placement(self, claims: Sequence[str], item: JudgeInput) -> tuple[Vector, Vector, Vector]:
        """Per claim: its word pairs found in the context, its anchoring near the question's words, its
        number of content units (a short fragment like "John Goodman" is only checkable with the question).
        """
        stop = self.rules.stopwords
        sequences = [unit_sequence(chunk.text) for chunk in item.chunks]
        pairs = set().union(*(word_pairs(seq) for seq in sequences))
        flat = [u for seq in sequences for u in seq]
        radius = self.rules.anchor_radius
        windows = [set(flat[max(p - radius, 0) : p + radius + 1]) for p in range(len(flat))]
        asked = lexical_units(item.question, stop) - self.rules.question_words
        order, anchor, size = [], [], []
        for claim in claims:
            units = lexical_units(claim, stop)
            hits = [p for p, u in enumerate(flat) if u in units]
            short = len(units) <= _ANCHOR_MAX_UNITS
            order.append(pair_coverage(unit_sequence(claim), pairs))
            anchor.append(anchoring(units, asked - units, windows, hits) if short else 1.0)
            size.append(float(len(units)))
        return (np.array(order), np.array(anchor), np.array(size))

    def _mismatch(self, claims: Sequence[str], sentences: Sequence[str]) -> Matrix:
        """1 where a claim and the sentence clause that shares most of its words disagree in polarity.

        Looking at the clause, not the whole sentence, keeps a "not" elsewhere in a long sentence from
        contradicting every claim matched against it.
        """
        stop = self.rules.stopwords
        clauses = [[(self._negated(c), lexical_units(c, stop)) for c in _clauses(s)] for s in sentences]
        out = np.zeros((len(claims), len(sentences)), dtype=np.float64)
        for i, claim in enumerate(claims):
            units, negated = lexical_units(claim, stop), self._negated(claim)
            for j, parts in enumerate(clauses):
                best = max(parts, key=lambda part: len(units & part[1]))[0]
                out[i, j] = float(negated != best)
        return out

    def _negated(self, text: str) -> bool:
        folded = fold(text)
        if _KANA.search(text):  # Japanese: kanji like 不 and 未 start words (不明, 未来), not negations
            return any(cue in text for cue in self.rules.negation_ja)
        if any(cue in text for cue in self.rules.negation_zh) and _CJK_RUN.search(text):
            return True
        lowered = unicodedata.normalize("NFC", text.lower())
        if _MARKED.search(lowered):
            # the diacritics are there to read: folded, "áp dụng" (apply) would be "đừng" (don't) and
            # "chùa" (pagoda) "chưa" (not yet); only text typed without them is matched folded
            return bool(set(_NEGATABLE.findall(lowered)) & self.rules.negation_marked) or "n't" in folded
        return bool(set(_NEGATABLE.findall(folded)) & self.rules.negation) or "n't" in folded

    def _is_claim(self, text: str) -> bool:
        return self.rules.is_claim(text)

    def _phrases(self, answer: str) -> tuple[bool, bool]:
        folded = fold(answer)
        abstained = any(p in folded for p in self.rules.abstention) or self.rules.abstention_clauses.abstains(
            answer
        )
        return abstained, any(p in folded for p in self.rules.noncommittal)


@dataclass(frozen=True, slots=True)
class _Context:
    """A trace's chunks as the claims are measured against them."""

    index: ContextIndex
    sentence_units: list[list[str]]
    quantities: frozenset[tuple[float, str | None]]
    values: frozenset[float]
    sentences: Sequence[str] = ()
    question: str = ""  # folded
    unqualified: frozenset[tuple[float, str]] = frozenset()  # values stated without their condition
    contacts: frozenset[float] = frozenset()  # the numbers of context sentences pointing to a phone line


def _alternation(words: frozenset[str]) -> re.Pattern[str] | None:
    """One pattern matching any of the (folded) phrases as whole words, longest first."""
    if not words:
        return None
    ordered = sorted(words, key=len, reverse=True)
    # CJK has no spaces between words: its phrases match anywhere
    parts = [re.escape(w) if _CJK_RUN.search(w) else rf"(?<!\w){re.escape(w)}(?!\w)" for w in ordered]
    return re.compile("|".join(parts))


def _names(question: str) -> list[str]:
    """The names the user wrote (capitalized words): an answer repeating them invents nothing."""
    words = re.findall(rf"[^\W_{CJK}]+", question)
    return [fold(w) for i, w in enumerate(words) if w[:1].isupper() and (i > 0 or not w[1:].islower())]


def _language_key(language: str) -> str:
    """``vi-VN`` -> ``vi``: the standardization of the model is per language."""
    return language.lower().split("-")[0].split("_")[0]


def _context_sentences(item: JudgeInput) -> tuple[list[str], tuple[int, ...]]:
    sentences: list[str] = []
    owner: list[int] = []
    for index, chunk in enumerate(item.chunks):
        for sentence in split_sentences(chunk.text):
            sentences.append(sentence)
            owner.append(index)
    return sentences, tuple(owner)


_CLAUSE = re.compile(r"[,;:，；、،]|\s(?:but|while|although|whereas|nhưng|nhung|ولی|اما)\s|但|而")


def _clauses(sentence: str) -> list[str]:
    """A sentence cut at commas and contrastive conjunctions, where a negation's scope usually ends."""
    return [c for c in _CLAUSE.split(sentence) if c.strip()] or [sentence]


@dataclass(frozen=True, slots=True)
class Polarity:
    """A claim's polarity against the context: ``window``, 1.0 when it disagrees with its best-covering
    windows (the ``mismatch`` feature); ``sentence``, 1.0 when it disagrees with the sentence of those
    windows that holds most of its words."""

    window: float
    sentence: float

    @property
    def flipped(self) -> bool:
        """Both disagree: what the ``flip`` cap needs. The window alone is not enough: "Opened SIM cards
        cannot be returned." between a refund sentence and the one before it is the best window of a
        refund claim, but says nothing about refunds."""
        return self.window > 0 and self.sentence > 0


def _polarity(window: Vector, own: Vector, mismatch: Vector, owner: Sequence[int]) -> Polarity:
    """``window``, ``own``, ``mismatch``: the claim's coverage by each context sentence's window, by the
    sentence alone, and its polarity disagreement with it. A tie (a section label "DT-5." covers as much
    as the sentence after it) is read in the claim's favour."""
    if not window.size:
        return Polarity(0.0, 0.0)
    centres = np.flatnonzero(window >= window.max() - 1e-9)
    members = sorted(
        {
            j
            for i in map(int, centres)
            for j in (i - 1, i, i + 1)
            if 0 <= j < len(owner) and owner[j] == owner[i]
        }
    )
    best = max(own[j] for j in members)
    return Polarity(
        float(mismatch[centres].min()), float(min(mismatch[j] for j in members if own[j] >= best - 1e-9))
    )


def _window(units: Sequence[set[str]], owner: Sequence[int], i: int) -> set[str]:
    """A sentence with its neighbours in the same chunk: claims often span a sentence boundary."""
    out = set(units[i])
    for j in (i - 1, i + 1):
        if 0 <= j < len(units) and owner[j] == owner[i]:
            out |= units[j]
    return out
