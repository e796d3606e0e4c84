"""``ragmon review serve``: the review web app on the bounded HTTP server, until SIGINT or SIGTERM.

It refuses to listen beyond loopback without ``RAGMON_REVIEW_TOKEN``: the queue holds production
questions and answers, and labels become tests. The token is never printed or logged.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

import structlog

from monitor.config import REVIEW_TOKEN_ENV, review_token
from monitor.exceptions import RagmonError, report
from monitor.flags import FlagRules
from monitor.http import BoundedServer
from monitor.logging import configure_logging
from monitor.review.store import open_store
from monitor.web.security import Guard, is_loopback

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9109
log = structlog.get_logger(__name__)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``serve`` among the ``review`` sub-commands."""
    p = commands.add_parser(
        "serve", help=f"the review queue in a browser (login token from {REVIEW_TOKEN_ENV})"
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}, 0: any)")
    p.add_argument("--golden", type=Path, help="golden file promotions go to (without it, promotion is off)")
    p.add_argument(
        "--secure-cookie",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="mark the session cookie Secure (HTTPS only); default: on unless the host is loopback",
    )
    p.set_defaults(func=cmd_serve)
    return p


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM; 2 on a refused configuration, 1 when the store cannot be opened."""
    token = review_token()
    if token is None and not is_loopback(args.host):
        print(
            f"ragmon review serve: refusing to listen on {args.host} without {REVIEW_TOKEN_ENV}: "
            "set it, or keep --host 127.0.0.1",
            file=sys.stderr,
        )
        return 2
    if args.golden is not None and not args.golden.parent.is_dir():
        print(f"ragmon review serve: --golden: no directory {args.golden.parent}", file=sys.stderr)
        return 2
    from monitor.web.app import WebOptions, create_app  # the web stack loads only for this command

    configure_logging()
    secure = args.secure_cookie if args.secure_cookie is not None else not is_loopback(args.host)
    options = WebOptions(golden=args.golden, secure_cookie=secure, thresholds=FlagRules.load().thresholds())
    try:
        from monitor.review.cli import store_url  # the review CLI imports this module

        with open_store(store_url(args), create=False) as store:
            app = create_app(store, Guard(token), options)
            with BoundedServer(app, args.host, args.port, name="ragmon-review", setting="review") as server:
                _announce(args, server.port, store.description, token is not None)
                _wait_for_signal()
    except RagmonError as exc:
        return report("ragmon review serve", exc)
    log.info("review_serve_stopped")
    return 0


def _announce(args: argparse.Namespace, port: int, store: str, with_token: bool) -> None:
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{port}/cases"
    # One line on stdout (scripts and tests wait for it), the details in the log.
    print(f"ragmon review serve: listening on {url}", flush=True)
    log.info(
        "review_serve_started",
        url=url,
        store=store,
        login="token" if with_token else "none (loopback only)",
        golden=str(args.golden) if args.golden else None,
    )


def _wait_for_signal() -> None:
    stop = threading.Event()

    def flip(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, flip) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        stop.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
