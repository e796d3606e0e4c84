"""Measure a golden matcher on a paraphrase set, and fit its threshold and margin.

A paraphrase file is YAML ``{cases: [{domain, expect, text}, ...]}``: ``expect`` is the golden id the
question asks (null for a hard negative: same topic, but another entry or no entry answers it), and
``domain`` names the golden set it is matched against (``domains.yaml`` beside the files maps domain to
golden file). ``scripts/fit_golden_match.py`` fits on train, picks thresholds on dev and reports test.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from monitor.exceptions import ConfigError
from monitor.golden.match import GoldenMatcher
from monitor.golden.model import GoldenSet

# The false-match budget the thresholds are chosen under (wrong matches among matches, and matched
# hard negatives among hard negatives).
MAX_FALSE_MATCH_RATE = 0.05


@dataclass(frozen=True)
class Paraphrase:
    """One question of a paraphrase set: the entry it asks (None: no entry) in a domain's golden set."""

    domain: str
    expect: str | None
    text: str


@dataclass(frozen=True)
class Outcome:
    """How the matcher ranked one paraphrase: best entry, its score and its margin over the second."""

    case: Paraphrase
    best: str | None
    score: float
    margin: float

    def predicted(self, threshold: float, margin: float) -> str | None:
        """The entry matched at this threshold and margin, or None."""
        return self.best if self.score >= threshold and self.margin >= margin and self.margin > 0 else None


@dataclass(frozen=True)
class Figures:
    """Recall, precision and false-match rates of one split (or one domain of it)."""

    positives: int
    negatives: int
    correct: int
    wrong_entry: int
    negatives_matched: int

    @property
    def matched(self) -> int:
        return self.correct + self.wrong_entry + self.negatives_matched

    @property
    def recall(self) -> float:
        return self.correct / self.positives if self.positives else 0.0

    @property
    def precision(self) -> float:
        return self.correct / self.matched if self.matched else 1.0

    @property
    def false_match_rate(self) -> float:
        """Wrong matches (wrong entry, or any match of a hard negative) among all matches."""
        return 1.0 - self.precision

    @property
    def negative_match_rate(self) -> float:
        """Hard negatives matched to some entry, among hard negatives."""
        return self.negatives_matched / self.negatives if self.negatives else 0.0

    def within_budget(self, budget: float = MAX_FALSE_MATCH_RATE) -> bool:
        """Both false-match rates within ``budget``."""
        return self.false_match_rate <= budget and self.negative_match_rate <= budget

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures, rates rounded to 4 places."""
        return {
            "positives": self.positives,
            "negatives": self.negatives,
            "recall": round(self.recall, 4),
            "precision": round(self.precision, 4),
            "false_match_rate": round(self.false_match_rate, 4),
            "negative_match_rate": round(self.negative_match_rate, 4),
            "wrong_entry": self.wrong_entry,
            "negatives_matched": self.negatives_matched,
        }


def load_paraphrases(path: Path) -> list[Paraphrase]:
    """The cases of one paraphrase file; ConfigError naming the file when malformed."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return [Paraphrase(str(c["domain"]), c.get("expect"), str(c["text"])) for c in data["cases"]]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: not a paraphrase file: {exc}") from exc


def load_splits(directory: Path) -> dict[str, list[Paraphrase]]:
    """train, dev (dev.yaml plus dev2.yaml, the first test split), dev3 (another writer) and test."""
    load = load_paraphrases
    return {
        "train": load(directory / "train.yaml"),
        "dev": load(directory / "dev.yaml") + load(directory / "dev2.yaml"),
        "dev3": load(directory / "dev3.yaml"),
        "test": load(directory / "test.yaml"),
    }


