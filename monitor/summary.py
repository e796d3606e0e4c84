"""The replay summary: a table for people, JSON for scripts."""

from __future__ import annotations

import json
from typing import Any

from monitor.app import Summary


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
