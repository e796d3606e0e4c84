"""The review store: flagged cases upserted by trace id, labelled by reviewers, promoted to the golden set.

``open_store(url)`` picks the backend from the URL (a path or ``sqlite:///path`` for SQLite, the
default ``ragmon-review.db``; ``postgresql://...`` for a queue shared by replicas), runs the schema
migrations and returns a ``ReviewStore``. Writes are idempotent by trace id so at-least-once
redelivery never duplicates a case, and a later flag only adds its reason. PII is scrubbed here,
before anything reaches the database.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import structlog

from monitor.conditional.model import FLAG_REASON as CONDITIONAL
from monitor.conditional.mutes import Mute
from monitor.exceptions import StoreError, StoreRejected
from monitor.pii import Scrubber
from monitor.review.backend import Backend, Row, Tx
from monitor.review.migrations import has_schema, migrate
from monitor.review.models import (
    VERDICTS,
    VERSION_KEYS,
    Case,
    CaseFilter,
    CaseNotFound,
    Flag,
    Label,
    Promotion,
    ReviewError,
    Status,
    Verdict,
)

DEFAULT_STORE_PATH = "ragmon-review.db"
log = structlog.get_logger(__name__)
_BATCH = 500  # trace ids per IN (...) query, well under SQLite's parameter limit

Clock = Callable[[], datetime]

_UPSERT_CASE = """
INSERT INTO review_cases (trace_id, question, model_id, prompt_version, index_version, trace, result,
                          status, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
ON CONFLICT (trace_id) DO UPDATE SET
    question = excluded.question, model_id = excluded.model_id, prompt_version = excluded.prompt_version,
    index_version = excluded.index_version, trace = excluded.trace, result = excluded.result,
    updated_at = excluded.updated_at
"""
_INSERT_CASE_IF_ABSENT = """
INSERT INTO review_cases (trace_id, question, model_id, prompt_version, index_version, trace, result,
                          status, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
ON CONFLICT (trace_id) DO NOTHING
"""
_INSERT_FLAG = """
INSERT INTO review_flags (trace_id, reason, detail, severity, first_seen) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (trace_id, reason) DO NOTHING
"""
_SELECT_CASES = """
SELECT trace_id, trace, result, status, created_at, updated_at, verdict, labelled_at, expected_answer,
       expected_sections, note, reviewer, promoted_source, golden_version, promoted_at
FROM review_cases c
"""
_LABEL = """
UPDATE review_cases SET status = ?, verdict = ?, expected_answer = ?, expected_sections = ?, note = ?,
       reviewer = ?, labelled_at = ?, updated_at = ?
WHERE trace_id = ?
"""
_PROMOTE = """
UPDATE review_cases SET status = 'promoted', promoted_source = ?, golden_version = ?, promoted_at = ?,
       updated_at = ?
WHERE trace_id = ?
"""
_INSERT_MUTE = """
INSERT INTO review_mutes (condition, value, unit, trace_id, reviewer, note, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (condition, value, unit) DO NOTHING
"""
_DELETE_MUTE = "DELETE FROM review_mutes WHERE condition = ? AND value = ? AND unit = ?"
_SELECT_MUTES = "SELECT condition, value, unit, trace_id, reviewer, note, created_at FROM review_mutes"
_CONFIRMED_CONDITIONAL = """
SELECT c.trace_id, c.result FROM review_cases c
WHERE c.status IN ('confirmed', 'promoted') AND c.verdict = 'bad'
  AND EXISTS (SELECT 1 FROM review_flags f WHERE f.trace_id = c.trace_id AND f.reason = ?)
"""
_EXISTS = "EXISTS (SELECT 1 FROM {table} x WHERE x.trace_id = c.trace_id AND x.{column} = ?)"
# CaseFilter fields compared as they are, and the moments compared through the backend's time type.
_VALUE_FILTERS = {
    "reason": _EXISTS.format(table="review_flags", column="reason"),
    "severity": _EXISTS.format(table="review_flags", column="severity"),
    "sample": _EXISTS.format(table="review_samples", column="batch"),
}
_TIME_FILTERS = {
    "since": "c.created_at >= ?",
    "until": "c.created_at < ?",
    "labelled_since": "c.labelled_at >= ?",
}
_MARK_SAMPLE = """
INSERT INTO review_samples (batch, trace_id, pick, picked_at)
SELECT ?, trace_id, ?, ? FROM review_cases WHERE trace_id = ?
ON CONFLICT (batch, trace_id) DO NOTHING
"""


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ReviewStore:
    """The review queue over one backend; use it as a context manager, it refuses work once closed."""

    def __init__(self, backend: Backend, scrubber: Scrubber | None = None, clock: Clock = _utcnow) -> None:
        self._db = backend
        self._scrub = scrubber or Scrubber.load()
        self._clock = clock
        self._closed = False

    @property
    def description(self) -> str:
        return self._db.description

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection; later calls raise ``StoreError``."""
        if not self._closed:
            self._closed = True
            self._db.close()

    def _tx(self) -> AbstractContextManager[Tx]:
        if self._closed:
            raise StoreError(f"{self.description} is closed")
        return self._db.transaction()

    def upsert_case(
        self, trace: Mapping[str, Any], result: Mapping[str, Any], reasons: Sequence[str]
    ) -> None:
        """Insert or refresh the case for this trace; its reasons are merged with those already stored."""
        self._write_case(_UPSERT_CASE, trace, result, reasons)

    def add_reasons(
        self, trace: Mapping[str, Any], result: Mapping[str, Any], reasons: Sequence[str]
    ) -> None:
        """Merge reasons into the case, keeping its stored result (a late re-run must not erase the
        judge's verdicts); the case is created from ``result`` only when there is none yet."""
        self._write_case(_INSERT_CASE_IF_ABSENT, trace, result, reasons)

    def _write_case(
        self, statement: str, trace: Mapping[str, Any], result: Mapping[str, Any], reasons: Sequence[str]
    ) -> None:
        clean_trace = storable(self._scrub.scrub_obj(dict(trace)))
        clean_result = storable(self._scrub.scrub_obj(dict(result)))
        trace_id = str(clean_trace.get("trace_id") or clean_result.get("trace_id") or "")
        if not trace_id:
            raise StoreRejected("cannot store a case without a trace_id")
        versions = _versions(clean_trace, clean_result)
        now = self._db.time_param(self._clock())
        case_row = (
            trace_id,
            str(clean_trace.get("question", "")),
            *versions,
            self._db.json_param(clean_trace),
            self._db.json_param(clean_result),
            now,
            now,
        )
        details = _flag_details(clean_result)
        with self._tx() as tx:
            tx.execute(statement, case_row)
            for reason in dict.fromkeys(reasons):
                detail, severity = details.get(reason, (None, None))
                tx.execute(_INSERT_FLAG, (trace_id, reason, detail, severity, now))

    def get(self, trace_id: str) -> Case | None:
        """The case for ``trace_id``, or ``None``."""
        with self._tx() as tx:
            rows = tx.all(_SELECT_CASES + " WHERE c.trace_id = ?", (trace_id,))
            cases = self._cases(tx, rows)
        return cases[0] if cases else None

    def require(self, trace_id: str) -> Case:
        """The case for ``trace_id``; raise ``CaseNotFound`` when there is none."""
        case = self.get(trace_id)
        if case is None:
            raise CaseNotFound(trace_id)
        return case

    def list_cases(self, where: CaseFilter | None = None, **filters: Any) -> list[Case]:
        """Cases matching the filter (or keyword filters, the fields of ``CaseFilter``), newest first."""
        where = where or CaseFilter(**filters)
        sql, params = self._where(where)
        sql = _SELECT_CASES + sql + " ORDER BY c.created_at DESC, c.trace_id"
        if where.limit is not None:
            sql += f" LIMIT {int(where.limit)} OFFSET {max(int(where.offset), 0)}"
        with self._tx() as tx:
            return self._cases(tx, tx.all(sql, params))

    def count_cases(self, where: CaseFilter | None = None, **filters: Any) -> int:
        """How many cases match the filter (``limit`` and ``offset`` ignored): the queue's page count."""
        sql, params = self._where(where or CaseFilter(**filters))
        with self._tx() as tx:
            row = tx.one("SELECT COUNT(*) FROM review_cases c" + sql, params)  # noqa: S608 - constants and ?s
        return int(row[0]) if row else 0

    def reason_counts(self, where: CaseFilter | None = None, **filters: Any) -> dict[str, int]:
        """Cases per flag reason among those matching the filter, most frequent first."""
        sql, params = self._where(where or CaseFilter(**filters))
        query = (
            "SELECT f.reason, COUNT(*) FROM review_flags f WHERE f.trace_id IN "  # noqa: S608 - constants and ?s
            f"(SELECT c.trace_id FROM review_cases c{sql}) GROUP BY f.reason ORDER BY COUNT(*) DESC, f.reason"
        )
        with self._tx() as tx:
            return {str(reason): int(count) for reason, count in tx.all(query, params)}

    def versions(self) -> dict[str, list[str]]:
        """The distinct model, prompt and index versions of the stored cases (the queue's filter choices)."""
        found: dict[str, list[str]] = {}
        with self._tx() as tx:
            for column in VERSION_KEYS:
                sql = f"SELECT DISTINCT {column} FROM review_cases WHERE {column} IS NOT NULL ORDER BY 1"  # noqa: S608 - constant column names
                found[column] = [str(row[0]) for row in tx.all(sql)]
        return found

    def _where(self, f: CaseFilter) -> tuple[str, list[Any]]:
        """The WHERE clause and parameters of ``f``: one clause per field that is set."""
        clauses: list[str] = []
        params: list[Any] = []
        if f.status is not None:
            clauses.append("c.status = ?")
            params.append(str(f.status))
        if f.version is not None:
            clauses.append("(c.model_id = ? OR c.prompt_version = ? OR c.index_version = ?)")
            params.extend([f.version] * 3)
        for column in VERSION_KEYS:
            value = getattr(f, column)
            if value is not None:
                clauses.append(f"c.{column} = ?")
                params.append(value)
        for name, clause in _VALUE_FILTERS.items():
            value = getattr(f, name)
            if value is not None:
                clauses.append(clause)
                params.append(value)
        for name, clause in _TIME_FILTERS.items():
            moment = getattr(f, name)
            if moment is not None:
                clauses.append(clause)
                params.append(self._db.time_param(moment))
        if f.labelled is not None:
            clauses.append("c.verdict IS NOT NULL" if f.labelled else "c.verdict IS NULL")
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def label(
        self,
        trace_id: str,
        verdict: Verdict,
        expected_answer: str | None = None,
        sections: Iterable[str] = (),
        note: str | None = None,
        reviewer: str | None = None,
    ) -> Case:
        """Record a reviewer's verdict: ``bad`` confirms the flag, ``ok`` marks it a false alarm."""
        if verdict not in VERDICTS:
            raise ReviewError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
        status = Status.CONFIRMED if verdict == "bad" else Status.FALSE_ALARM
        now = self._db.time_param(self._clock())
        expected = storable(self._scrub.scrub(expected_answer)) if expected_answer else None
        params = (
            str(status),
            verdict,
            expected,
            self._db.json_param(storable(list(sections))),
            storable(self._scrub.scrub(note)) if note else None,
            storable(reviewer),
            now,
            now,
            trace_id,
        )
        with self._tx() as tx:
            self._check_status(tx, trace_id, "label")
            tx.execute(_LABEL, params)
        return self.require(trace_id)

    def mark_promoted(self, trace_id: str, source: str, golden_version: int) -> None:
        """Record that the case became a golden entry with this source tag, in this golden-set version."""
        now = self._db.time_param(self._clock())
        with self._tx() as tx:
            self._check_status(tx, trace_id, "promote")
            tx.execute(_PROMOTE, (source, golden_version, now, now, trace_id))

    def _check_status(self, tx: Tx, trace_id: str, action: str) -> None:
        row = tx.one("SELECT status FROM review_cases WHERE trace_id = ?", (trace_id,))
        if row is None:
            raise CaseNotFound(trace_id)
        if row[0] == Status.PROMOTED:
            raise ReviewError(f"cannot {action} {trace_id!r}: already promoted; edit the golden file instead")

    def mute(
        self, trace_id: str, reviewer: str | None = None, note: str | None = None, force: bool = False
    ) -> list[Mute]:
        """Mute the conditional findings of a case (every replica stops flagging them once it reloads
        the list). Refused when a confirmed case raised one of them too, unless ``force``: that finding
        has caught a wrong answer, and muting it would hide the next one."""
        case = self.require(trace_id)
        mutes = list(dict.fromkeys(_conditional_findings(case.result)))
        if not mutes:
            raise ReviewError(f"{trace_id!r} has no unqualified_condition finding to mute")
        if not force:
            for other, finding in self._confirmed_findings(mutes):
                raise ReviewError(
                    f"confirmed case {other!r} raised the same finding ({finding.value} {finding.unit} bound "
                    f"to {finding.condition!r}); muting it would hide the next wrong answer (--force to mute)"
                )
        now = self._db.time_param(self._clock())
        who, why = storable(reviewer), storable(self._scrub.scrub(note)) if note else None
        with self._tx() as tx:
            for m in mutes:
                tx.execute(_INSERT_MUTE, (m.condition, m.value_text, m.unit, trace_id, who, why, now))
        return mutes

    def unmute(self, trace_id: str) -> list[Mute]:
        """Lift the mutes of a case's conditional findings (whichever case they were muted from);
        returns the findings that were muted."""
        mutes = list(dict.fromkeys(_conditional_findings(self.require(trace_id).result)))
        with self._tx() as tx:
            return [m for m in mutes if tx.execute(_DELETE_MUTE, (m.condition, m.value_text, m.unit))]

    def stored_text(self, text: str) -> str:
        """``text`` as this store writes it: PII scrubbed, NUL and lone surrogates replaced."""
        return str(storable(self._scrub.scrub(text)))

    def mutes(self) -> list[MuteRecord]:
        """Every muted finding, oldest first (what the daemon loads)."""
        with self._tx() as tx:
            rows = tx.all(_SELECT_MUTES)
        out = []
        for r in rows:
            try:
                mute = Mute.from_dict({"condition": r[0], "value": r[1], "unit": r[2]})
            except ValueError:  # a row written by hand: skipped, the others still apply
                log.error("review_mute_malformed", condition=str(r[0])[:80], value=str(r[1])[:40])
                continue
            out.append(MuteRecord(mute, r[3], r[4], r[5], self._db.time_value(r[6])))
        return sorted(out, key=lambda m: m.created_at)

    def _confirmed_findings(self, mutes: Sequence[Mute]) -> Iterable[tuple[str, Mute]]:
        wanted = set(mutes)
        with self._tx() as tx:
            rows = tx.all(_CONFIRMED_CONDITIONAL, (CONDITIONAL,))
        for trace_id, result in rows:
            for finding in _conditional_findings(self._db.json_value(result)):
                if finding in wanted:
                    yield str(trace_id), finding

    def pending_count(self) -> int:
        """Cases waiting for a reviewer (the ``ragmon_review_pending`` gauge)."""
        with self._tx() as tx:
            row = tx.one("SELECT COUNT(*) FROM review_cases WHERE status = 'pending'")
        return int(row[0]) if row else 0

    def mark_sample(self, batch: str, trace_ids: Iterable[str], pick: str = "random") -> int:
        """Tag cases as picked for a review batch; return how many were newly tagged (re-marking: no-op)."""
        now = self._db.time_param(self._clock())
        with self._tx() as tx:
            return sum(max(tx.execute(_MARK_SAMPLE, (batch, pick, now, tid)), 0) for tid in trace_ids)

    def _cases(self, tx: Tx, rows: list[Row]) -> list[Case]:
        ids = [row[0] for row in rows]
        flags = self._related(
            tx, "trace_id, reason, detail, severity FROM review_flags", ids, "first_seen, reason"
        )
        samples = self._related(tx, "trace_id, batch FROM review_samples", ids, "batch")
        return [
            self._case(
                row,
                [Flag(r[1], r[2], r[3]) for r in flags.get(row[0], [])],
                [s[1] for s in samples.get(row[0], [])],
            )
            for row in rows
        ]

    def _related(self, tx: Tx, select: str, ids: list[str], order: str) -> dict[str, list[Row]]:
        found: dict[str, list[Row]] = {}
        for start in range(0, len(ids), _BATCH):
            chunk = ids[start : start + _BATCH]
            marks = ", ".join("?" * len(chunk))
            sql = f"SELECT {select} WHERE trace_id IN ({marks}) ORDER BY {order}"  # noqa: S608 - constants and ?s
            for row in tx.all(sql, chunk):
                found.setdefault(row[0], []).append(row)
        return found

    def _case(self, row: Row, flags: list[Flag], samples: list[str]) -> Case:
        db = self._db
        label = None
        if row[6] is not None:
            label = Label(
                verdict=row[6],
                labelled_at=db.time_value(row[7]),
                expected_answer=row[8],
                sections=tuple(db.json_value(row[9]) or ()),
                note=row[10],
                reviewer=row[11],
            )
        promotion = None
        if row[12] is not None:
            promotion = Promotion(
                source=row[12], golden_version=int(row[13]), promoted_at=db.time_value(row[14])
            )
        return Case(
            trace_id=row[0],
            trace=db.json_value(row[1]),
            result=db.json_value(row[2]),
            flags=tuple(flags),
            status=Status(row[3]),
            created_at=db.time_value(row[4]),
            updated_at=db.time_value(row[5]),
            label=label,
            promotion=promotion,
            samples=tuple(samples),
        )


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class MuteRecord:
    """A muted finding with who muted it, from which case, and when."""

    mute: Mute
    trace_id: str | None
    reviewer: str | None
    note: str | None
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {
            **self.mute.as_dict(),
            "trace_id": self.trace_id,
            "reviewer": self.reviewer,
            "note": self.note,
            "created_at": self.created_at.isoformat(),
        }


def _conditional_findings(result: Mapping[str, Any]) -> Iterator[Mute]:
    """The conditional findings of a stored result record (malformed entries skipped)."""
    for entry in result.get("conditional") or ():
        if isinstance(entry, Mapping):
            with contextlib.suppress(ValueError):
                yield Mute.from_dict(entry)


def storable(value: Any) -> Any:
    """Replace NUL and lone surrogates with U+FFFD in every string: PostgreSQL refuses NUL, and no
    database encodes a lone surrogate. The same on every backend, so a case reads alike everywhere."""
    if isinstance(value, str):
        return _UNSTORABLE.sub("\ufffd", value) if _UNSTORABLE.search(value) else value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(item) for item in value]
    return value


def _versions(trace: Mapping[str, Any], result: Mapping[str, Any]) -> tuple[str | None, ...]:
    recorded = result.get("versions") or {}
    return tuple(_str_or_none(recorded.get(key) or trace.get(key)) for key in VERSION_KEYS)


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _flag_details(result: Mapping[str, Any]) -> dict[str, tuple[str | None, str | None]]:
    """reason -> (detail, severity) from the result record's flags, the first of each reason."""
    details: dict[str, tuple[str | None, str | None]] = {}
    for flag in result.get("flags") or ():
        if isinstance(flag, Mapping) and flag.get("reason"):
            detail, severity = flag.get("detail"), flag.get("severity")
            details.setdefault(
                str(flag["reason"]),
                (None if detail is None else str(detail), None if severity is None else str(severity)),
            )
    return details


def parse_store_url(url: str | None) -> tuple[str, str]:
    """Split a store URL into (``sqlite`` | ``postgres``, path or URL); raise ``StoreError`` on a bad one."""
    if url is None:
        return "sqlite", DEFAULT_STORE_PATH
    url = url.strip()
    if not url:
        raise StoreError(
            "the store URL is empty: use a file path, sqlite:///path.db or postgresql://user@host/db"
        )
    scheme, sep, rest = url.partition("://")
    if not sep:
        return "sqlite", url
    if scheme in ("postgresql", "postgres"):
        return "postgres", url
    if scheme == "sqlite":
        if not rest.startswith("/") or len(rest) < 2:
            raise StoreError(
                f"bad SQLite URL {url!r}: use sqlite:///relative/path.db or sqlite:////abs/path.db"
            )
        return "sqlite", rest[1:]
    raise StoreError(
        f"unsupported store URL scheme {scheme!r}: use a file path, sqlite:///path.db or postgresql://user@host/db"
    )


def open_store(
    url: str | None = None, *, scrubber: Scrubber | None = None, clock: Clock = _utcnow, create: bool = True
) -> ReviewStore:
    """Open the store at ``url`` (default ``ragmon-review.db``) and bring its schema up to date.

    ``create=False`` (the review commands) refuses a store that does not exist yet, so a mistyped path
    is an error instead of a new empty database.
    """
    kind, target = parse_store_url(url)
    backend: Backend
    if kind == "postgres":
        from monitor.review.postgres import PostgresBackend

        backend = PostgresBackend(target)
    else:
        from monitor.review.sqlite import SqliteBackend

        if not create and target != ":memory:" and not Path(target).is_file():
            raise StoreError(
                f"no review store at {target}: check --store (the daemon creates it on its first case)"
            )
        backend = SqliteBackend(target)
    try:
        if not create and not has_schema(backend):
            raise StoreError(f"{backend.description} holds no review cases yet: check --store")
        migrate(backend)
    except BaseException:
        backend.close()
        raise
    return ReviewStore(backend, scrubber=scrubber, clock=clock)
