"""The local judge: verdicts from rules, numbers, lexical overlap and in-process embeddings, no LLM.

It is the default judge when no LLM endpoint is configured, so every sampled trace gets a score
offline. For each claim (``monitor.judge.claims``) it measures every context sentence:

- number+unit agreement: a claim whose quantity is in no chunk is unsupported, whatever else matches;
- lexical coverage of the claim's content words (accent-insensitive, so Vietnamese typed without
  diacritics still matches) or character bigrams (Chinese, Japanese) by a window of three sentences,
  and of all its tokens by the whole context;
- novelty: the share of its names, numbers and 4-character CJK runs that the window lacks;
- negation mismatch with the sentence clause that shares most of its words;
- word order: the share of its adjacent word pairs that are adjacent somewhere in the context;
- question anchoring of short answers ("John Goodman"): whether the claim sits where the question's
  words are, relative to the context's best place for them;
- embedding similarity (multilingual-e5-small), calibrated because e5 cosines are compressed, for the
  claims that lexical and numeric evidence leaves undecided, against their best few sentences only.

Each claim gets a support score in [0, 1] (``ClaimVerdict.score``) and is supported when it reaches the
threshold; ``ranking_score`` orders answers by faithfulness, then by mean claim score. A chunk is useful
when it supports at least one claim. Answer relevance is the calibrated similarity of question and
answer; abstention and noncommittal phrases come from ``rules/abstention/*.yaml``. Weights and thresholds
live in ``rules/local_judge.yaml`` (fitted by ``scripts/fit_local_judge.py``).
"""

from __future__ import annotations

import asyncio
import re
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
from monitor.embeddings import Embedder, Vectors
from monitor.exceptions import ConfigError
from monitor.judge.base import ClaimVerdict, JudgeInput, JudgeResult, Usage, Verdicts
from monitor.judge.claims import CJK, Claim, detect_language, fold, split_claims, split_sentences
from monitor.numeric import NumericRules

JUDGE_NAME = "local"
JUDGE_VERSION = "local-v1"
Matrix = npt.NDArray[np.float64]
Vector = npt.NDArray[np.float64]
# Anchoring is measured for claims of at most this many content units (the fitted cut-off is below it).
_ANCHOR_MAX_UNITS = 8

_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(rf"[^\W_{CJK}]+")
_TOKEN = re.compile(rf"[^\W_{CJK}]+|[{CJK}]+")
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
_NUMBER = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)*)\s*(万|亿|千|million|billion|thousand|triệu|tỷ|nghìn|ngàn|میلیون|میلیارد|هزار)?",
    re.IGNORECASE,
)
_MULTIPLIER = {"万": 1e4, "亿": 1e8, "千": 1e3, "million": 1e6, "billion": 1e9, "thousand": 1e3}
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
    return float(raw.replace(",", "."))


