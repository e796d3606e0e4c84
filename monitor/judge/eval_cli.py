"""``ragmon eval judge LABELLED.jsonl``: a judge's AUROC and balanced accuracy per language, beside
two trivial baselines, on traces carrying a human ``faithful`` label (``monitor.judge.evaluate``).

JSON lines (one object per language) when stdout is not a terminal or with ``--format jsonl``; a
table on a terminal. The local judge is run without answer relevance, which the figures do not use.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path

from monitor.config import Settings
from monitor.exceptions import JudgeError
from monitor.judge import evaluate
from monitor.judge.base import Judge

DEFAULT_CONCURRENCY = 4


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``eval`` and its ``judge`` sub-command on the main CLI."""
    p = subparsers.add_parser("eval", help="measure ragmon's parts on labelled data")
    sub = p.add_subparsers(dest="eval_command", required=True, metavar="WHAT")
    judge = sub.add_parser(
        "judge",
        help="AUROC and balanced accuracy of the judge vs word/character overlap on labelled traces",
        description=(
            "Each line of FILE is a trace with a boolean `faithful` field (true: a human judged the "
            "answer supported by its chunks). Prints, per language, AUROC [bootstrap 95% CI] and "
            "balanced accuracy at the low_faithfulness flag threshold of the judge's faithfulness, of "
            "its ranking score, and of word and character-bigram overlap, and faithfulness AUROC minus the "
            "better baseline's with a paired bootstrap 95% CI."
        ),
    )
    judge.add_argument("file", nargs="+", type=Path, help="labelled JSONL file(s)")
    judge.add_argument("--format", choices=["table", "jsonl"], help="default: table on a terminal")
    judge.add_argument("--resamples", type=int, default=evaluate.DEFAULT_RESAMPLES, help="bootstrap")
    judge.add_argument("--seed", type=int, default=evaluate.DEFAULT_SEED, help="bootstrap seed")
    judge.add_argument("--limit", type=int, help="only the first N traces of each file")
    judge.add_argument(
        "--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="traces judged at once (openai)"
    )
    from monitor.cli import _common  # the shared --config, --judge, --rules-dir ... options

    _common(judge)
    judge.set_defaults(func=_cmd_eval_judge)


def _cmd_eval_judge(args: argparse.Namespace) -> int:
    from monitor.cli import settings_from_args
    from monitor.exceptions import EXIT_FAILURE, EXIT_OK
    from monitor.flags import FlagRules
    from monitor.logging import configure_logging
    from monitor.rulepacks import RulePacks

    settings = settings_from_args(args)
    configure_logging(settings.log_level, settings.log_format)  # log lines to stderr, the report to stdout
    threshold = FlagRules.load(RulePacks(settings.rules_dir)).thresholds()["faithfulness"]
    tty = args.format == "table" or (args.format is None and sys.stdout.isatty())
    failed = False
    for path in args.file:
        cases = evaluate.read_labelled(path)[: args.limit]
        scored, errors = asyncio.run(_judge_all(settings, cases, args.concurrency))
        reports = evaluate.report(scored, threshold, args.resamples, args.seed)
        judge = settings.judge.kind
        if tty:
            print(f"{path} (judge {judge}, {errors} judge errors)")
            print(evaluate.render_table(reports))
        else:
            print(evaluate.render_jsonl(reports, file=str(path), judge=judge, errors=errors), flush=True)
        failed = failed or errors > 0
    return EXIT_FAILURE if failed else EXIT_OK


async def _judge_all(
    settings: Settings, cases: Sequence[evaluate.Labelled], concurrency: int
) -> tuple[list[evaluate.Scored], int]:
    """Judge every case (at most ``concurrency`` at once); a judge error is counted and left out."""
    async with AsyncExitStack() as stack:
        judge = await _open_judge(settings, stack)
        gate = asyncio.Semaphore(max(concurrency, 1))

        async def one(case: evaluate.Labelled) -> evaluate.Scored | None:
            async with gate:
                try:
                    return evaluate.score(case, await judge.judge(case.item))
                except JudgeError:
                    return None

        results = await asyncio.gather(*(one(case) for case in cases))
    scored = [r for r in results if r is not None]
    return scored, len(results) - len(scored)


async def _open_judge(settings: Settings, stack: AsyncExitStack) -> Judge:
    from monitor import app
    from monitor.judge.local import LocalJudge
    from monitor.numeric import NumericRules
    from monitor.rulepacks import RulePacks

    packs = RulePacks(settings.rules_dir)
    numeric = NumericRules.load(packs.directory("numeric"))
    embedder = app._embedder(settings)  # the composition root's choice
    if settings.judge.kind == "local":
        return LocalJudge(embedder, packs.root, numeric, answer_relevance=False, packs=packs)
    judge, _ = await app._judge(settings, packs, embedder, numeric, stack)  # the daemon's wiring
    return judge
