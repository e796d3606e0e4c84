"""The gate's verdict as console lines, a Markdown pull-request comment and JUnit XML.

The Markdown report opens with the verdict, the golden-set version and both runs' versions (figures of
two golden-set versions do not compare), then the floor and baseline checks, then every entry with the
failing ones first, then the scoring-only entries apart. The JUnit file has one testcase per golden
entry and one per floor or baseline check, so CI systems list them natively.
"""

from __future__ import annotations

# ElementTree only *writes* here (no untrusted XML is parsed), which is what S405 warns about.
import xml.etree.ElementTree as ET  # noqa: S405
from collections.abc import Iterable, Mapping, Sequence

from monitor.gate.model import Check, EntryResult, GateResult, Metric, RunScore

PASS_MARK, FAIL_MARK, SKIP_MARK = "✅", "❌", "⏭️"


def console_lines(result: GateResult) -> list[str]:
    """What the command prints: the verdict, then every failing check and entry with its reason."""
    verdict = "passed" if result.passed else "FAILED"
    counts = result.summary()
    lines = [
        f"ragmon gate: {verdict} (golden set {result.golden_version}, {result.golden_entries} entries; "
        f"run {result.run.versions.describe()})",
    ]
    lines += [f"  {_status(c)} {c.message}" for c in result.checks]
    lines += [f"  FAIL {reason}" for e in result.failing_entries for reason in e.failures]
    lines += [
        f"  down {entry_id}: first hit rank {_number(old)} -> {_number(new)} (baseline -> run)"
        for entry_id, old, new in result.rank_drops
    ]
    lines += [f"  note {note}" for note in result.notes]
    if not result.passed:
        lines.append(
            f"{counts['failing_entries']} of {counts['entries']} entries and "
            f"{counts['failing_checks']} of {counts['checks']} checks fail"
        )
    return lines


def _number(rank: int | None) -> str:
    return "miss" if rank is None else str(rank)


def _status(check: Check) -> str:
    return "skip" if check.skipped else "ok  " if check.passed else "FAIL"


def markdown(result: GateResult) -> str:
    """A pull-request comment: verdict, versions, checks, entries (failing first), scoring-only apart."""
    metrics = result.config.all_metrics
    verdict = f"{PASS_MARK} passed" if result.passed else f"{FAIL_MARK} failed"
    counts = result.summary()
    tally = (
        f"{counts['failing_entries']} of {counts['entries']} entries and "
        f"{counts['failing_checks']} of {counts['checks']} checks fail."
    )
    out = [f"## ragmon gate: {verdict}", "", tally, ""]
    out += _versions(result)
    out += ["", "### Checks", "", "| check | value | threshold | result |", "|---|---|---|---|"]
    out += [_check_row(c) for c in result.checks]
    tuning = [e for e in result.run.entries if not e.scoring_only]
    held = [e for e in result.run.entries if e.scoring_only]
    out += ["", f"### Entries ({sum(not e.passed for e in tuning)} of {len(tuning)} failing)", ""]
    out += _entry_table(tuning, metrics, result.baseline, result.rank_drops)
    out += _means_line(result.run.tuning_means, metrics, "tuning entries")
    if held:
        out += ["", f"### Scoring only ({len(held)} entries, never used to choose thresholds)", ""]
        out += _entry_table(held, metrics, result.baseline, result.rank_drops)
        out += _means_line(result.run.scoring_only_means, metrics, "scoring-only entries")
    if result.notes:
        out += ["", "### Notes", ""] + [f"- {_cell(n)}" for n in result.notes]
    return "\n".join(out) + "\n"


def _versions(result: GateResult) -> list[str]:
    rows = [
        "| | golden set | model | prompt | index |",
        "|---|---|---|---|---|",
        _version_row("run", result.run, result.golden_version),
    ]
    if result.baseline is not None:
        rows.append(_version_row("baseline", result.baseline, result.golden_version))
    return [f"Golden set `{result.golden_version}` ({result.golden_entries} entries).", "", *rows]


def _version_row(name: str, run: RunScore, golden_version: str) -> str:
    v = run.versions
    golden = ", ".join(v.golden_version) or golden_version

    def cell(values: tuple[str, ...]) -> str:
        return _cell(", ".join(values)) or "?"

    return (
        f"| {name} `{_cell(run.path)}` | {_cell(golden)} | {cell(v.model_id)} | "
        f"{cell(v.prompt_version)} | {cell(v.index_version)} |"
    )


def _check_row(check: Check) -> str:
    value = "n/a" if check.value is None else f"{check.value:.2f}"
    if check.kind == "floor":
        threshold = f">= {check.threshold:g}"
    else:
        base = "n/a" if check.baseline is None else f"{check.baseline:.2f}"
        threshold = f"baseline {base}, drop <= {check.threshold:g}"
    mark = PASS_MARK if check.passed else f"{FAIL_MARK} {_cell(check.message)}"
    if check.skipped:
        mark = f"{SKIP_MARK} {_cell(check.message)}"
    name = check.metric.label if check.kind == "floor" else f"{check.metric.label} vs baseline"
    return f"| {name} | {value} | {threshold} | {mark} |"


