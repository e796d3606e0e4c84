"""Support features of a claim against a trace's chunks, and the learned model that combines them.

Every feature but one is lexical or numeric, measured against **all chunks combined**:

- ``coverage``: share of the claim's content units (folded words without stopwords; CJK character
  bigrams) found in the chunks; ``window``: the same for its best window of three context sentences;
- ``pairs``: share of its adjacent content-unit pairs (word bigrams without stopwords; for CJK, pairs of
  character bigrams) adjacent somewhere in the chunks; ``order``: the same over every unit, function
  words included;
- novelty of the units absent from every chunk: ``novel_count`` (log1p of their number),
  ``novel_idf`` (their share of the claim's IDF mass, IDF over the context's sentences: a unit found in
  no chunk weighs most, a unit repeated in every sentence least), ``novel_run`` (log1p of the longest
  run of consecutive novel units);
- ``numbers_bad``: a quantity (``monitor.numeric``: "30k", "30.000 đồng") or bare number (a year, a
  count) that no chunk holds; ``mismatch``: polarity disagreement with the best window's clause;
- ``flip``: the claim's content words (negations aside) are >= 90% in the chunks, its polarity flipped
  (capped at support 0 by ``decided`` in the rules, with ``numbers_bad``);
- ``condition_dropped``: a quantity of the claim is stated only in context sentences that restrict it
  to a condition ("Thành viên BanHang Plus ...", "members only") which the claim and the question lack;
- ``size``: log1p of the claim's content units; ``anchor``: question anchoring of short claims;
- answer-level, shared by the answer's claims: ``answer_coverage`` (every folded word token),
  ``answer_chars`` (character bigrams), ``answer_pairs``, ``answer_novel_run`` and ``answer_weakest``
  (the lowest window coverage of any of its claims: one unsupported sentence makes a summary unfaithful);
- ``antonym``: the claim holds a word no chunk holds whose antonym a chunk does hold ("giảm" where the
  chunks say "tăng", "最后" for "第一"; pairs in ``antonyms:`` of the rules), capped by ``decided``;
- ``negation_added``: the claim holds a negation cue that no chunk holds;
- ``names_novel``: log1p of the claim's name-like runs found in no chunk (katakana and ideograph runs of
  two or more characters, words of spaced scripts): Chinese and Japanese have no spaces, so these
  runs stand in for the words and names a summary adds;
- ``answer_similarity``: the one embedding feature, answer-level: multilingual-e5 cosine of the
  answer's opening (``passage:``, the text answer relevance embeds) and the context sentence that
  covers most of its words (``query:``). NaN where it is not measured (see ``LocalJudge``): a NaN
  feature contributes nothing (it stands at its language's mean).

``SupportModel`` is a logistic regression over these features, standardized with the mean and
standard deviation of the claim's language and clipped to +-3 deviations (``rules/local_judge.yaml``,
fitted by ``scripts/fit_local_judge.py``): ``probability`` is the claim's support score. A feature
with weight 0 in the rules was left out of the fit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.exceptions import ConfigError

FEATURES = (
    "coverage",
    "window",
    "pairs",
    "order",
    "novel_count",
    "novel_idf",
    "novel_run",
    "numbers_bad",
    "mismatch",
    "flip",
    "condition_dropped",
    "size",
    "anchor",
    "answer_coverage",
    "answer_chars",
    "answer_pairs",
    "answer_novel_run",
    "answer_weakest",
    "antonym",
    "negation_added",
    "names_novel",
    "answer_similarity",
)
Matrix = npt.NDArray[np.float64]
CLIP = 3.0  # standardized features are clipped to +-CLIP deviations


@dataclass(frozen=True, slots=True)
class ContextIndex:
    """What claims are measured against, built once per trace: the chunks' units, pairs and IDF."""

    units: frozenset[str]
    tokens: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    idf: Mapping[str, float]
    novel_idf: float
    chars: frozenset[str]

    @classmethod
    def build(
        cls,
        sentence_units: Sequence[Sequence[str]],
        chunk_tokens: Sequence[Sequence[str]],
        chunk_content: Sequence[Sequence[str]],
        chunk_chars: Sequence[Sequence[str]],
        known: Sequence[str] = (),
    ) -> ContextIndex:
        """``sentence_units``: content units per context sentence; the other three per chunk; ``known``:
        units never novel though no chunk has them (the names in the question), weighted as common."""
        df: dict[str, int] = {}
        for units in sentence_units:
            for unit in set(units):
                df[unit] = df.get(unit, 0) + 1
        n = len(sentence_units)
        for unit in known:
            df.setdefault(unit, n)
        idf = {unit: math.log((n + 1) / (count + 0.5)) for unit, count in df.items()}
        return cls(
            units=frozenset(df),
            tokens=frozenset(t for seq in chunk_tokens for t in seq),
            pairs=frozenset(p for seq in chunk_content for p in zip(seq, seq[1:], strict=False)),
            idf=idf,
            novel_idf=math.log((n + 1) / 0.5),
            chars=frozenset(c for seq in chunk_chars for c in seq),
        )


