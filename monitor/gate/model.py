"""The gate's settings (``gate.yaml``) and what it finds: per-entry results, floor and baseline checks.

Defaults are seed 000's (section 6): hit@3 >= 0.95 and MRR@5 >= 0.85, chosen from the configuration
that runs well, and the numeric rule without tolerance on every answerable entry. Metric names are
``hit@K``, ``recall@K``, ``mrr@K`` or ``ndcg@K`` (case ignored), and ``faithfulness`` when a judge is
configured; a drop from the baseline larger than the tolerance fails.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from monitor.exceptions import ConfigError

DEFAULT_FLOORS: dict[str, float] = {"hit@3": 0.95, "mrr@5": 0.85}
DEFAULT_METRICS = ("hit@1", "hit@3", "recall@3", "mrr@5")  # seed 000's table columns
DEFAULT_DROP_TOLERANCE = 0.05
DEFAULT_SCORING_ONLY_TAGS = ("holdout", "scoring_only")
GOLDEN_ID_FIELD = "golden_id"  # a trace's top-level or metadata field naming its golden entry
GOLDEN_VERSION_FIELD = "golden_version"  # the golden-set version the harness asked (metadata)
EPSILON = 1e-9  # floats from means: 0.95 must pass a 0.95 floor

_METRIC = re.compile(r"^(hit|recall|mrr|ndcg)@([1-9][0-9]*)$")
_DISPLAY = {"hit": "hit", "recall": "recall", "mrr": "MRR", "ndcg": "nDCG"}
FAITHFULNESS = "faithfulness"  # supported claims / claims (Ragas), from the judge; no cut-off


class GateInputError(ConfigError):
    """A run, baseline or gate file that cannot be used (exit code 2); the message names the file."""


@dataclass(frozen=True, order=True)
class Metric:
    """A ranked-retrieval metric at a cut-off, parsed from ``hit@3``, ``MRR@5``, ..., or faithfulness."""

    kind: str
    k: int = 0

    @classmethod
    def parse(cls, name: str) -> Metric:
        text = name.strip().lower()
        if text == FAITHFULNESS:
            return cls(FAITHFULNESS)
        match = _METRIC.match(text)
        if match is None:
            raise ValueError(f"unknown metric {name!r}; use hit@K, recall@K, mrr@K, ndcg@K or faithfulness")
        return cls(match.group(1), int(match.group(2)))

    @property
    def retrieval(self) -> bool:
        """Whether it is read from the ranking (the judge scores faithfulness)."""
        return self.kind != FAITHFULNESS

    @property
    def key(self) -> str:
        """The canonical lower-case name (``mrr@5``)."""
        return f"{self.kind}@{self.k}" if self.retrieval else self.kind

    @property
    def label(self) -> str:
        """The name as reports print it (``MRR@5``)."""
        return f"{_DISPLAY[self.kind]}@{self.k}" if self.retrieval else self.kind


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NumericGate(_Section):
    """The numeric rule both ways against the expected answer and sections, without tolerance."""

    enabled: bool = True
    # Canonical units whose findings fail an entry (rules/numeric: day, business_day, VND, ...);
    # None: every unit the packs know (durations, money, percent), i.e. seed 000's deadlines and money.
    units: tuple[str, ...] | None = None
    # "optional": a figure the expected answer gives in parentheses ("(Premium subscribers get 50 GB.)")
    # is a side note the answer may state (it counts as a source) but need not; "required": every
    # figure of the expected answer must be in the answer. Seed 000's entries have no parentheses, so
    # both read them alike; "optional" was chosen on the simulator's dev split (scripts/measure_gate.py:
    # correct answers failed 112 -> 81 of 180 telecom entries, 65 -> 46 insurer, no wrong answer let through).
    parenthetical: Literal["required", "optional"] = "optional"


class BaselineGate(_Section):
    """How a candidate compares with the baseline run: a drop larger than the tolerance fails."""

    tolerance: float = Field(default=DEFAULT_DROP_TOLERANCE, ge=0, le=1)
    tolerances: dict[str, float] = Field(default_factory=dict)  # per metric, e.g. {mrr@5: 0.02}
    # The golden set the baseline ran (its traces' metadata.golden_version) differs: figures of two
    # versions do not compare. "skip" reports the comparison as not made; "fail" fails the gate.
    on_version_mismatch: Literal["skip", "fail"] = "skip"

    @field_validator("tolerances")
    @classmethod
    def _metric_keys(cls, value: dict[str, float]) -> dict[str, float]:
        return _per_metric_share(value, "tolerance")

    def tolerance_of(self, metric: Metric) -> float:
        return self.tolerances.get(metric.key, self.tolerance)


class MatchGate(_Section):
    """Matching traces that name no golden entry: exact question first, then the golden matcher."""

    threshold: float | None = Field(default=None, ge=0, le=1)  # None: the matcher's fitted default
    margin: float | None = Field(default=None, ge=0, le=1)


class GateConfig(_Section):
    """Everything ``gate.yaml`` may set; every key is optional (the defaults are seed 000's)."""

    floors: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_FLOORS))
    metrics: tuple[str, ...] = DEFAULT_METRICS  # reported columns; the floors' metrics are added
    numeric: NumericGate = NumericGate()
    abstention: bool = True  # unanswerable entries must abstain
    # Phrases your assistant abstains with, beside rules/abstention's ("our documents don't cover"):
    # an assistant's refusal template is known, and the packs cannot list every wording.
    abstention_phrases: tuple[str, ...] = ()
    baseline: BaselineGate = BaselineGate()
    scoring_only_tags: tuple[str, ...] = DEFAULT_SCORING_ONLY_TAGS
    match: MatchGate = MatchGate()
    # "local": the offline local judge scores faithfulness (monitor.judge.local: no API, no key); None: not.
    judge: Literal["local"] | None = None

    @model_validator(mode="after")
    def _faithfulness_needs_a_judge(self) -> GateConfig:
        if self.judge is None:
            for where, names in (("floors", self.floors), ("metrics", self.metrics)):
                if FAITHFULNESS in names:
                    raise ValueError(f"{where}: faithfulness needs a judge (judge: local)")
        return self

    @field_validator("floors")
    @classmethod
    def _floors(cls, value: dict[str, float]) -> dict[str, float]:
        return _per_metric_share(value, "floor")

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(Metric.parse(name).key for name in value)

    @property
    def floor_metrics(self) -> list[Metric]:
        return sorted(Metric.parse(name) for name in self.floors)

    @property
    def all_metrics(self) -> list[Metric]:
        """Reported metrics then floor metrics, each once, in the order the report shows them."""
        judged = [FAITHFULNESS] if self.judge else []
        names = dict.fromkeys([*self.metrics, *judged, *self.floors])
        return [Metric.parse(name) for name in names]