@dataclass(frozen=True, slots=True)
class SupportParams:
    """How the evidence of a claim-sentence pair combines into a support score in [0, 1].

    score = lexical_weight x window coverage + global_weight x token coverage by the whole context
    + (1 - both) x calibrated e5 similarity - penalties (negation mismatch, share of novel salient units);
    a claim whose numbers are not in the context is capped below the threshold (scaled by number_factor).
    """

    lexical_weight: float
    embedding_floor: float
    embedding_ceiling: float
    threshold: float
    global_weight: float = 0.0
    negation_penalty: float = 0.5
    novelty_penalty: float = 0.0
    lexical_sufficient: float = 1.01
    number_factor: float = 0.5
    order_penalty: float = 0.0
    anchor_penalty: float = 0.0
    fragment_units: int = 0

    def score(self, evidence: Evidence) -> Matrix:
        """Support of each claim (rows) by each context sentence (columns)."""
        span = max(self.embedding_ceiling - self.embedding_floor, 1e-6)
        calibrated = np.clip((evidence.cosine - self.embedding_floor) / span, 0.0, 1.0)
        # A pair that was not embedded (lexically decided claim, sentence outside the candidates) lets its
        # lexical coverage stand in for the similarity.
        semantic = np.where(np.isnan(evidence.cosine), evidence.lexical, calibrated)
        semantic_weight = max(1.0 - self.lexical_weight - self.global_weight, 0.0)
        combined = (
            self.lexical_weight * evidence.lexical
            + self.global_weight * evidence.coverage_all[:, None]
            + semantic_weight * semantic
        )
        # Near-complete word coverage with nothing novel supports on its own: e5 is weak on Vietnamese
        # typed without diacritics, and a copied sentence needs no embedding to be recognized.
        copied = _copied(evidence, self.lexical_sufficient)
        combined = np.where(copied, np.maximum(combined, self.threshold), combined)
        penalty = self.negation_penalty * evidence.mismatch + self.novelty_penalty * evidence.novel
        penalty = penalty + self._claim_penalty(evidence)[:, None]
        support = np.clip(combined - penalty, 0.0, 1.0)
        capped = np.minimum(support * self.number_factor, np.nextafter(self.threshold, 0.0))
        return np.where(np.asarray(evidence.numbers_ok)[:, None], support, capped)

    def _claim_penalty(self, evidence: Evidence) -> npt.NDArray[np.float64]:
        """Per claim: word pairs absent from the context, and a short answer found away from the question.

        Only fragments (at most ``fragment_units`` content units: "Paris", "the Kalmar Union") get the
        question-anchoring penalty; a full statement carries its own subject and verb.
        """
        fragment = evidence.claim_size <= self.fragment_units
        unanchored = np.where(fragment, 1.0 - evidence.anchor, 0.0)
        penalty: npt.NDArray[np.float64] = (
            self.order_penalty * (1.0 - evidence.order) + self.anchor_penalty * unanchored
        )
        return penalty


def _copied(evidence: Evidence, sufficient: float) -> npt.NDArray[np.bool_]:
    """Pairs where the window covers the claim's words, adds nothing novel and agrees in polarity."""
    copied: npt.NDArray[np.bool_] = (
        (evidence.lexical >= sufficient) & (evidence.novel == 0) & (evidence.mismatch == 0)
    )
    return copied


@dataclass(frozen=True, slots=True)
class LocalJudgeRules:
    """Everything the local judge reads from ``rules/``: weights, word lists and phrase packs."""

    support: SupportParams
    relevance_floor: float
    relevance_ceiling: float
    negation: frozenset[str]
    negation_zh: tuple[str, ...]
    stopwords: frozenset[str]
    particles: frozenset[str]
    embedding_candidates: int
    embedding_min_lexical: float
    relevance_chars: int
    anchor_radius: int
    question_words: frozenset[str]
    abstention: tuple[str, ...]
    noncommittal: tuple[str, ...]

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
            support, relevance = data["support"], data["relevance"]
            negation: Mapping[str, list[str]] = data["negation"]
            return cls(
                support=SupportParams(**support),
                relevance_floor=float(relevance["floor"]),
                relevance_ceiling=float(relevance["ceiling"]),
                negation=_words(negation, skip="zh"),
                negation_zh=tuple(negation.get("zh", [])),
                stopwords=_words(data["stopwords"]),
                particles=_words(data.get("answer_particles", {})),
                embedding_candidates=int(data.get("embedding_candidates", 3)),
                embedding_min_lexical=float(data.get("embedding_min_lexical", 0.0)),
                relevance_chars=int(relevance.get("answer_chars", 400)),
                anchor_radius=int(data.get("anchor", {}).get("radius", 8)),
                question_words=_words(data.get("anchor", {}).get("question_words", {})),
                abstention=tuple(fold(p) for pack in packs for p in pack.get("abstention", [])),
                noncommittal=tuple(fold(p) for pack in packs for p in pack.get("noncommittal", [])),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"invalid local judge rules in {root}: {exc!r}") from exc


