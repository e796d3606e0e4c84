"""Score a run against the golden set, then check floors and the baseline (seed 000 sections 4-6).

Per entry: hit@k, recall@k, MRR@k and nDCG@k of the expected sections, read from the chunks'
``sections``; the numeric rule both ways (every number+unit of the expected answer in the answer, every
one of the answer in the expected sections or the expected answer), without tolerance; abstention on
unanswerable entries. Means are taken apart for the tuning entries and the scoring-only ones (tags in
``scoring_only_tags``): floors and baseline drops are checked on the tuning means only, so the
scoring-only entries never feed the figures thresholds are chosen from. Their per-entry rules still
count: a wrong deadline is wrong in every split.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from monitor.gate.model import (
    EPSILON,
    FAITHFULNESS,
    Check,
    EntryResult,
    GateConfig,
    GateResult,
    Metric,
    RunScore,
)
from monitor.gate.runs import Matcher, pair, read_run, versions
from monitor.golden import AbstentionDetector, GoldenEntry, GoldenSet
from monitor.numeric import NumericRules, Quantity
from monitor.numeric.model import json_number
from monitor.retrieval import first_hit_rank, hit_at_k, ndcg_at_k, recall_at_k, reciprocal_rank
from monitor.trace import Trace

_PARENTHETICAL = re.compile(r"\([^()]*\)|（[^（）]*）")  # ASCII and full-width (zh) parentheses
_MISS = 1 << 30  # ranks a miss below every retrieved rank

Faithfulness = Callable[[Trace], float | None]  # supported claims / claims; None when no claims

_SCORERS: dict[str, Callable[[Sequence[tuple[str, ...]], Sequence[str], int], float]] = {
    "hit": lambda ranking, expected, k: float(hit_at_k(ranking, expected, k)),
    "recall": recall_at_k,
    "mrr": reciprocal_rank,
    "ndcg": ndcg_at_k,
}


class Scorer:
    """Scores runs against one golden set with one configuration; build once, score run and baseline."""

    def __init__(
        self,
        golden: GoldenSet,
        config: GateConfig,
        numeric: NumericRules,
        abstention: AbstentionDetector,
        matcher: Callable[[], Matcher],
        faithfulness: Faithfulness | None = None,
    ) -> None:
        self.golden, self.config = golden, config
        self.numeric, self.abstention, self.matcher = numeric, abstention, matcher
        self.faithfulness = faithfulness
        self.metrics = config.all_metrics
        self.ranked = [m for m in self.metrics if m.retrieval]
        self.scoring_tags = frozenset(config.scoring_only_tags)
        self._rank_k = max(m.k for m in self.ranked) if self.ranked else 5

    def is_scoring_only(self, entry: GoldenEntry) -> bool:
        return not self.scoring_tags.isdisjoint(entry.tags)

    def score(self, path: Path) -> RunScore:
        """Read the run at ``path`` and score every golden entry (an unanswered entry fails)."""
        traces = read_run(path)
        pairing = pair(traces, self.golden, self.matcher)
        entries = tuple(self._entry(e, pairing.traces.get(e.id)) for e in self.golden)
        tuning = [e for e in entries if not e.scoring_only]
        held = [e for e in entries if e.scoring_only]
        return RunScore(
            path=str(path),
            versions=versions(traces),
            entries=entries,
            tuning_means=self._means(tuning),
            scoring_only_means=self._means(held),
            notes=pairing.notes,
        )

    def _means(self, entries: Sequence[EntryResult]) -> dict[str, float | None]:
        """Each metric's mean over the entries it is defined on (None: on none of them)."""
        means: dict[str, float | None] = {}
        for m in self.metrics:
            values = [e.metrics[m.key] for e in entries if m.key in e.metrics]
            means[m.key] = sum(values) / len(values) if values else None
        return means

    def _unanswered(self, entry: GoldenEntry) -> EntryResult:
        return EntryResult(
            id=entry.id,
            question=entry.question,
            scoring_only=self.is_scoring_only(entry),
            answerable=entry.answerable,
            trace_id=None,
            answer=None,
            first_hit_rank=None,
            metrics={},
            failures=(f"{entry.id}: no trace in the run answers it",),
        )

    def _entry(self, entry: GoldenEntry, trace: Trace | None) -> EntryResult:
        """One entry scored on its trace: retrieval, figures, abstention, faithfulness (if judged)."""
        if trace is None:
            return self._unanswered(entry)
        ranking = self._ranking(entry, trace)
        figures = self._numeric(entry, trace)
        should_abstain = self.config.abstention and not entry.answerable
        should_abstain = should_abstain and not self.abstention.abstains(trace.answer)
        return EntryResult(
            id=entry.id,
            question=entry.question,
            scoring_only=self.is_scoring_only(entry),
            answerable=entry.answerable,
            trace_id=trace.trace_id,
            answer=trace.answer,
            first_hit_rank=first_hit_rank(ranking, entry.expected_sections, self._rank_k)
            if ranking
            else None,
            metrics={**self._metrics(ranking, entry.expected_sections), **self._judged(entry, trace)},
            numeric_missing=figures.missing,
            numeric_out_of_source=figures.outside,
            numeric_checked=figures.checked,
            numeric_sources_known=figures.sources_known,
            should_abstain=should_abstain,
            failures=tuple(_failures(entry, figures, should_abstain)),
            notes=tuple(_notes(entry, ranking)),
        )

    def _ranking(self, entry: GoldenEntry, trace: Trace) -> list[tuple[str, ...]] | None:
        """The retrieved chunks' sections in rank order; None when nothing is expected or labelled."""
        chunks = trace.retrieved_chunks
        if not entry.expected_sections or not any(c.sections for c in chunks):
            return None
        return [c.sections for c in chunks]

    def _metrics(
        self, ranking: Sequence[tuple[str, ...]] | None, expected: Sequence[str]
    ) -> dict[str, float]:
        if not ranking:
            return {}
        return {m.key: _SCORERS[m.kind](ranking, expected, m.k) for m in self.ranked}

    def _judged(self, entry: GoldenEntry, trace: Trace) -> dict[str, float]:
        """Faithfulness of an answerable entry's answer, when a judge is configured and finds claims."""
        if self.faithfulness is None or not entry.answerable:
            return {}
        value = self.faithfulness(trace)
        return {} if value is None else {FAITHFULNESS: value}

    def _numeric(self, entry: GoldenEntry, trace: Trace) -> Figures:
        """Expected numbers the answer lacks, and answer numbers neither the expected sections nor the
        expected answer hold (checked only when the sections' text is known: an expected answer is
        short and leaves true figures out); only units in ``numeric.units`` count when it is set."""
        rule = self.config.numeric
        if not rule.enabled or not entry.answerable or entry.expected_answer is None:
            return Figures()
        sources_known = bool(entry.expected_sources_text)
        sources = (*entry.expected_sources_text, entry.expected_answer)
        required = entry.expected_answer
        if rule.parenthetical == "optional":
            required = _PARENTHETICAL.sub(" ", required)
        report = self.numeric.check_reference(trace.answer, required, sources)
        units = None if rule.units is None else frozenset(rule.units)
        return Figures(
            missing=_texts(report.missing, units),
            outside=_texts(report.out_of_source, units) if sources_known else (),
            said=_texts(dict.fromkeys(self.numeric.extract(trace.answer)), units),
            checked=True,
            sources_known=sources_known,
        )


