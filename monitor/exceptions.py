"""The errors ragmon raises, in one tree so callers catch what they mean.

    RagmonError
    ├── ConfigError          invalid settings, rule pack or golden file (exit code 2)
    ├── TraceError           a message that is not a valid trace (goes to the dead-letter sink)
    ├── JudgeError           the judge could not score a trace (flag `judge_error`)
    │   ├── JudgeTimeout
    │   ├── JudgeRateLimited
    │   ├── JudgeUnavailable (circuit open, or the server keeps failing)
    │   └── JudgeOutputInvalid
    ├── StoreError           the review store failed
    │   ├── StoreUnavailable (connection refused or lost, a timeout, a locked file: retried later)
    │   └── StoreRejected    (the database refused this case's content: never retried as is)
    └── SourceError          the trace source could not be opened or read

Foreign errors (httpx, kafka-python, sqlite3, psycopg) are translated into these at one boundary,
with ``raise X(...) from exc``.
"""

from __future__ import annotations

import sys

# Exit codes of every ragmon command: done, failed, a usage or settings mistake.
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class RagmonError(Exception):
    """Base of every error ragmon raises on purpose."""


class ConfigError(RagmonError):
    """Settings, a rule pack or a golden file is invalid; the message names the field."""


class TraceError(RagmonError):
    """A message is not a valid trace; ``reason`` is the bounded label used in metrics."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class JudgeError(RagmonError):
    """The judge could not produce verdicts for a trace."""


class JudgeTimeout(JudgeError):
    """The judge did not answer within its timeout or the trace's deadline."""


class JudgeRateLimited(JudgeError):
    """The judge kept answering 429 after every retry."""


class JudgeUnavailable(JudgeError):
    """The circuit breaker is open or the server keeps failing."""


class JudgeOutputInvalid(JudgeError):
    """The judge's output did not match the schema, even after the repair retry."""


class StoreError(RagmonError):
    """The review store failed to read or write."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or is busy; the same write may succeed later."""


class StoreRejected(StoreError):
    """The database refused the data itself (an invalid character, a value out of range): retrying fails."""


class SourceError(RagmonError):
    """The trace source could not be opened or read."""


def report(program: str, exc: RagmonError) -> int:
    """Print ``exc`` as one line naming ``program`` on stderr; the exit code: 2 for settings, else 1."""
    print(f"{program}: {exc}", file=sys.stderr)
    return EXIT_USAGE if isinstance(exc, ConfigError) else EXIT_FAILURE
