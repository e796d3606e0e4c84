"""The ``ragmon`` command: run the daemon, replay a dump, show the config, review cases, simulate traffic.

Exit codes: 0 success, 1 a runtime failure (source unreachable, unhandled messages), 2 invalid usage
or configuration (the message names the field).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import structlog
import yaml

from monitor import __version__
from monitor.config import Settings, config_summary, load_settings, masked
from monitor.exceptions import EXIT_FAILURE, EXIT_OK, RagmonError, report
from monitor.gate.cli import add_parser as add_gate_parser
from monitor.judge.eval_cli import add_parser as add_eval_parser
from monitor.logging import configure_logging
from monitor.review.cli import add_parser as add_review_parser
from monitor.simulate import add_parser as add_simulate_parser

EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a tool killed by SIGPIPE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragmon", description="Production trace monitor for RAG chat assistants."
    )
    parser.add_argument("--version", action="version", version=f"ragmon {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_run(sub)
    _add_replay(sub)
    _add_config(sub)
    add_review_parser(sub)
    add_simulate_parser(sub)
    add_gate_parser(sub)
    add_eval_parser(sub)
    return parser


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config", type=Path, help="YAML config file (RAGMON_* environment variables override it)"
    )
    p.add_argument("--dlq", help="dead-letter JSONL file for file/stdin sources (default ragmon-dlq.jsonl)")
    p.add_argument("--golden", type=Path, action="append", help="golden set file (repeatable)")
    p.add_argument("--golden-sections", type=Path, help="JSON map of section id -> text for reference checks")
    p.add_argument("--store", help="review store: a SQLite path or postgresql://... URL")
    p.add_argument("--rules-dir", type=Path, help="rule packs directory (default: the packaged rules/)")
    p.add_argument("--judge", choices=["local", "openai"], help="judge for sampled traces (default local)")
    p.add_argument("--judge-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--judge-model", help="judge model name; the key comes from RAGMON_JUDGE_API_KEY")
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    p.add_argument("--log-format", choices=["auto", "json", "console"])


def _add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="run the daemon (default source: the bundled sample traces)")
    p.add_argument(
        "--source",
        help="PATH, file:PATH, - (stdin), sample, or kafka://host:port[,host:port]/topic?group=NAME",
    )
    p.add_argument("--follow", action="store_true", default=None, help="tail a growing file")
    p.add_argument("--metrics-port", type=int, help="port for /metrics, /healthz, /readyz (default 9108)")
    p.add_argument("--metrics-host", help="address to bind (default 127.0.0.1)")
    p.add_argument("--results", type=Path, help="also write one result record per trace to this JSONL file")
    _common(p)
    p.set_defaults(func=_cmd_run)


def _add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="process a JSONL file once and print a summary")
    p.add_argument("file", help="JSONL trace dump ('-' for stdin)")
    p.add_argument("--results", type=Path, help="write one result record per trace (JSONL)")
    p.add_argument("--sample-all", action="store_true", default=None, help="judge every trace")
    p.add_argument("--format", choices=["table", "json"], default="table", help="summary format")
    _common(p)
    p.set_defaults(func=_cmd_replay)


def _add_config(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("config", help="inspect the configuration")
    config_sub = p.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    show = config_sub.add_parser("show", help="print the effective configuration, secrets masked")
    _common(show)
    show.set_defaults(func=_cmd_config_show)


_FLAG_FIELDS = {
    "source": "source",
    "follow": "follow",
    "metrics_port": "metrics_port",
    "metrics_host": "metrics_host",
    "dlq": "dlq",
    "golden": "golden",
    "golden_sections": "golden_sections",
    "store": "store",
    "rules_dir": "rules_dir",
    "results": "results",
    "sample_all": "sample_all",
    "log_level": "log_level",
    "log_format": "log_format",
}


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Flags that were given override the config file and the environment."""
    overrides: dict[str, Any] = {
        field: getattr(args, attr)
        for attr, field in _FLAG_FIELDS.items()
        if getattr(args, attr, None) is not None
    }
    judge = {
        key: getattr(args, attr)
        for attr, key in (("judge", "kind"), ("judge_url", "url"), ("judge_model", "model"))
        if getattr(args, attr, None) is not None
    }
    if judge:
        overrides["judge"] = judge
    return load_settings(getattr(args, "config", None), overrides)


def _cmd_run(args: argparse.Namespace) -> int:
    from monitor.app import run_daemon

    settings = settings_from_args(args)
    _configure(settings)
    return asyncio.run(run_daemon(settings))


def _cmd_replay(args: argparse.Namespace) -> int:
    from monitor.app import replay

    args.source = args.file
    args.follow = False
    settings = settings_from_args(args)
    _configure(settings)
    summary = asyncio.run(replay(settings))
    from monitor.summary import render_summary

    print(render_summary(summary, args.format))
    if summary.traces == 0 and summary.feedback_events == 0:
        what = (
            f"none of its {summary.messages} lines was accepted"
            if summary.messages
            else "it holds no messages"
        )
        print(f"ragmon: {args.file}: {what} (see the dead-letter file)", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK if summary.unhandled == 0 and summary.review_unstored == 0 else EXIT_FAILURE


def _cmd_config_show(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    print(yaml.safe_dump(masked(settings), sort_keys=False, allow_unicode=True), end="")
    return EXIT_OK


def _configure(settings: Settings) -> None:
    configure_logging(settings.log_level, settings.log_format)
    log = structlog.get_logger("monitor")
    log.info("config_loaded", **config_summary(settings))
    log.debug("config_effective", config=masked(settings))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ragmon`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except BrokenPipeError:
        # The reader went away (``ragmon review list | head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except RagmonError as exc:
        return report("ragmon", exc)
    return code


if __name__ == "__main__":
    sys.exit(main())