@dataclass(frozen=True)
class Figures:
    """What the numeric rule found in one answer (texts as written)."""

    missing: tuple[str, ...] = ()
    outside: tuple[str, ...] = ()
    said: tuple[str, ...] = ()
    checked: bool = False
    sources_known: bool = False


def _texts(quantities: Iterable[Quantity], units: frozenset[str] | None) -> tuple[str, ...]:
    return tuple(
        q.text or f"{json_number(q.value)} {q.unit}" for q in quantities if units is None or q.unit in units
    )


def _notes(entry: GoldenEntry, ranking: object) -> Iterable[str]:
    if entry.expected_sections and ranking is None:
        yield f"{entry.id}: retrieval not measured (no retrieved chunk carries section labels)"


def _failures(entry: GoldenEntry, figures: Figures, should_abstain: bool) -> list[str]:
    """Why an entry fails, one sentence each: "q01: answer says 30 ngày; expected 7 ngày"."""
    out: list[str] = []
    if figures.missing:
        said = figures.outside or figures.said
        stated = f"answer says {', '.join(said)}" if said else "answer gives no figure"
        out.append(f"{entry.id}: {stated}; expected {', '.join(figures.missing)}")
    elif figures.outside:
        where = ", ".join(entry.expected_sections) + " or " if entry.expected_sections else ""
        where += "the expected answer"
        out.append(f"{entry.id}: answer says {', '.join(figures.outside)}, not in {where}")
    if should_abstain:
        out.append(f"{entry.id}: unanswerable, but the answer does not abstain")
    return out