def share(units: Sequence[str] | set[str], known: frozenset[str] | set[str]) -> float:
    """Share of ``units`` found in ``known``; 1.0 when there are none."""
    return sum(u in known for u in units) / len(units) if units else 1.0


def pair_share(sequence: Sequence[str], known: frozenset[tuple[str, str]]) -> float:
    """Share of the adjacent pairs of ``sequence`` found in ``known``; 1.0 under two units."""
    pairs = list(zip(sequence, sequence[1:], strict=False))
    return sum(p in known for p in pairs) / len(pairs) if pairs else 1.0


def novelty(content: Sequence[str], context: ContextIndex) -> tuple[float, float, float]:
    """log1p(novel units), their share of the IDF mass, log1p(longest run of novel units)."""
    novel = [u not in context.units for u in content]
    weights = [context.novel_idf if n else context.idf[u] for u, n in zip(content, novel, strict=True)]
    mass = sum(weights)
    novel_mass = sum(w for w, n in zip(weights, novel, strict=True) if n)
    longest = run = 0
    for flag in novel:
        run = run + 1 if flag else 0
        longest = max(longest, run)
    count = len(set(u for u, n in zip(content, novel, strict=True) if n))
    return math.log1p(count), (novel_mass / mass if mass else 0.0), math.log1p(longest)


@dataclass(frozen=True, slots=True)
class SupportModel:
    """Logistic regression of "a human finds this claim supported" over ``FEATURES``.

    Features are standardized with their language's mean and standard deviation (``default`` for a
    language the fit did not see) before the weights apply; ``threshold`` is the probability from
    which a claim counts as supported.
    """

    features: tuple[str, ...]
    weights: npt.NDArray[np.float64]
    intercept: float
    scale: Mapping[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]
    threshold: float
    # a language's logit shift, chosen on its dev split for balanced accuracy at the flag threshold:
    # the same model ranks, the shift calibrates where a language's faithfulness crosses the flag
    shifts: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_rules(cls, data: Mapping[str, Any]) -> SupportModel:
        """Read the ``model`` section of ``rules/local_judge.yaml``."""
        try:
            weights: Mapping[str, float] = data["weights"]
            features = tuple(weights)
            if unknown := set(features) - set(FEATURES):
                raise ConfigError(f"unknown support features {sorted(unknown)}")
            scale = {
                lang: (
                    np.array([float(s["mean"][f]) for f in features]),
                    np.array([max(float(s["std"][f]), 1e-6) for f in features]),
                )
                for lang, s in data["standardize"].items()
            }
            if "default" not in scale:
                raise ConfigError("model.standardize needs a `default` entry")
            return cls(
                features,
                np.array([float(weights[f]) for f in features]),
                float(data["intercept"]),
                scale,
                float(data["threshold"]),
                _shifts(data.get("language_shift") or {}),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"invalid local judge model: {exc!r}") from exc

    def probability(self, rows: Matrix, language: str | None) -> npt.NDArray[np.float64]:
        """Support probability of each row of features (columns in ``FEATURES`` order)."""
        if not rows.size:
            return np.zeros(len(rows))
        mean, std = self.scale.get(language or "", self.scale["default"])
        picked = rows[:, [FEATURES.index(f) for f in self.features]]
        # clipped: a feature far outside its language's training range must not decide alone; a feature
        # not measured (NaN) stands at its mean
        z = np.nan_to_num(np.clip((picked - mean) / std, -CLIP, CLIP), nan=0.0)
        logit = z @ self.weights + self.intercept + self.shifts.get(language or "", 0.0)
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))
        return out


def _shifts(data: Mapping[str, Any]) -> dict[str, float]:
    """``language_shift``: keys as the judge names languages ("ja-JP" is "ja"), finite values."""
    out = {str(lang).lower().split("-")[0].split("_")[0]: float(value) for lang, value in data.items()}
    if not all(math.isfinite(value) for value in out.values()):
        raise ValueError(f"language_shift values must be finite numbers: {dict(data)!r}")
    return out


def char_bigrams(text: str) -> list[str]:
    """Character bigrams of the text with whitespace and punctuation removed (lowercase)."""
    s = "".join(ch for ch in text.lower() if ch.isalnum())
    return [s[i : i + 2] for i in range(len(s) - 1)] if len(s) > 1 else ([s] if s else [])
