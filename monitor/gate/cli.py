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
        "gate", help="score a run of the golden questions against floors and a baseline (CI check)"
    )
    p.add_argument(
        "run", type=Path, help="the candidate's traces (JSONL or any format replay reads; - for stdin)"
    )
    p.add_argument("--golden", type=Path, action="append", required=True, help="golden set file (repeatable)")
    p.add_argument("--golden-sections", type=Path, help="JSON map of section id -> text (policy.json)")
    p.add_argument("--baseline", type=Path, help="the baseline's traces (e.g. main's run), to compare with")
    p.add_argument("--config", type=Path, help="gate.yaml: floors, tolerances, scoring-only tags")
    p.add_argument("--report", type=Path, help="write a Markdown report (a pull-request comment) here")
    p.add_argument("--junit", type=Path, help="write JUnit XML here (one testcase per entry and check)")
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
    abstention = AbstentionDetector([*AbstentionDetector.load().phrases, *config.abstention_phrases])
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
    from monitor.judge.local import LocalJudge
    from monitor.pipeline import judge_input
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