def load_case_file(path: Path, domain: str) -> list[Paraphrase]:
    """The older case files (tests/data/golden_match/q01..q05, negatives, holdout) as paraphrases."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        expect = data.get("expect")
        return [Paraphrase(domain, c.get("expect", expect), str(c["text"])) for c in data["cases"]]
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{path}: not a golden case file: {exc}") from exc


def load_domains(directory: Path, data_root: Path) -> dict[str, GoldenSet]:
    """Domain -> golden set, from ``directory/domains.yaml`` (paths relative to ``data_root``)."""
    mapping = yaml.safe_load((directory / "domains.yaml").read_text(encoding="utf-8"))
    return {str(domain): GoldenSet.load([data_root / str(path)]) for domain, path in mapping.items()}


def with_variants(golden: GoldenSet, cases: Iterable[Paraphrase], domain: str) -> GoldenSet:
    """``golden`` with the domain's positive cases appended to their entries' variants."""
    extra: dict[str, list[str]] = {}
    for case in cases:
        if case.domain == domain and case.expect is not None:
            extra.setdefault(case.expect, []).append(case.text)
    entries = tuple(replace(e, variants=(*e.variants, *extra.get(e.id, ()))) for e in golden.entries)
    return GoldenSet(f"{golden.version}+variants", entries)


def with_negatives(
    golden: GoldenSet, cases: Iterable[Paraphrase], domain: str, matcher: GoldenMatcher
) -> GoldenSet:
    """``golden`` with the domain's cases that ``matcher`` matches wrongly kept as those entries' negatives.

    This is what review builds up in production: a reviewer who sees a false match (a hard negative,
    or a question of another entry) promotes it with ``review promote --as-negative``. Only matches
    the matcher actually makes are promoted, since review only sees those.
    """
    extra: dict[str, list[str]] = {}
    for case in cases:
        found = matcher.match(case.text) if case.domain == domain else None
        if found is not None and found.entry.id != case.expect:
            extra.setdefault(found.entry.id, []).append(case.text)
    entries = tuple(replace(e, negatives=(*e.negatives, *extra.get(e.id, ()))) for e in golden.entries)
    return GoldenSet(f"{golden.version}+negatives", entries)


def outcomes(matchers: Mapping[str, GoldenMatcher], cases: Sequence[Paraphrase]) -> list[Outcome]:
    """Rank every case with its domain's matcher (no prefilter, so scores are complete)."""
    ranked = []
    for case in cases:
        candidates = matchers[case.domain].candidates(case.text, prefilter=False)
        best = candidates[0] if candidates else None
        second = candidates[1].similarity if len(candidates) > 1 else 0.0
        ranked.append(
            Outcome(
                case,
                best.entry.id if best else None,
                best.similarity if best else 0.0,
                best.similarity - second if best else 0.0,
            )
        )
    return ranked


def figures(results: Iterable[Outcome], threshold: float, margin: float) -> Figures:
    """The figures of these outcomes at one threshold and margin."""
    positives = negatives = correct = wrong = matched_negatives = 0
    for result in results:
        got = result.predicted(threshold, margin)
        if result.case.expect is None:
            negatives += 1
            matched_negatives += got is not None
        else:
            positives += 1
            correct += got == result.case.expect
            wrong += got is not None and got != result.case.expect
    return Figures(positives, negatives, correct, wrong, matched_negatives)


def best_threshold(
    results: Sequence[Outcome],
    margin: float,
    budget: float = MAX_FALSE_MATCH_RATE,
    each: Sequence[Collection[Paraphrase]] = (),
) -> tuple[float, Figures] | None:
    """The threshold with the highest recall within the false-match budget (the highest such, on ties).

    ``each`` names parts of the cases (the dev splits) that must each stay within the whole budget
    too: a pooled figure in budget can hide one writer's split over it.
    """
    candidates = sorted({round(r.score, 4) for r in results} | {1.01})
    parts = [[r for r in results if r.case in part] for part in each]
    best: tuple[float, Figures] | None = None
    for threshold in candidates:
        found = figures(results, threshold, margin)
        if not found.within_budget(budget) or (best is not None and found.recall < best[1].recall):
            continue
        if all(figures(part, threshold, margin).within_budget() for part in parts):
            best = (threshold, found)
    return best
