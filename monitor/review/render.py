"""Plain-text views of cases and agreement for the terminal: fixed-width tables, no extra dependencies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitor.review.agreement import AgreementReport
from monitor.review.models import Case

QUESTION_WIDTH = 60
CHUNK_TEXT_WIDTH = 160
REASONS_WIDTH = 48


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns separated by two spaces, a header and a rule."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [headers, ["-" * w for w in widths], *rows]
    ]
    return "\n".join(lines)


def clip(text: str, width: int) -> str:
    """One line of at most ``width`` characters, with an ellipsis when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def number(value: Any, digits: int = 2) -> str:
    """A score for display: fixed digits, ``-`` when undefined."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "-"
    return f"{value:.{digits}f}"


def print_cases(cases: Sequence[Case]) -> None:
    """The ``review list`` table."""
    if not cases:
        print("no cases")
        return
    rows = [
        [
            c.trace_id,
            str(c.status),
            clip(",".join(c.reasons), REASONS_WIDTH),
            c.created_at.strftime("%Y-%m-%d %H:%M"),
            number(c.scores.get("faithfulness")),
            "/".join(v or "-" for v in c.versions.values()),
            clip(c.question, QUESTION_WIDTH),
        ]
        for c in cases
    ]
    print(table(["TRACE", "STATUS", "REASONS", "CREATED (UTC)", "FAITH", "VERSIONS", "QUESTION"], rows))


def print_case(case: Case) -> None:
    """The ``review show`` view: everything a reviewer needs to decide, top to bottom."""
    print("\n".join(case_lines(case)))


def case_lines(case: Case) -> list[str]:
    lines = [
        f"trace      {case.trace_id}",
        f"status     {case.status}",
        f"created    {case.created_at.isoformat()}   updated {case.updated_at.isoformat()}",
        "versions   " + "  ".join(f"{k}={v or '-'}" for k, v in case.versions.items()),
        "reasons",
    ]
    lines += [f"  - {f.reason}" + (f": {f.detail}" if f.detail else "") for f in case.flags]
    lines += ["", f"question   {case.question}", "", "chunks"]
    lines += _chunk_lines(case.trace.get("retrieved_chunks") or [])
    lines += [
        "",
        f"answer     {case.answer}",
        "",
        "scores     " + "  ".join(f"{k}={number(v)}" for k, v in case.scores.items()),
    ]
    lines += ["claims"] + _claim_lines(case.judge.get("claims") or [])
    lines += ["numeric"] + _numeric_lines(case.result.get("numeric") or {})
    lines += _conditional_lines(case.result.get("conditional") or [])
    lines += ["golden     " + _golden_line(case.result.get("golden"))]
    lines += _label_lines(case)
    return lines


def _chunk_lines(chunks: Sequence[Any]) -> list[str]:
    if not chunks:
        return ["  (none retrieved)"]
    lines = []
    for rank, chunk in enumerate(chunks, start=1):
        c = chunk if isinstance(chunk, dict) else {"text": str(chunk)}
        sections = ",".join(c.get("sections") or ()) or "-"
        lines.append(
            f"  {rank}. {c.get('chunk_id') or '-'}  doc={c.get('document_id') or '-'}  sections={sections}  "
            f"retrieval={number(c.get('retrieval_score'))}  rerank={number(c.get('rerank_score'))}"
        )
        lines.append(f"     {clip(str(c.get('text', '')), CHUNK_TEXT_WIDTH)}")
    return lines


def _claim_lines(claims: Sequence[Any]) -> list[str]:
    if not claims:
        return ["  (not judged, or no claims)"]
    lines = []
    for claim in claims:
        c = claim if isinstance(claim, dict) else {"text": str(claim)}
        mark = "supported  " if c.get("supported") else "UNSUPPORTED"
        ids = ",".join(c.get("chunk_ids") or ())
        lines.append(f"  [{mark}] {c.get('text', '')}" + (f"  ({ids})" if ids else ""))
    return lines


def _numeric_lines(numeric: dict[str, Any]) -> list[str]:
    lines = []
    for kind in ("unsupported", "missing", "conflicting_context"):
        value = numeric.get(kind)
        if value:
            items = value if isinstance(value, list) else [value]
            lines.append(f"  {kind}: " + "; ".join(_finding(item) for item in items))
    return lines or ["  (no findings)"]


def _conditional_lines(findings: Sequence[Any]) -> list[str]:
    """The unqualified_condition findings, what `review mute` would mute."""
    lines = []
    for f in findings:
        if isinstance(f, dict):
            general = ", ".join(str(g.get("text", "")) for g in f.get("general") or () if isinstance(g, dict))
            lines.append(
                f"  {f.get('text', '')} bound to {str(f.get('condition', ''))!r} ({f.get('severity', '')}"
                + (f"; the general case: {general})" if general else ")")
            )
    return ["conditional"] + lines if lines else []


def _finding(item: Any) -> str:
    if isinstance(item, dict):
        return " ".join(f"{k}={v}" for k, v in item.items())
    return str(item)


def _golden_line(golden: Any) -> str:
    if not isinstance(golden, dict):
        return "(no golden match)"
    keys = ("id", "similarity", "first_hit_rank", "reciprocal_rank", "recall_at_k")
    return "  ".join(
        f"{k}={number(golden[k]) if isinstance(golden.get(k), float) else golden.get(k)}" for k in keys
    )


def _label_lines(case: Case) -> list[str]:
    label = case.label
    if label is None:
        return ["label      (not labelled)"]
    lines = [f"label      {label.verdict} by {label.reviewer or '-'} at {label.labelled_at.isoformat()}"]
    if label.expected_answer:
        lines.append(f"expected   {label.expected_answer}")
    if label.sections:
        lines.append(f"sections   {', '.join(label.sections)}")
    if label.note:
        lines.append(f"note       {label.note}")
    if case.promotion:
        p = case.promotion
        lines.append(f"promoted   source={p.source} golden_version={p.golden_version}")
    return lines


def print_agreement(report: AgreementReport) -> None:
    """The ``review agreement`` table: one row per metric."""
    cfp, cff = report.cost_false_pass, report.cost_false_fail
    print(f"labelled cases: {report.labelled}   cost: false pass {cfp:g}, false fail {cff:g}")
    rows = []
    for m in report.metrics:
        now, best = m.at_threshold, m.at_best
        rows.append(
            [
                m.metric,
                str(now.n),
                number(m.threshold),
                number(now.accuracy),
                number(now.kappa),
                number(now.false_pass_rate),
                number(now.false_fail_rate),
                f"{now.cost(cfp, cff):g}",
                number(m.best_threshold, 3),
                f"{best.cost(cfp, cff):g}",
            ]
        )
    headers = [
        "METRIC",
        "N",
        "THRESH",
        "ACC",
        "KAPPA",
        "FALSE_PASS",
        "FALSE_FAIL",
        "COST",
        "BEST",
        "BEST_COST",
    ]
    print(table(headers, rows))
