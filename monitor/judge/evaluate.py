"""How well a judge separates faithful from hallucinated answers on human-labelled traces.

A labelled file is JSON lines in ragmon's trace contract plus one field, ``faithful``: a JSON boolean,
``true`` when a human judged the whole answer supported by its retrieved chunks, ``false`` when it
holds at least one unsupported or contradicted statement (``tests/data/judge_eval/`` holds such files).
Per language the harness reports, for the judge's ``scores.faithfulness`` and its ranking score
(``monitor.judge.local.ranking_score``: faithfulness, ties broken by the mean claim score), and for two
trivial baselines computed on the same traces:

- ``auroc``: P(score of a faithful trace > score of a hallucinated one), ties counted half, with a
  bootstrap 95% interval (traces resampled, fixed seed);
- ``bacc``: balanced accuracy of "flagged" (score below the ``low_faithfulness`` flag threshold of
  ``rules/flags.yaml``) against "hallucinated";
- ``bacc_best``: the best balanced accuracy over every threshold on this very data (optimistic: it
  is chosen on the data it is reported on, so only a ceiling);
- ``vs_baseline``: faithfulness AUROC minus that of the better baseline (higher AUROC on these
  traces), with a *paired* bootstrap 95% interval: each resample draws the traces once and scores both
  on them, so the interval is of the difference itself, much narrower than the two separate intervals
  suggest when the scores are correlated. This is what decides "above the baseline by 0.05".

Baselines: ``word_overlap``, the share of the answer's word tokens (lowercase, diacritics folded,
``đ`` -> ``d``) found anywhere in the chunks; ``char_overlap``, the share of its character bigrams
(whitespace and punctuation removed) found in the chunks, the meaningful one for scripts without
spaces. A trace whose answer has no claim (faithfulness undefined: an abstention) gets 1.0, as it raises
no flag; ``no_claims`` counts them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.exceptions import ConfigError, TraceError
from monitor.judge.base import JudgeInput, JudgeResult, judge_input
from monitor.judge.claims import detect_language
from monitor.judge.local import ranking_score
from monitor.trace import Trace, parse_message

LABEL_FIELD = "faithful"
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 13
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Labelled:
    """One trace as the judge reads it, with the human label of its answer."""

    item: JudgeInput
    faithful: bool
    language: str


def read_labelled(path: Path) -> list[Labelled]:
    """Parse a labelled JSONL file; a line that is not a trace or lacks a boolean label is an error."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    out = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            out.append(_labelled(line, f"{path}:{number}"))
    if not out:
        raise ConfigError(f"{path}: no labelled traces")
    return out


def _labelled(line: bytes, where: str) -> Labelled:
    try:
        message = parse_message(line)
    except TraceError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    if not isinstance(message, Trace):
        raise ConfigError(f"{where}: a feedback event, not a trace")
    label = message.metadata.get(LABEL_FIELD)
    if not isinstance(label, bool):
        raise ConfigError(f"{where}: `{LABEL_FIELD}` must be true or false, found {label!r}")
    item = judge_input(message)
    return Labelled(item, label, message.language or detect_language(message.answer))


# --- baselines --------------------------------------------------------------------------------------


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text.lower())
    return "".join(ch for ch in text if not unicodedata.combining(ch)).replace("đ", "d")


def _bigrams(text: str) -> list[str]:
    s = "".join(ch for ch in text.lower() if ch.isalnum())
    return [s[i : i + 2] for i in range(len(s) - 1)] if len(s) > 1 else ([s] if s else [])


def _share(units: Sequence[str], vocabulary: set[str]) -> float:
    return sum(u in vocabulary for u in units) / len(units) if units else 0.0


def word_overlap(item: JudgeInput) -> float:
    """Share of the answer's folded word tokens found anywhere in the chunks."""
    vocabulary = {w for chunk in item.chunks for w in _WORD.findall(_fold(chunk.text))}
    return _share(_WORD.findall(_fold(item.answer)), vocabulary)


def char_overlap(item: JudgeInput) -> float:
    """Share of the answer's character bigrams found in the chunks (bigrams never span two chunks)."""
    vocabulary = {b for chunk in item.chunks for b in _bigrams(chunk.text)}
    return _share(_bigrams(item.answer), vocabulary)


