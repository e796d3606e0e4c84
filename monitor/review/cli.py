"""``ragmon review ...``: list, show, label, promote, agreement and sample, over the review store.

``add_parser(subparsers)`` registers ``review`` on the main CLI; every sub-command sets
``func(args) -> int`` (the exit code: 0 done, 1 refused or store failure, 2 bad input or config).
``--store URL`` may come before or after the sub-command; ``args.store`` set by the caller also works.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from monitor.config import load_settings
from monitor.exceptions import RagmonError, report
from monitor.flags import FlagRules
from monitor.review import agreement as agreement_mod
from monitor.review import sample as sample_mod
from monitor.review.models import VERDICTS, CaseFilter, Status, moment_since
from monitor.review.promote import PromotedVariants, promote, promote_negative, promote_variant
from monitor.review.render import print_agreement, print_case, print_cases
from monitor.review.store import DEFAULT_STORE_PATH, ReviewStore, open_store
from monitor.web.serve import add_parser as add_serve_parser

Handler = Callable[[argparse.Namespace], int]
_STORE_FORMS = "a path, sqlite:///path.db or postgresql://user@host:port/db"
STORE_HELP = f"review store: {_STORE_FORMS} (default {DEFAULT_STORE_PATH})"


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """``--since``: an ISO date or datetime (UTC when naive), or a span back from now (30m, 24h, 7d, 2w)."""
    try:
        return moment_since(value, now)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _threshold(value: str) -> tuple[str, float]:
    metric, sep, number = value.partition("=")
    try:
        return metric.strip(), float(number)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r} is not METRIC=NUMBER") from exc


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``review`` and its sub-commands on the main CLI."""
    review = subparsers.add_parser("review", help="review flagged cases and promote them to the golden set")
    review.add_argument("--store", default=None, help=STORE_HELP)
    review.set_defaults(func=_usage(review))
    commands = review.add_subparsers(dest="review_command", metavar="COMMAND")
    builders = (_list, _show, _label, _mute, _unmute, _mutes, _promote, _agreement, _sample, add_serve_parser)
    for build in builders:
        parser = build(commands)
        # SUPPRESS: a --store after the sub-command overrides, its absence keeps the one before it.
        parser.add_argument("--store", default=argparse.SUPPRESS, help=STORE_HELP)


def _usage(parser: argparse.ArgumentParser) -> Handler:
    def handler(args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    return handler


def _format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("table", "json"), default="table", help="output format")