def _words(lists: Mapping[str, Any], skip: str = "") -> frozenset[str]:
    """Folded words of every language's list; a non-string entry (YAML reads bare ``no`` as false) fails."""
    words = [w for lang, items in lists.items() if lang != skip for w in items]
    if bad := [w for w in words if not isinstance(w, str)]:
        raise ConfigError(f"word lists must hold strings, found {bad!r} (quote YAML words like 'no' or 'on')")
    return frozenset(fold(w) for w in words)


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
    out: list[str] = []
    for run in _TOKEN.findall(fold(text)):
        if _CJK_RUN.match(run):
            out.extend(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
        else:
            out.append(run)
    return out


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


def salient_units(text: str) -> list[tuple[str, ...]]:
    """Units whose absence suggests invention: names (capitalized inside a sentence), tokens with digits,
    and every run of four CJK characters (as its three bigrams)."""
    out: list[tuple[str, ...]] = []
    for index, word in enumerate(re.findall(rf"[^\W_{CJK}]+", text)):
        if (index > 0 and word[:1].isupper()) or any(ch.isdigit() for ch in word):
            out.append((fold(word),))
    for run in _CJK_RUN.findall(fold(text)):
        out.extend(tuple(run[j : j + 2] for j in range(i, i + 3)) for i in range(len(run) - 3))
    return out


def _novel(salient: Sequence[tuple[str, ...]], context: set[str]) -> float:
    """Share of the claim's salient units wholly absent from the context window (0 when it has none)."""
    if not salient:
        return 0.0
    return sum(not any(u in context for u in unit) for unit in salient) / len(salient)


def coverage(claim: set[str], context: set[str]) -> float:
    """Share of the claim's units found in the context; 1.0 for a claim with no content units."""
    return len(claim & context) / len(claim) if claim else 1.0


@dataclass(frozen=True, slots=True)
class Evidence:
    """Per-claim, per-context-sentence measurements of one trace, before any weight is applied.

    ``cosine`` is NaN for the pairs that were not embedded; ``coverage_all``, ``order`` (word pairs found
    in the context), ``anchor`` (how near the question's words the claim sits) and ``claim_size`` (content
    units) are per claim.
    """

    claims: tuple[Claim, ...]
    sentence_chunk: tuple[int, ...]
    lexical: Matrix
    cosine: Matrix
    mismatch: Matrix
    novel: Matrix
    numbers_ok: tuple[bool, ...]
    coverage_all: npt.NDArray[np.float64]
    order: Vector
    anchor: Vector
    claim_size: Vector


def ranking_score(claims: Sequence[ClaimVerdict]) -> float | None:
    """Faithfulness with ties broken by the mean claim support score: a continuous score to rank answers.

    Answers are ordered by faithfulness first; the 1e-6 step keeps every faithfulness difference
    (at least 1/n^2 for n claims) larger than any tie-break.
    """
    if not claims:
        return None
    faithfulness = sum(c.supported for c in claims) / len(claims)
    return faithfulness + 1e-6 * sum(c.score or 0.0 for c in claims) / len(claims)


class LocalJudge:
    """Judges traces offline with rules and multilingual-e5-small; the default when no LLM is configured."""

    def __init__(
        self,
        embedder: Embedder,
        rules_dir: Path | None = None,
        numeric: NumberExtractor | None = None,
        *,
        answer_relevance: bool = True,
    ) -> None:
        """``answer_relevance=False`` leaves answer relevance undefined (``ragmon eval judge`` skips it)."""
        self._embedder = embedder
        self._answer_relevance = answer_relevance
        self.rules = LocalJudgeRules.load(rules_dir)
        self._numbers: NumberExtractor = numeric if numeric is not None else NumericRules.load()
        self._bare = PlainNumbers()

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
        asked = self._answer_relevance and bool(item.question.strip()) and not abstained
        opening = [item.answer[: self.rules.relevance_chars]] if asked else []
        evidence, extra = self._evidence(item, opening)
        claims = self._claim_verdicts(item, evidence, self.rules.support.score(evidence))
        useful = tuple(
            any(c.supported and chunk.chunk_id in c.chunk_ids for c in claims) for chunk in item.chunks
        )
        similarity = self._relevance(item.question, extra) if asked else None
        verdicts = Verdicts(
            claims=claims,
            chunk_useful=useful,
            reverse_questions=(item.answer,) if similarity is not None else (),
            noncommittal=(abstained or evasive,) if similarity is not None else (),
            abstained=abstained,
        )
        return verdicts, [similarity] if similarity is not None else []

    def evidence(self, item: JudgeInput) -> Evidence:
        """Split claims and context sentences and measure every claim against every sentence."""
        return self._evidence(item, [])[0]

    def relevance(self, question: str, answer: str) -> float:
        """Question-answer similarity mapped from the compressed e5 range onto [0, 1]."""
        return self._relevance(
            question, self._embedder.embed([answer[: self.rules.relevance_chars]], "passage")
        )

    def _relevance(self, question: str, answer: Vectors) -> float:
        cos = float((self._embedder.embed([question], "query") @ answer.T)[0, 0])
        span = max(self.rules.relevance_ceiling - self.rules.relevance_floor, 1e-6)
        return float(min(max((cos - self.rules.relevance_floor) / span, 0.0), 1.0))

    def _evidence(self, item: JudgeInput, extra: Sequence[str]) -> tuple[Evidence, Vectors]:
        """Measure lexically, then embed the undecided claims, their candidate sentences and ``extra``
        as passages in ONE call (cached per text, so chunks recurring across traces cost nothing)."""
        language = item.language or detect_language(item.answer)
        claims = tuple(c for c in split_claims(item.answer, language) if self._is_claim(c.text))
        sentences, owner = _context_sentences(item)
        context_numbers = self._quantities(" ".join(chunk.text for chunk in item.chunks))
        numbers_ok = tuple(_numbers_agree(self._quantities(c.text), context_numbers) for c in claims)
        lexical, novel, coverage_all = self._lexical(claims, sentences, owner)
        mismatch = self._mismatch([c.text for c in claims], sentences)
        cosine = np.full(lexical.shape, np.nan)
        order, anchor, size = self._placement([c.text for c in claims], item)
        evidence = Evidence(
            claims, owner, lexical, cosine, mismatch, novel, numbers_ok, coverage_all, order, anchor, size
        )
        rows, cols = self._embedding_plan(evidence)
        texts = [claims[i].text for i in rows] + [sentences[j] for j in cols] + list(extra)
        if not texts:
            return evidence, np.zeros((0, 0), np.float32)
        vectors = self._embedder.embed(texts, "passage")
        if rows and cols:
            cosine[np.ix_(rows, cols)] = vectors[: len(rows)] @ vectors[len(rows) : len(rows) + len(cols)].T
        return evidence, vectors[len(rows) + len(cols) :]

    def _embedding_plan(self, evidence: Evidence) -> tuple[list[int], list[int]]:
        """Claims the lexical and numeric evidence leaves undecided, and each one's best few sentences.

        A claim with a number missing from the context is unsupported whatever e5 says, and a claim
        copied from a window is supported; the others get their top ``embedding_candidates`` sentences by
        lexical coverage, among those reaching ``embedding_min_lexical`` (e5 costs ~25 ms per sentence).
        """
        if not evidence.lexical.size:
            return [], []
        copied = np.atleast_1d(_copied(evidence, self.rules.support.lexical_sufficient).any(axis=1))
        rows = [i for i, ok in enumerate(evidence.numbers_ok) if ok and not bool(copied[i])]
        k, floor = self.rules.embedding_candidates, self.rules.embedding_min_lexical
        cols = {
            int(j)
            for i in rows
            for j in np.argsort(-evidence.lexical[i], kind="stable")[:k]
            if evidence.lexical[i, j] >= floor
        }
        return (rows, sorted(cols)) if cols else ([], [])

    def _claim_verdicts(
        self, item: JudgeInput, evidence: Evidence, supports: Matrix
    ) -> tuple[ClaimVerdict, ...]:
        """Supported claims name the chunks with a sentence over the threshold; every claim gets its best
        support score."""
        threshold = self.rules.support.threshold
        out: list[ClaimVerdict] = []
        for row, claim in enumerate(evidence.claims):
            best = float(supports[row].max()) if supports.shape[1] else 0.0
            hits = {evidence.sentence_chunk[col] for col in np.flatnonzero(supports[row] >= threshold)}
            ids = tuple(item.chunks[i].chunk_id for i in sorted(hits))
            out.append(ClaimVerdict(claim.text, bool(hits), ids, best))
        return tuple(out)

    def _lexical(
        self, claims: Sequence[Claim], sentences: Sequence[str], owner: Sequence[int]
    ) -> tuple[Matrix, Matrix, npt.NDArray[np.float64]]:
        """Coverage of each claim's content words by each sentence window, the share of its salient units
        missing from the window, and the coverage of all its tokens by the whole context."""
        stop = self.rules.stopwords
        units = [lexical_units(s, stop) for s in sentences]
        windows = [_window(units, owner, i) for i in range(len(sentences))]
        claim_units = [lexical_units(c.text, stop) for c in claims]
        # A salient stopword ("La Liga": "la" is a Vietnamese function word) is never in the context units.
        salient = [[u for u in salient_units(c.text) if not set(u) <= stop] for c in claims]
        shape = (len(claims), len(sentences))
        lexical = np.array([[coverage(cu, w) for w in windows] for cu in claim_units], dtype=np.float64)
        novel = np.array([[_novel(sal, w) for w in windows] for sal in salient], dtype=np.float64)
        # Every token counts here, function words included: a claim rephrased away from the context's
        # wording ("X was born in 1972" over "X (born March 17, 1972)") is a weaker match than a copied span.
        everything = set().union(*(lexical_units(s) for s in sentences))
        coverage_all = np.array(
            [coverage(lexical_units(c.text), everything) for c in claims], dtype=np.float64
        )
        return lexical.reshape(shape), novel.reshape(shape), coverage_all.reshape(len(claims))

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
        if any(cue in text for cue in self.rules.negation_zh) and _CJK_RUN.search(text):
            return True
        words = set(re.findall(r"[^\W_]+(?:['’][^\W_]+)*", folded))  # "nor'easter" is not "nor"
        return bool(words & self.rules.negation) or "n't" in folded

    def _quantities(self, text: str) -> set[tuple[float, str | None]]:
        """Number+unit pairs from the numeric rules, plus bare numbers (years, counts) with no unit."""
        found = {(round(float(q.value), 6), q.unit) for q in self._numbers.extract(text)}
        with_unit = {value for value, _ in found}
        bare = {round(float(q.value), 6) for q in self._bare.extract(text)} - with_unit
        return found | {(value, None) for value in bare}

    def _is_claim(self, text: str) -> bool:
        """Abstention sentences and bare yes/no particles state no checkable fact."""
        folded = fold(text).strip(" .,!?。！？")
        if folded in self.rules.particles:
            return False
        return not any(p in folded for p in self.rules.abstention + self.rules.noncommittal)

    def _phrases(self, answer: str) -> tuple[bool, bool]:
        folded = fold(answer)
        return any(p in folded for p in self.rules.abstention), any(
            p in folded for p in self.rules.noncommittal
        )


def _numbers_agree(claim: set[tuple[float, str | None]], context: set[tuple[float, str | None]]) -> bool:
    """Every quantity of the claim is in the context: with the same unit, or any unit for a bare number."""
    return all(any(v == cv and (u is None or u == cu) for cv, cu in context) for v, u in claim)


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


def _window(units: Sequence[set[str]], owner: Sequence[int], i: int) -> set[str]:
    """A sentence with its neighbours in the same chunk: claims often span a sentence boundary."""
    out = set(units[i])
    for j in (i - 1, i + 1):
        if 0 <= j < len(units) and owner[j] == owner[i]:
            out |= units[j]
    return out