BASELINES: dict[str, Callable[[JudgeInput], float]] = {
    "word_overlap": word_overlap,
    "char_overlap": char_overlap,
}


# --- statistics -------------------------------------------------------------------------------------

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]


def auroc(scores: Sequence[float] | Floats, labels: Sequence[bool] | Bools) -> float:
    """Mann-Whitney U / (positives x negatives), average ranks for ties; NaN without both classes."""
    s, y = np.asarray(scores, dtype=np.float64), np.asarray(labels, dtype=bool)
    positives, negatives = int(y.sum()), int((~y).sum())
    if not positives or not negatives:
        return float("nan")
    return float((_ranks(s)[y].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def _ranks(values: Floats) -> Floats:
    """1-based ranks, ties given their average rank."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    average: Floats = (upper - (counts - 1) / 2.0)[inverse]
    return average


def bootstrap(
    scores: Floats, labels: Bools, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of AUROC over ``resamples`` resamplings of the traces."""
    if resamples <= 0 or len(scores) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    values = [
        auroc(scores[idx], labels[idx]) for idx in rng.integers(0, len(scores), (resamples, len(scores)))
    ]
    finite = np.array([v for v in values if v == v])
    if not finite.size:
        return float("nan"), float("nan")
    return float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def paired_bootstrap(
    first: Floats,
    second: Floats,
    labels: Bools,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of AUROC(first) - AUROC(second), both scored on the same
    resampled traces in each of ``resamples`` resamplings."""
    if resamples <= 0 or len(first) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    values = np.array(
        [
            auroc(first[idx], labels[idx]) - auroc(second[idx], labels[idx])
            for idx in rng.integers(0, len(first), (resamples, len(first)))
        ]
    )
    finite = values[np.isfinite(values)]
    if not finite.size:
        return float("nan"), float("nan")
    return float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def balanced_accuracy(flagged: Bools, labels: Bools) -> float:
    """Mean of the hit rate on hallucinated traces (flagged) and on faithful ones (not flagged)."""
    hallucinated = ~labels
    if not hallucinated.any() or not labels.any():
        return float("nan")
    return float((flagged[hallucinated].mean() + (~flagged[labels]).mean()) / 2)


def best_balanced_accuracy(scores: Floats, labels: Bools) -> float:
    """The best balanced accuracy of ``score < t`` over every threshold t (chosen on the same data)."""
    candidates = np.append(np.unique(scores), np.inf)
    return max(balanced_accuracy(scores < t, labels) for t in candidates)


@dataclass(frozen=True, slots=True)
class Metric:
    """One scorer's figures on one language."""

    auroc: float
    ci: tuple[float, float]
    bacc: float
    bacc_best: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "auroc": _round(self.auroc),
            "ci": [_round(self.ci[0]), _round(self.ci[1])],
            "bacc": _round(self.bacc),
            "bacc_best": _round(self.bacc_best),
        }


def measure(
    scores: Sequence[float], labels: Sequence[bool], threshold: float, resamples: int, seed: int
) -> Metric:
    """AUROC with its bootstrap interval, balanced accuracy at ``threshold`` and at the best threshold."""
    s, y = np.asarray(scores, dtype=np.float64), np.asarray(labels, dtype=bool)
    return Metric(
        auroc(s, y),
        bootstrap(s, y, resamples, seed),
        balanced_accuracy(s < threshold, y),
        best_balanced_accuracy(s, y),
    )


@dataclass(frozen=True, slots=True)
class Difference:
    """Faithfulness AUROC minus the better baseline's, with its paired bootstrap interval."""

    baseline: str
    delta: float
    ci: tuple[float, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "delta": _round(self.delta),
            "ci": [_round(self.ci[0]), _round(self.ci[1])],
        }


def difference(
    columns: Mapping[str, Sequence[float]],
    metrics: Mapping[str, Metric],
    labels: Sequence[bool],
    resamples: int,
    seed: int,
    judge: str = "faithfulness",
) -> Difference:
    """``judge``'s AUROC minus that of the baseline ranking better here (a NaN AUROC ranks last)."""
    better = max(BASELINES, key=lambda name: _or_low(metrics[name].auroc))
    y = np.asarray(labels, dtype=bool)
    first = np.asarray(columns[judge], dtype=np.float64)
    second = np.asarray(columns[better], dtype=np.float64)
    ci = paired_bootstrap(first, second, y, resamples, seed)
    return Difference(better, metrics[judge].auroc - metrics[better].auroc, ci)


def _or_low(value: float) -> float:
    return value if value == value else float("-inf")


def _round(value: float) -> float | None:
    return None if value != value else round(value, 4)


# --- report -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scored:
    """A labelled trace with what the judge and the baselines made of it."""

    case: Labelled
    faithfulness: float | None
    ranking: float | None
    baselines: dict[str, float] = field(default_factory=dict)


def score(case: Labelled, result: JudgeResult) -> Scored:
    """The judge's two scores and both baselines for one trace."""
    claims = result.verdicts.claims
    return Scored(
        case,
        result.scores.faithfulness,
        ranking_score(claims),
        {name: fn(case.item) for name, fn in BASELINES.items()},
    )


@dataclass(frozen=True, slots=True)
class LanguageReport:
    """Every scorer's figures on the traces of one language."""

    language: str
    traces: int
    faithful: int
    no_claims: int
    threshold: float
    metrics: dict[str, Metric]
    vs_baseline: Difference

    def as_dict(self, **context: Any) -> dict[str, Any]:
        return {
            **context,
            "language": self.language,
            "traces": self.traces,
            "faithful": self.faithful,
            "hallucinated": self.traces - self.faithful,
            "no_claims": self.no_claims,
            "threshold": self.threshold,
            **{name: metric.as_dict() for name, metric in self.metrics.items()},
            "vs_baseline": self.vs_baseline.as_dict(),
        }


def report(
    scored: Iterable[Scored],
    threshold: float,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[LanguageReport]:
    """One report per language, in name order; an undefined faithfulness counts as 1.0 (no flag)."""
    by_language: dict[str, list[Scored]] = {}
    for item in scored:
        by_language.setdefault(item.case.language, []).append(item)
    out = []
    for language in sorted(by_language):
        rows = by_language[language]
        labels = [r.case.faithful for r in rows]
        columns = {
            "faithfulness": [1.0 if r.faithfulness is None else r.faithfulness for r in rows],
            "ranking": [1.0 if r.ranking is None else r.ranking for r in rows],
            **{name: [r.baselines[name] for r in rows] for name in BASELINES},
        }
        metrics = {name: measure(v, labels, threshold, resamples, seed) for name, v in columns.items()}
        vs = difference(columns, metrics, labels, resamples, seed)
        no_claims = sum(r.faithfulness is None for r in rows)
        out.append(LanguageReport(language, len(rows), sum(labels), no_claims, threshold, metrics, vs))
    return out


def render_table(reports: Sequence[LanguageReport]) -> str:
    """A terminal table: one block per language, one line per scorer."""
    lines = []
    for r in reports:
        lines.append(
            f"{r.language}: {r.traces} traces, {r.faithful} faithful, {r.traces - r.faithful} hallucinated,"
            f" {r.no_claims} without claims; flag threshold {r.threshold:.2f}"
        )
        lines.append(f"  {'scorer':<14} {'AUROC':>6}  {'95% CI':<15} {'bacc@flag':>9} {'bacc best':>9}")
        for name, m in r.metrics.items():
            ci = f"[{m.ci[0]:.3f}, {m.ci[1]:.3f}]"
            lines.append(f"  {name:<14} {m.auroc:>6.3f}  {ci:<15} {m.bacc:>9.3f} {m.bacc_best:>9.3f}")
        d = r.vs_baseline
        lines.append(
            f"  {'Δ faithfulness':<14} {d.delta:>+6.3f}  [{d.ci[0]:+.3f}, {d.ci[1]:+.3f}]"
            f" vs {d.baseline} (paired bootstrap)"
        )
    return "\n".join(lines)


def render_jsonl(reports: Sequence[LanguageReport], **context: Any) -> str:
    """One JSON object per language."""
    return "\n".join(json.dumps(r.as_dict(**context), ensure_ascii=False) for r in reports)