def load_config(path: Path | None) -> GateConfig:
    """The gate settings from a YAML file (None: the defaults); one-line errors name the setting."""
    if path is None:
        return GateConfig()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise GateInputError(f"{path}: gate config not found") from exc
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GateInputError(f"{path}: cannot read the gate config: {_first_line(exc)}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise GateInputError(f"{path}: expected a mapping of settings")
    try:
        return GateConfig.model_validate(data)
    except ValidationError as exc:
        raise GateInputError(f"{path}: {_setting_error(exc)}") from exc


def _per_metric_share(value: dict[str, float], what: str) -> dict[str, float]:
    """A per-metric setting re-keyed by ``Metric.parse(name).key``, each value a share in [0, 1]."""
    out = {Metric.parse(name).key: share for name, share in value.items()}
    bad = [name for name, share in out.items() if not 0 <= share <= 1]
    if bad:
        raise ValueError(f"{what} of {bad[0]} must be between 0 and 1")
    return out


def _setting_error(exc: ValidationError) -> str:
    err = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in err["loc"]) or "settings"
    message = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        message = "unknown setting"
    return f"{where}: {message}" if err["loc"] else message


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@dataclass(frozen=True)
class RunVersions:
    """What a run was made with, read from its traces (each field: the distinct values seen)."""

    model_id: tuple[str, ...] = ()
    prompt_version: tuple[str, ...] = ()
    index_version: tuple[str, ...] = ()
    golden_version: tuple[str, ...] = ()  # the golden set the harness asked, when it recorded it

    def as_dict(self) -> dict[str, list[str]]:
        return {
            "model_id": list(self.model_id),
            "prompt_version": list(self.prompt_version),
            "index_version": list(self.index_version),
            "golden_version": list(self.golden_version),
        }

    def describe(self) -> str:
        """``model m · prompt p · index i`` (unknown parts shown as ``?``)."""
        parts = (("model", self.model_id), ("prompt", self.prompt_version), ("index", self.index_version))
        return " · ".join(f"{name} {', '.join(values) or '?'}" for name, values in parts)


