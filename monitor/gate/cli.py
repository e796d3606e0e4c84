"""``ragmon gate RUN.jsonl --golden FILE``: the golden set as a CI check (docs/ci-gate.md).

Exit codes: 0 the gate passes, 1 it fails (floors, baseline drops or entries; each named on stdout),
2 usage or input error (a missing file, a malformed golden set, run or gate config): one line on
stderr, raised as ``ConfigError`` and printed by ``monitor.cli.main``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from monitor.gate.evaluate import Faithfulness
from monitor.gate.model import GateConfig, GateInputError, load_config
from monitor.gate.runs import Matcher
from monitor.golden import GoldenEntry, GoldenSet
from monitor.numeric import NumericRules
from monitor.trace import Trace

EXIT_PASS, EXIT_FAIL = 0, 1


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``gate`` on the main CLI."""
    p = subparsers.add_parser(
        "gate",
        help="score a run of the golden questions against floors and a baseline (CI check)",
        description="Score a candidate's run of the golden questions (docs/ci-gate.md).",
        epilog="exit codes: 0 pass, 1 the gate fails, 2 usage or input error",
    )
    p.add_argument(
        "run",
        metavar="RUN",
        type=Path,
        help="the candidate's traces (JSONL or any format replay reads; - for stdin)",
    )
    p.add_argument(
        "--golden",
        metavar="FILE",
        type=Path,
        action="append",
        required=True,
        help="golden set file (repeatable)",
    )
    p.add_argument("--golden-sections", metavar="FILE", type=Path, help="section id -> text (policy.json)")
    p.add_argument("--baseline", metavar="BASE", type=Path, help="the baseline's traces (e.g. main's run)")
    p.add_argument(
        "--config",
        metavar="GATE_YAML",
        type=Path,
        help="gate.yaml: floors, tolerances, numeric rule, scoring-only tags",
    )
    p.add_argument("--report", metavar="OUT_MD", type=Path, help="write a Markdown report (a PR comment)")
    p.add_argument(
        "--junit", metavar="OUT_XML", type=Path, help="write JUnit XML (one testcase per entry and per check)"
    )
    p.set_defaults(func=_cmd_gate)


def _cmd_gate(args: argparse.Namespace) -> int:
    from monitor.gate.evaluate import Scorer, run_gate
    from monitor.gate.report import console_lines, junit, markdown
    from monitor.golden import AbstentionDetector

    config = load_config(args.config)
    golden = GoldenSet.load(args.golden, args.golden_sections)
    if not len(golden):
        raise GateInputError(f"{args.golden[0]}: the golden set has no entries")
    numeric = NumericRules.load()
    judge = _local_faithfulness(numeric) if config.judge == "local" else None
    packaged = AbstentionDetector.load()
    abstention = AbstentionDetector([*packaged.phrases, *config.abstention_phrases], packaged.clauses)
    scorer = Scorer(golden, config, numeric, abstention, _matcher(golden, config), judge)
    result = run_gate(scorer, args.run, args.baseline)
    if args.report is not None:
        _write(args.report, markdown(result).encode("utf-8"))
    if args.junit is not None:
        _write(args.junit, junit(result))
    print("\n".join(console_lines(result)))
    return EXIT_PASS if result.passed else EXIT_FAIL


def _matcher(golden: GoldenSet, config: GateConfig) -> Callable[[], Matcher]:
    """A factory for the golden matcher: e5 is loaded only when a trace names no entry and asks in
    other words than the golden question."""

    def build() -> Matcher:
        from monitor.embeddings import LocalE5Embedder
        from monitor.golden import DEFAULT_MATCH_THRESHOLD, GoldenMatcher
        from monitor.golden.match import DEFAULT_MATCH_MARGIN

        m = config.match
        matcher = GoldenMatcher(
            golden,
            LocalE5Embedder(),
            DEFAULT_MATCH_THRESHOLD if m.threshold is None else m.threshold,
            margin=DEFAULT_MATCH_MARGIN if m.margin is None else m.margin,
        )

        def match(question: str) -> GoldenEntry | None:
            found = matcher.match(question)
            return None if found is None else found.entry

        return match

    return build


def _local_faithfulness(numeric: NumericRules) -> Faithfulness:
    """Faithfulness by the local judge (claims split by rules, support by numbers, words and e5)."""
    from monitor.embeddings import LocalE5Embedder
    from monitor.judge.base import judge_input
    from monitor.judge.local import LocalJudge
    from monitor.triad import faithfulness

    judge = LocalJudge(LocalE5Embedder(), numeric=numeric)

    def score(trace: Trace) -> float | None:
        verdicts, _ = judge.decide(judge_input(trace))
        return faithfulness(verdicts.claims)

    return score


def _write(path: Path, content: bytes) -> None:
    try:
        path.write_bytes(content)
    except OSError as exc:
        raise GateInputError(f"{path}: cannot write: {exc.strerror}") from exc