def check_floors(config: GateConfig, run: RunScore) -> list[Check]:
    """One check per floor, on the tuning entries' means: "MRR@5 0.63 < 0.85" when it fails."""
    checks = []
    for metric in config.floor_metrics:
        floor = config.floors[metric.key]
        value = run.tuning_means.get(metric.key)
        measured = _count(run, metric)
        if value is None:
            why = "carries section labels" if metric.retrieval else "has claims the judge could score"
            message = f"{metric.label}: not measurable (no tuning entry's trace {why})"
            checks.append(Check("floor", metric, None, floor, passed=False, message=message))
            continue
        passed = value + EPSILON >= floor
        sign = ">=" if passed else "<"
        message = f"{metric.label} {value:.2f} {sign} {floor:g}"
        checks.append(Check("floor", metric, value, floor, None, passed, measured, message))
    return checks


def check_baseline(config: GateConfig, run: RunScore, baseline: RunScore, golden_version: str) -> list[Check]:
    """One check per reported metric: the candidate may not fall more than the tolerance below it."""
    mismatch = _version_mismatch(baseline, golden_version)
    checks = []
    for metric in config.all_metrics:
        tolerance = config.baseline.tolerance_of(metric)
        value, base = run.tuning_means.get(metric.key), baseline.tuning_means.get(metric.key)
        if mismatch:
            skip = config.baseline.on_version_mismatch == "skip"
            message = f"{metric.label}: {mismatch}"
            checks.append(Check("baseline", metric, value, tolerance, base, skip, 0, message, skipped=skip))
            continue
        if value is None or base is None:
            continue  # unmeasurable: its floor (if any) already fails
        drop = base - value
        passed = drop <= tolerance + EPSILON
        message = f"{metric.label} {value:.2f} vs baseline {base:.2f}" + (
            f": dropped {drop:.2f} > {tolerance:g}" if not passed else ""
        )
        checks.append(Check("baseline", metric, value, tolerance, base, passed, _count(run, metric), message))
    return checks


def _count(run: RunScore, metric: Metric) -> int:
    """Tuning entries the metric's mean is over."""
    return sum(1 for e in run.entries if metric.key in e.metrics and not e.scoring_only)


def _version_mismatch(baseline: RunScore, golden_version: str) -> str:
    recorded = baseline.versions.golden_version
    if not recorded or recorded == (golden_version,):
        return ""
    return f"not compared: the baseline ran golden set {', '.join(recorded)}, this gate uses {golden_version}"


def _run_notes(run: RunScore, golden_version: str) -> Iterable[str]:
    """What a reader of the report should know that is not a failure."""
    yield from run.notes
    recorded = run.versions.golden_version
    if recorded and recorded != (golden_version,):
        yield f"the run recorded golden set {', '.join(recorded)}; this gate uses {golden_version}"
    for entry in run.entries:
        yield from entry.notes
    unsourced = [e.id for e in run.entries if e.numeric_checked and not e.numeric_sources_known]
    if unsourced:
        yield (
            f"answer figures of {', '.join(unsourced)} were not checked against sources: their section "
            "texts are unknown (give --golden-sections, or reference_contexts in the golden set)"
        )


def _rank_drops(run: RunScore, baseline: RunScore) -> Iterable[tuple[str, int | None, int | None]]:
    """Entries measured in both runs whose first hit moved down (a miss is below every rank)."""
    for entry in run.entries:
        before = baseline.entry(entry.id)
        if entry.measured and before is not None and before.measured:
            old, new = before.first_hit_rank, entry.first_hit_rank
            if (new or _MISS) > (old or _MISS):
                yield entry.id, old, new


def run_gate(scorer: Scorer, run_path: Path, baseline_path: Path | None = None) -> GateResult:
    """Score the run (and the baseline), check floors and drops: the gate's whole verdict."""
    run = scorer.score(run_path)
    baseline = scorer.score(baseline_path) if baseline_path is not None else None
    checks = check_floors(scorer.config, run)
    if baseline is not None:
        checks += check_baseline(scorer.config, run, baseline, scorer.golden.version)
    notes = [*_run_notes(run, scorer.golden.version)]
    if baseline is not None:
        notes += [f"baseline: {note}" for note in baseline.notes]
    return GateResult(
        rank_drops=tuple(_rank_drops(run, baseline)) if baseline is not None else (),
        golden_version=scorer.golden.version,
        golden_entries=len(scorer.golden),
        config=scorer.config,
        run=run,
        baseline=baseline,
        checks=tuple(checks),
        notes=tuple(notes),
    )