def _entry_table(
    entries: Sequence[EntryResult],
    metrics: Sequence[Metric],
    baseline: RunScore | None,
    drops: Sequence[tuple[str, int | None, int | None]] = (),
) -> list[str]:
    head = ["entry", "result", "first hit" + (" (baseline)" if baseline else "")]
    head += [m.label for m in metrics] + ["why"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    dropped = {entry_id for entry_id, _, _ in drops}
    for entry in sorted(entries, key=lambda e: e.passed):  # stable: failing first, golden order kept
        rows.append(_entry_row(entry, metrics, baseline, entry.id in dropped))
    return rows


def _entry_row(
    entry: EntryResult, metrics: Sequence[Metric], baseline: RunScore | None, dropped: bool
) -> str:
    rank = _rank(entry)
    if baseline is not None:
        before = baseline.entry(entry.id)
        rank += f" ({_rank(before) if before else '-'})" + (" ↓" if dropped else "")
    values = [f"{entry.metrics[m.key]:.2f}" if m.key in entry.metrics else "-" for m in metrics]
    why = "; ".join(f.removeprefix(f"{entry.id}: ") for f in entry.failures)
    cells = [f"`{_cell(entry.id)}`", PASS_MARK if entry.passed else FAIL_MARK, rank, *values, _cell(why)]
    return "| " + " | ".join(cells) + " |"


def _rank(entry: EntryResult) -> str:
    if not entry.measured:
        return "-"
    return str(entry.first_hit_rank) if entry.first_hit_rank else "miss"


def _means_line(means: Mapping[str, float | None], metrics: Sequence[Metric], what: str) -> list[str]:
    parts = [f"{m.label} {value:.2f}" for m in metrics if (value := means.get(m.key)) is not None]
    return ["", f"Means over the {what}: " + (", ".join(parts) if parts else "not measured") + "."]


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell of a PR comment (no pipes, newlines or raw HTML)."""
    return (
        " ".join(text.split())
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("|", "\\|")
    )


def junit(result: GateResult) -> bytes:
    """JUnit XML: a suite of golden entries, a suite of scoring-only entries, a suite of checks."""
    root = ET.Element("testsuites", name="ragmon gate")
    tuning = [e for e in result.run.entries if not e.scoring_only]
    held = [e for e in result.run.entries if e.scoring_only]
    _suite(root, "golden entries", "ragmon.gate.entries", [_entry_case(e) for e in tuning], result)
    if held:
        _suite(
            root, "scoring-only entries", "ragmon.gate.scoring_only", [_entry_case(e) for e in held], result
        )
    _suite(root, "checks", "ragmon.gate.checks", [_check_case(c) for c in result.checks], result)
    root.set("tests", str(sum(int(s.get("tests", "0")) for s in root)))
    root.set("failures", str(sum(int(s.get("failures", "0")) for s in root)))
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


_Case = tuple[str, str, Sequence[str], str]  # (name, system-out, failure messages, skipped message)


def _entry_case(entry: EntryResult) -> _Case:
    detail = [f"question: {entry.question}", f"trace: {entry.trace_id or '-'}"]
    if entry.measured:
        detail.append(
            "first hit rank: "
            + _rank(entry)
            + "; "
            + ", ".join(f"{k} {v:.2f}" for k, v in entry.metrics.items())
        )
    if entry.answer is not None:
        detail.append(f"answer: {entry.answer}")
    return entry.id, "\n".join(detail), entry.failures, ""


def _check_case(check: Check) -> _Case:
    skipped = check.message if check.skipped else ""
    return check.name, check.message, () if check.passed else (check.message,), skipped


def _suite(root: ET.Element, name: str, classname: str, cases: Iterable[_Case], result: GateResult) -> None:
    suite = ET.SubElement(root, "testsuite", name=name)
    props = ET.SubElement(suite, "properties")
    for key, value in _properties(result):
        ET.SubElement(props, "property", name=key, value=value)
    count = failures = skipped = 0
    for case_name, detail, failed, skip in cases:
        case = ET.SubElement(suite, "testcase", classname=classname, name=case_name)
        count += 1
        if skip:
            skipped += 1
            ET.SubElement(case, "skipped", message=skip)
        if failed:
            failures += 1
            failure = ET.SubElement(case, "failure", message=failed[0], type="gate")
            failure.text = "\n".join(failed)
        ET.SubElement(case, "system-out").text = detail
    suite.set("tests", str(count))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))


def _properties(result: GateResult) -> Iterable[tuple[str, str]]:
    yield "golden_version", result.golden_version
    for prefix, run in (("run", result.run), ("baseline", result.baseline)):
        if run is None:
            continue
        yield f"{prefix}.path", run.path
        for key, values in run.versions.as_dict().items():
            if values:
                yield f"{prefix}.{key}", ", ".join(values)