def _list(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("list", help="list cases, newest first")
    p.add_argument("--reason", help="only cases flagged with this reason")
    p.add_argument("--status", choices=[s.value for s in Status], help="only cases in this status")
    p.add_argument("--version", help="only cases whose model, prompt or index version is this")
    p.add_argument("--since", type=parse_since, help="ISO date/datetime or a span such as 24h, 7d")
    p.add_argument("--sample", help="only cases in this sample batch")
    p.add_argument("--limit", type=int, help="at most this many cases")
    _format(p)
    p.set_defaults(func=cmd_list)
    return p


def _show(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("show", help="show one case in full")
    p.add_argument("trace_id", metavar="ID")
    _format(p)
    p.set_defaults(func=cmd_show)
    return p


def _label(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("label", help="record a reviewer's verdict (bad -> confirmed, ok -> false_alarm)")
    p.add_argument("trace_id", metavar="ID")
    p.add_argument(
        "verdict", nargs="?", choices=VERDICTS, help="bad: the answer was wrong; ok: a false alarm"
    )
    p.add_argument("--verdict", dest="verdict_flag", choices=VERDICTS, help="the same, as a flag")
    p.add_argument("--expected-answer", help="the answer the assistant should have given")
    p.add_argument(
        "--sections", nargs="+", default=[], metavar="S", help="policy sections holding the answer"
    )
    p.add_argument("--note", help="free text for the next reader")
    p.add_argument("--reviewer", help="who labelled it")
    p.set_defaults(func=cmd_label)
    return p


def _mute(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser(
        "mute", help="stop flagging a case's unqualified_condition findings: the policy does not bind them"
    )
    p.add_argument("trace_id", metavar="ID")
    p.add_argument("--note", help="why the sentence does not bind the value")
    p.add_argument("--reviewer", help="who muted it")
    p.add_argument("--force", action="store_true", help="mute even what a confirmed case raised too")
    p.set_defaults(func=cmd_mute)
    return p


def _unmute(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("unmute", help="flag a case's muted unqualified_condition findings again")
    p.add_argument("trace_id", metavar="ID")
    p.set_defaults(func=cmd_unmute)
    return p


def _mutes(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("mutes", help="list the muted unqualified_condition findings")
    _format(p)
    p.set_defaults(func=cmd_mutes)
    return p


def _promote(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("promote", help="append labelled cases to the golden file as a new version")
    p.add_argument("trace_ids", nargs="+", metavar="ID")
    p.add_argument("--golden", type=Path, required=True, help="golden file (JSON), created if missing")
    p.add_argument("--source", help="source tag for the entries, e.g. su-co-2026-09-28 (default: trace id)")
    p.add_argument(
        "--as-variant",
        metavar="ENTRY_ID",
        help="add the cases' questions as variants of this existing entry instead of new entries",
    )
    p.add_argument(
        "--as-negative",
        metavar="ENTRY_ID",
        help="keep the cases' questions on this entry as negatives: wrongly matched to it, not this",
    )
    p.set_defaults(func=cmd_promote)
    return p


def _agreement(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("agreement", help="judge-human agreement and the cost-minimizing thresholds")
    p.add_argument("--cost-false-pass", type=float, default=agreement_mod.DEFAULT_COST_FALSE_PASS)
    p.add_argument("--cost-false-fail", type=float, default=agreement_mod.DEFAULT_COST_FALSE_FAIL)
    p.add_argument(
        "--threshold",
        type=_threshold,
        action="append",
        default=[],
        metavar="METRIC=T",
        help="current threshold of a metric (repeatable); default: its flag threshold in rules/flags.yaml",
    )
    _format(p)
    p.set_defaults(func=cmd_agreement)
    return p


def _sample(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = commands.add_parser("sample", help="mark a reproducible weekly sample for reviewers")
    p.add_argument("--random", type=int, default=sample_mod.DEFAULT_RANDOM, help="random picks")
    p.add_argument(
        "--include",
        nargs="+",
        action="extend",
        metavar="REASON",
        help=f"also pick every case with these reasons (default {' '.join(sample_mod.DEFAULT_INCLUDE)})",
    )
    p.add_argument("--since", type=parse_since, default="7d", help="only cases stored since (default 7d)")
    p.add_argument("--seed", help="seed of the random pick (default: the batch name)")
    p.add_argument("--batch", help="batch name (default: sample-YYYY-Www of this week)")
    _format(p)
    p.set_defaults(func=cmd_sample)
    return p


def store_url(args: argparse.Namespace) -> str | None:
    """``--store``, else ``RAGMON_STORE`` (through the settings), else ``None`` (the default path)."""
    given = getattr(args, "store", None)
    return str(given) if given else load_settings().store


def _run(args: argparse.Namespace, action: Callable[[ReviewStore], int]) -> int:
    """Open the store, run ``action``, and turn ragmon errors into a message and an exit code."""
    try:
        with open_store(store_url(args), create=False) as store:
            return action(store)
    except RagmonError as exc:
        return report("ragmon review", exc)


def _emit_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def cmd_list(args: argparse.Namespace) -> int:
    """``ragmon review list``: the matching cases as a table or a JSON array."""
    where = CaseFilter(
        status=Status(args.status) if args.status else None,
        reason=args.reason,
        version=args.version,
        since=args.since,
        sample=args.sample,
        limit=args.limit,
    )

    def action(store: ReviewStore) -> int:
        cases = store.list_cases(where)
        if args.format == "json":
            _emit_json([c.to_json() for c in cases])
        else:
            print_cases(cases)
        return 0

    return _run(args, action)


def cmd_show(args: argparse.Namespace) -> int:
    """``ragmon review show ID``: question, chunks, answer, claims, numeric findings, golden match."""

    def action(store: ReviewStore) -> int:
        case = store.require(args.trace_id)
        if args.format == "json":
            _emit_json(case.to_json())
        else:
            print_case(case)
        return 0

    return _run(args, action)


def cmd_label(args: argparse.Namespace) -> int:
    """``ragmon review label ID bad|ok`` (or ``--verdict bad|ok``)."""
    verdict = args.verdict or args.verdict_flag
    if verdict is None or (args.verdict and args.verdict_flag and args.verdict != args.verdict_flag):
        print(
            "ragmon review label: give one verdict, bad or ok (e.g. `review label ID bad`)", file=sys.stderr
        )
        return 2

    def action(store: ReviewStore) -> int:
        case = store.label(
            args.trace_id,
            verdict,
            expected_answer=args.expected_answer,
            sections=args.sections,
            note=args.note,
            reviewer=args.reviewer,
        )
        print(f"{case.trace_id}: {case.status}")
        return 0

    return _run(args, action)


def cmd_mute(args: argparse.Namespace) -> int:
    """``ragmon review mute ID``: the case's conditional findings stop being flagged on every replica."""

    def action(store: ReviewStore) -> int:
        for m in store.mute(args.trace_id, reviewer=args.reviewer, note=args.note, force=args.force):
            print(f"muted: {m.value} {m.unit} bound to {m.condition!r}")
        return 0

    return _run(args, action)


def cmd_unmute(args: argparse.Namespace) -> int:
    """``ragmon review unmute ID``: the case's conditional findings are flagged again."""

    def action(store: ReviewStore) -> int:
        lifted = store.unmute(args.trace_id)
        for m in lifted:
            print(f"unmuted: {m.value} {m.unit} bound to {m.condition!r}")
        if not lifted:
            print(f"{args.trace_id}: none of its findings was muted")
        return 0

    return _run(args, action)


def cmd_mutes(args: argparse.Namespace) -> int:
    """``ragmon review mutes``: every muted finding, oldest first."""

    def action(store: ReviewStore) -> int:
        mutes = store.mutes()
        if args.format == "json":
            _emit_json([m.to_json() for m in mutes])
            return 0
        for m in mutes:
            who = f" by {m.reviewer}" if m.reviewer else ""
            print(
                f"{m.created_at:%Y-%m-%d %H:%M}  {m.mute.value} {m.mute.unit} bound to {m.mute.condition!r}"
                f"  (from {m.trace_id}{who})"
            )
        return 0

    return _run(args, action)


def cmd_promote(args: argparse.Namespace) -> int:
    """``ragmon review promote ID ... --golden FILE [--as-variant ENTRY_ID | --as-negative ENTRY_ID]``."""
    if args.as_variant and args.as_negative:
        print("ragmon review promote: --as-variant and --as-negative exclude each other", file=sys.stderr)
        return 2
    if args.as_variant:
        return _run(
            args, lambda store: _promote_into(store, args, promote_variant, args.as_variant, "variant")
        )
    if args.as_negative:
        return _run(
            args, lambda store: _promote_into(store, args, promote_negative, args.as_negative, "negative")
        )

    def action(store: ReviewStore) -> int:
        done = promote(store, args.trace_ids, args.golden, source=args.source)
        for entry in done.entries:
            print(f"{entry['trace_id']}: added {entry['id']} (source {entry['source']})")
        print(f"{args.golden}: golden set version {done.version}, {len(done.entries)} entries added")
        return 0

    return _run(args, action)


def _promote_into(
    store: ReviewStore,
    args: argparse.Namespace,
    promote_questions: Callable[..., PromotedVariants],
    entry_id: str,
    noun: str,
) -> int:
    """``--as-variant`` or ``--as-negative``: the cases' questions join entry ``entry_id``'s list."""
    done = promote_questions(store, args.trace_ids, entry_id, args.golden, source=args.source)
    for question in done.variants:
        print(f"{done.entry_id}: added {noun} {question!r}")
    print(f"{args.golden}: golden set version {done.version}, {len(done.variants)} {noun}s added")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    """``ragmon review agreement``: accuracy, kappa, error rates and the best threshold per metric."""
    thresholds = {**FlagRules.load().thresholds(), **dict(args.threshold)}

    def action(store: ReviewStore) -> int:
        report = agreement_mod.agreement(
            store.list_cases(labelled=True), thresholds, args.cost_false_pass, args.cost_false_fail
        )
        if args.format == "json":
            _emit_json(report.to_json())
        else:
            print_agreement(report)
        return 0

    return _run(args, action)


def cmd_sample(args: argparse.Namespace) -> int:
    """``ragmon review sample --random 30 --include negative_feedback``."""
    include = tuple(args.include) if args.include else sample_mod.DEFAULT_INCLUDE
    batch = args.batch or sample_mod.default_batch(datetime.now(UTC))

    def action(store: ReviewStore) -> int:
        done = sample_mod.sample(store, batch, args.random, include, since=args.since, seed=args.seed)
        if args.format == "json":
            _emit_json({"batch": done.batch, "seed": done.seed, "picks": done.picks})
        else:
            print(f"batch {done.batch} (seed {done.seed}): {len(done.picks)} cases")
            for trace_id, why in done.picks.items():
                print(f"  {trace_id}  {why}")
        return 0

    return _run(args, action)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone ``ragmon`` parser holding only ``review`` (tests, and ``python -m``)."""
    parser = argparse.ArgumentParser(prog="ragmon")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ragmon review ...`` from ``argv`` and return the exit code."""
    args = build_parser().parse_args(argv)
    handler: Handler = args.func
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
