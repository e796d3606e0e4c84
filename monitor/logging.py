"""structlog set up once in ``main``: JSON lines when stderr is not a terminal, readable on a terminal.

Every line logged while a message is being handled carries its trace_id and origin (topic, partition,
offset, or file and line) without threading them through calls: the engine records the current message
in one context variable (two cheap ``set`` calls per message, where binding a dict of context variables
cost more than the rest of the cheap path), and a processor expands it only when a line is written.
Tasks started for a message (judging) inherit it.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Literal

import structlog
from structlog.typing import EventDict, WrappedLogger

from monitor.message import Origin
from monitor.pii import Scrubber

_SCRUBBER: list[Scrubber] = []  # set once by the process's composition root (``use_scrubber``)
_KEEP = frozenset({"event", "level", "timestamp", "logger"})
_MESSAGE: ContextVar[tuple[Origin | None, str | None]] = ContextVar("ragmon_message", default=(None, None))

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def set_message(origin: Origin | None, trace_id: str | None = None) -> None:
    """Record the message being handled in this context; log lines will carry where it came from."""
    _MESSAGE.set((origin, trace_id))


def merge_message(logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
    """Processor: add the current message's trace_id and origin to a line that lacks them."""
    origin, trace_id = _MESSAGE.get()
    if trace_id is not None:
        event_dict.setdefault("trace_id", trace_id)
    if origin is not None:
        for key, value in origin.as_dict().items():
            event_dict.setdefault(key, value)
    return event_dict


def use_scrubber(scrubber: Scrubber | None) -> None:
    """Scrub PII from every log line from now on (a trace id or an error may quote a message's text)."""
    _SCRUBBER[:] = [scrubber] if scrubber is not None else []


def scrub_event(logger: WrappedLogger, method: str, event_dict: EventDict) -> EventDict:
    """Processor: run the PII scrubber over every value of the line (ids get pseudonyms, as in stores)."""
    if not _SCRUBBER:
        return event_dict
    scrubber = _SCRUBBER[0]
    for key, value in event_dict.items():
        if key not in _KEEP and isinstance(value, str | list | dict | int):
            event_dict[key] = scrubber.scrub_obj(value, key)
    return event_dict


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
            merge_message,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            scrub_event,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(LEVELS.get(level, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=out),  # type: ignore[arg-type]  # any text stream
        cache_logger_on_first_use=False,  # tests reconfigure logging: a cached logger keeps a closed stream
    )


class Throttle:
    """At most ``burst`` lines of one event per ``window_s``: under a flood of bad messages or skipped
    traces the log stays readable, and the next line that gets through says how many were held back."""

    def __init__(self, burst: int = 5, window_s: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self._burst, self._window_s, self._clock = burst, window_s, clock
        self._state: dict[str, tuple[float, int, int]] = {}  # event -> (window start, logged, held back)
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget every window (tests start each with a clean slate)."""
        with self._lock:
            self._state.clear()

    def allow(self, event: str) -> tuple[bool, int]:
        """Whether to log this occurrence, and how many occurrences were held back before it."""
        now = self._clock()
        with self._lock:
            start, logged, held = self._state.get(event, (now, 0, 0))
            if now - start >= self._window_s:
                start, logged = now, 0
            if logged < self._burst:
                self._state[event] = (start, logged + 1, 0)
                return True, held
            self._state[event] = (start, logged, held + 1)
            return False, held


THROTTLE = Throttle()


def throttled(
    logger: structlog.typing.FilteringBoundLogger,
    level: str,
    event: str,
    lazy: Callable[[], dict[str, object]] | None = None,
    **fields: object,
) -> None:
    """Log ``event`` unless it has been logged ``burst`` times in this window (then count it); ``lazy``
    gives fields that cost something to compute, only for a line that gets through."""
    ok, held = THROTTLE.allow(event)
    if ok:
        more = lazy() if lazy is not None else {}
        getattr(logger, level)(event, **fields, **more, **({"held_back": held} if held else {}))
