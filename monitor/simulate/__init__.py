"""``ragmon simulate``: realistic chat traffic for a simulated business, with an optional bad deploy.

Three domains ship with ragmon (``banhang``: a Vietnamese shop, seed 000's; ``telecom``: an English
mobile operator; ``insurer``: a Chinese insurer); ``--domain FILE`` takes any domain file and
``--variants FILE`` replaces its wordings (``tests/data/simulate/FORMAT.md``). Output goes to a JSONL
file, stdout or a Kafka topic (key = trace id, so a trace and its late feedback share a partition).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from monitor.exceptions import ConfigError
from monitor.simulate.domain import PACKAGED, Domain, Intent, load_domain
from monitor.simulate.sinks import JsonlSink, KafkaSink, Sink, emit, parse_kafka_url
from monitor.simulate.traffic import (
    DEFAULT_SPACING_S,
    DEFAULT_START,
    SimConfig,
    default_mix,
    generate,
    index_at,
    parse_mix,
)

__all__ = [
    "Domain",
    "Intent",
    "JsonlSink",
    "KafkaSink",
    "SimConfig",
    "add_parser",
    "emit",
    "generate",
    "golden_entries",
    "index_at",
    "load_domain",
    "parse_kafka_url",
    "parse_mix",
    "write_golden",
    "write_sections",
]


def golden_entries(domain: str | Path = "banhang") -> list[dict[str, Any]]:
    """The domain's golden set as its file writes it (seed 000's shape for BanHang, seed 001's otherwise)."""
    return [dict(entry) for entry in load_domain(domain).golden]


def write_golden(path: Path, domain: str | Path = "banhang") -> None:
    """Write the domain's golden set for ``ragmon run --golden``."""
    _write_json(path, golden_entries(domain), "golden file")


def write_sections(path: Path, domain: str | Path = "banhang") -> None:
    """Write section id -> text for ``ragmon run --golden-sections`` (the golden reference checks)."""
    _write_json(path, dict(load_domain(domain).sections), "sections file")


def _write_json(path: Path, data: Any, what: str) -> None:
    try:
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {what} {path}: {exc.strerror}") from exc


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``simulate`` on an argparse subparsers object; the handler is in ``func``."""
    p = subparsers.add_parser(
        "simulate", help="generate realistic chat traffic, optionally with a bad deploy"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--out", default=None, help="JSONL file, or - for stdout (the default)")
    out.add_argument("--kafka", default=None, metavar="URL", help="kafka://host:port/topic")
    p.add_argument("--domain", default="banhang", help=f"{', '.join(PACKAGED)}, or a domain file (JSON)")
    p.add_argument(
        "--variants", type=Path, default=None, help="a variant file: its wordings replace the domain's"
    )
    p.add_argument("--count", type=_non_negative_int, default=1000, help="traces to generate")
    p.add_argument("--rate", type=_non_negative_float, default=0.0, help="traces per second; 0 = no pacing")
    p.add_argument(
        "--bad-deploy-at",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="trace index at which the chunk-800 index goes live (seed 000)",
    )
    p.add_argument(
        "--rollback-at",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="trace index at which the old index comes back",
    )
    p.add_argument("--mix", default=None, help="language mix, e.g. vi=0.6,en=0.4 (default: the domain's)")
    p.add_argument(
        "--deploy-wrong-share",
        type=_share,
        default=0.85,
        help="share of wrong answers on the bad index, for intents that have them",
    )
    p.add_argument(
        "--error-rate", type=_share, default=0.02, help="share of wrong answers on the healthy index"
    )
    p.add_argument("--negative-feedback", type=_share, default=0.05, help="inline negative feedback share")
    p.add_argument("--late-feedback", type=_share, default=0.02, help="late negative feedback share")
    p.add_argument("--invalid", type=_share, default=0.0, help="share of malformed messages (dead-letter)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--start", type=_start_arg, default=DEFAULT_START, help="first timestamp (ISO 8601) or now"
    )
    p.add_argument(
        "--spacing",
        type=_non_negative_float,
        default=None,
        metavar="SECONDS",
        help="seconds between trace timestamps (default 1/rate, or 5)",
    )
    p.add_argument("--golden-out", type=Path, default=None, help="also write the domain's golden set")
    p.add_argument(
        "--sections-out", type=Path, default=None, help="also write section id -> text (--golden-sections)"
    )
    p.set_defaults(func=run)
    return p  # type: ignore[no-any-return]  # argparse's private _SubParsersAction is untyped here


def run(args: argparse.Namespace) -> int:
    """Handle ``ragmon simulate``: generate, send, report on stderr."""
    domain = load_domain(args.domain, args.variants)
    if args.golden_out is not None:
        write_golden(args.golden_out, args.domain)
    if args.sections_out is not None:
        write_sections(args.sections_out, args.domain)
    spacing = (
        args.spacing if args.spacing is not None else (1 / args.rate if args.rate else DEFAULT_SPACING_S)
    )
    config = SimConfig(
        count=args.count,
        seed=args.seed,
        domain=args.domain,
        variants=args.variants,
        mix=parse_mix(args.mix, domain) if args.mix else default_mix(domain),
        bad_deploy_at=args.bad_deploy_at,
        rollback_at=args.rollback_at,
        deploy_wrong_share=args.deploy_wrong_share,
        error_rate=args.error_rate,
        negative_feedback=args.negative_feedback,
        late_feedback=args.late_feedback,
        invalid=args.invalid,
        start=args.start,
        spacing_s=spacing,
    )
    sink: Sink = KafkaSink(args.kafka) if args.kafka else JsonlSink.open(args.out or "-")
    try:
        sent = emit(generate(config), sink, args.rate)
    finally:
        sink.close()
    print(f"simulate: sent {sent} messages ({config.count} traces, domain {domain.name})", file=sys.stderr)
    return 0


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {text}")
    return value


def _share(text: str) -> float:
    value = _non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value


def _start_arg(text: str) -> datetime:
    if text == "now":
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