@dataclass(frozen=True)
class EntryResult:
    """One golden entry's scores and verdict in one run; ``failures`` say why it fails (empty: passes)."""

    id: str
    question: str
    scoring_only: bool
    answerable: bool
    trace_id: str | None
    answer: str | None
    first_hit_rank: int | None
    metrics: Mapping[str, float]  # metric key -> value; absent when retrieval is not measurable
    numeric_missing: tuple[str, ...] = ()
    numeric_out_of_source: tuple[str, ...] = ()
    numeric_checked: bool = False
    numeric_sources_known: bool = False  # whether answer figures were checked against the sections
    should_abstain: bool = False
    failures: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def measured(self) -> bool:
        """Whether its retrieval could be scored (a trace whose chunks carry section labels)."""
        return any(key != FAITHFULNESS for key in self.metrics)


@dataclass(frozen=True)
class Check:
    """One gate-level check: a floor (``value >= threshold``) or a baseline drop (``drop <= threshold``)."""

    kind: Literal["floor", "baseline"]
    metric: Metric
    value: float | None  # the candidate's mean; None when no entry could be measured
    threshold: float  # the floor, or the allowed drop
    baseline: float | None = None
    passed: bool = True
    measured: int = 0  # entries the mean is over
    message: str = ""
    skipped: bool = False  # not made (a baseline on another golden-set version); counts as passed

    @property
    def name(self) -> str:
        if self.kind == "floor":
            return f"{self.metric.label} >= {self.threshold:g}"
        return f"{self.metric.label} drop <= {self.threshold:g} vs baseline"


@dataclass(frozen=True)
class RunScore:
    """One run scored against the golden set: entries, and per-split means of every metric."""

    path: str
    versions: RunVersions
    entries: tuple[EntryResult, ...]
    tuning_means: Mapping[str, float | None]
    scoring_only_means: Mapping[str, float | None]
    notes: tuple[str, ...] = ()

    def entry(self, entry_id: str) -> EntryResult | None:
        return next((e for e in self.entries if e.id == entry_id), None)


@dataclass(frozen=True)
class GateResult:
    """The verdict: the candidate's scores, the floor and baseline checks, and what fails."""

    golden_version: str
    golden_entries: int
    config: GateConfig
    run: RunScore
    baseline: RunScore | None
    checks: tuple[Check, ...]
    notes: tuple[str, ...] = field(default=())
    # Entries whose first relevant chunk sits lower than in the baseline: (id, baseline rank, rank),
    # None for a miss. Seed 000: "q01: 1 -> 3". Not a failure by itself; the means carry the verdict.
    rank_drops: tuple[tuple[str, int | None, int | None], ...] = ()

    @property
    def failing_entries(self) -> list[EntryResult]:
        return [e for e in self.run.entries if not e.passed]

    @property
    def failing_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def passed(self) -> bool:
        return not self.failing_entries and not self.failing_checks

    def summary(self) -> dict[str, Any]:
        """Counts for a one-line verdict."""
        return {
            "entries": len(self.run.entries),
            "failing_entries": len(self.failing_entries),
            "checks": len(self.checks),
            "failing_checks": len(self.failing_checks),
        }
