"""What a run handled (``ragmon replay`` prints it), counted as the metrics count it."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from monitor.assessment import Evaluation


@dataclass
class Summary:
    """Counts of one run: every message once, flags as ``ragmon_flagged_total`` counts them."""

    messages: int = 0
    traces: int = 0
    invalid: Counter[str] = field(default_factory=Counter)
    feedback_events: int = 0
    judged: int = 0
    judge_errors: int = 0
    flagged: Counter[str] = field(default_factory=Counter)
    sampled: Counter[str] = field(default_factory=Counter)
    golden_matched: int = 0
    unhandled: int = 0  # rejected messages the dead-letter sink could not take: redelivered on Kafka
    review_rejected: int = 0  # flagged cases the review store refused for their content
    review_unstored: int = 0  # flagged cases still queued for an unreachable review store at exit
    score_sums: dict[str, float] = field(default_factory=dict)  # running sums: a daemon runs for months
    score_counts: Counter[str] = field(default_factory=Counter)

    def add(self, ev: Evaluation) -> None:
        """Count one handled trace (a late re-run adds only what the metrics add for it)."""
        a = ev.assessment
        self.traces += not a.late
        if ev.flags:
            self.flagged.update(flag.reason for flag in ev.counted_flags)
        self.golden_matched += a.golden is not None and not a.late
        j = ev.judgement
        if j is None:
            return
        self.judged += 1
        self.judge_errors += j.error is not None
        self.sampled.update(a.sampling.reasons)
        scores = j.result.scores if j.result is not None else {}
        for name, value in scores.items():
            if value is not None:
                self.score_sums[name] = self.score_sums.get(name, 0.0) + value
                self.score_counts[name] += 1

    def mean_scores(self) -> dict[str, float]:
        """Mean of each quality metric over the judged traces where it was defined."""
        return {name: self.score_sums[name] / n for name, n in sorted(self.score_counts.items())}


def summary_dict(summary: Summary) -> dict[str, Any]:
    """Plain data for ``--format json``."""
    return {
        "messages": summary.messages,
        "traces": summary.traces,
        "invalid": dict(summary.invalid),
        "feedback_events": summary.feedback_events,
        "judged": summary.judged,
        "judge_errors": summary.judge_errors,
        "sampled": dict(summary.sampled),
        "flagged": dict(summary.flagged),
        "golden_matched": summary.golden_matched,
        "unhandled": summary.unhandled,
        "review_rejected": summary.review_rejected,
        "review_unstored": summary.review_unstored,
        "mean_scores": {k: round(v, 4) for k, v in summary.mean_scores().items()},
    }


def render_summary(summary: Summary, fmt: str = "table") -> str:
    """The summary as an aligned two-column table, or as JSON."""
    data = summary_dict(summary)
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2)
    rows: list[tuple[str, str]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            rows.extend((f"{key}.{k}", _fmt(v)) for k, v in sorted(value.items()))
            if not value:
                rows.append((key, "-"))
        else:
            rows.append((key, _fmt(value)))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)
