"""structlog set up once in ``main``: JSON lines when stderr is not a terminal, readable on a terminal.

Per-message context (trace_id, topic, partition, offset) is bound with ``bound_contextvars`` by the
pipeline, so every line about a trace carries it without threading it through calls.
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

import structlog

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def configure_logging(
    level: str = "info", fmt: Literal["auto", "json", "console"] = "auto", stream: object = None
) -> None:
    """Configure structlog for the process; call once, from the CLI entry point."""
    out = stream if stream is not None else sys.stderr
    use_json = fmt == "json" or (fmt == "auto" and not getattr(out, "isatty", lambda: False)())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(ensure_ascii=False) if use_json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(LEVELS.get(level, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=out),  # type: ignore[arg-type]  # any text stream
        cache_logger_on_first_use=True,
    )
