"""What the pages show, computed from the store and the rules; no HTML here (templates escape it all).

``QueueQuery`` is the queue's URL: every filter is a query parameter, so an alert's runbook link
(``/cases?reason=numeric_out_of_source&index_version=...``) opens the queue already filtered.
``CaseView`` lays one case out for a reviewer: the answer cut into segments, each number marked as
backed by the retrieved chunks that state it, backed by no chunk, or outside the golden entry's sections.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode

from monitor.numeric import NumericRules, Quantity
from monitor.numeric.text import nfc
from monitor.review.models import Case, CaseFilter, Status, moment_since

PAGE_SIZE = 25
MAX_PAGE_SIZE = 200
SEVERITIES = ("critical", "warning", "info")
_Amount = tuple[Decimal, str]


class BadQuery(ValueError):
    """A queue URL parameter that cannot be read (shown to the user, the queue left unfiltered by it)."""


@dataclass(frozen=True, slots=True)
class QueueQuery:
    """The queue's filters as they appear in its URL; empty strings mean "any"."""

    reason: str = ""
    severity: str = ""
    status: str = ""
    model_id: str = ""
    prompt_version: str = ""
    index_version: str = ""
    version: str = ""
    since: str = ""
    until: str = ""
    page: int = 1
    per_page: int = PAGE_SIZE

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> QueueQuery:
        """Read the query string; unknown parameters are ignored, bad numbers fall back to defaults."""
        text = {f.name: params.get(f.name, "").strip()[:200] for f in fields(cls) if f.type == "str"}
        return cls(
            **text,
            page=max(_int(params.get("page"), 1), 1),
            per_page=min(max(_int(params.get("per_page"), PAGE_SIZE), 1), MAX_PAGE_SIZE),
        )

    def to_filter(self, now: datetime | None = None) -> CaseFilter:
        """The store filter for this page; raise ``BadQuery`` naming the parameter that is wrong."""
        if self.status and self.status not in {s.value for s in Status}:
            raise BadQuery(f"status: {self.status!r} is not one of {', '.join(s.value for s in Status)}")
        if self.severity and self.severity not in SEVERITIES:
            raise BadQuery(f"severity: {self.severity!r} is not one of {', '.join(SEVERITIES)}")
        return CaseFilter(
            status=Status(self.status) if self.status else None,
            reason=self.reason or None,
            severity=self.severity or None,
            version=self.version or None,
            model_id=self.model_id or None,
            prompt_version=self.prompt_version or None,
            index_version=self.index_version or None,
            since=_moment("since", self.since, now),
            until=_moment("until", self.until, now),
            limit=self.per_page,
            offset=(self.page - 1) * self.per_page,
        )

    def link(self, **changes: Any) -> str:
        """This queue's URL with some parameters changed (a filter change goes back to page 1)."""
        changed = replace(self, **{"page": 1, **changes})
        pairs = [(f.name, getattr(changed, f.name)) for f in fields(changed)]
        defaults = {"page": 1, "per_page": PAGE_SIZE}
        query = urlencode([(k, v) for k, v in pairs if v not in ("", None) and defaults.get(k) != v])
        return "/cases" + (f"?{query}" if query else "")

    @property
    def active(self) -> dict[str, str]:
        """The filters in use, by parameter name."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if f.type == "str" and getattr(self, f.name)
        }


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _moment(name: str, value: str, now: datetime | None) -> datetime | None:
    if not value:
        return None
    try:
        return moment_since(value, now)
    except ValueError as exc:
        raise BadQuery(f"{name}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the queue with what the page around it needs."""

    cases: list[Case]
    total: int
    reason_counts: dict[str, int]
    query: QueueQuery

    @property
    def pages(self) -> int:
        return max((self.total + self.query.per_page - 1) // self.query.per_page, 1)

    @property
    def first(self) -> int:
        return (self.query.page - 1) * self.query.per_page + 1 if self.cases else 0

    @property
    def last(self) -> int:
        return self.first + len(self.cases) - 1 if self.cases else 0


# --- one case -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of answer (or chunk) text; a number carries its support: ``kind`` is ``supported``,
    ``unsupported`` (no retrieved chunk states it) or ``out_of_source`` (stated by a chunk, but not
    by the sections the matched golden entry expects); plain text has ``kind`` ``None``."""

    text: str
    kind: str | None = None
    chunks: tuple[int, ...] = ()  # ranks of the chunks stating this number

    @property
    def title(self) -> str:
        if self.kind is None:
            return ""
        where = ", ".join(f"#{rank}" for rank in self.chunks)
        if self.kind == "unsupported":
            return "no retrieved chunk states this number"
        if self.kind == "out_of_source":
            return f"stated by chunk {where}, but not by the sections the golden entry expects"
        return f"stated by chunk {where}" if where else ""


@dataclass(frozen=True, slots=True)
class ChunkView:
    """One retrieved chunk as a reviewer reads it."""

    rank: int
    chunk_id: str
    document_id: str
    sections: tuple[str, ...]
    retrieval_score: float | None
    rerank_score: float | None
    cited: bool
    useful: bool | None  # the judge's verdict, when judged
    segments: list[Segment]


@dataclass(frozen=True, slots=True)
class CaseView:
    """Everything the case page shows."""

    case: Case
    answer: list[Segment]
    numbers: list[Segment]  # the answer's numbers, once each, with their support
    chunks: list[ChunkView]
    claims: list[dict[str, Any]]
    golden: dict[str, Any] | None
    golden_numeric: dict[str, list[str]] = field(default_factory=dict)
    findings: dict[str, list[str]] = field(default_factory=dict)
    # the unqualified_condition findings: (value as written, the condition phrase, severity)
    conditional: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def unsupported(self) -> list[Segment]:
        return [s for s in self.numbers if s.kind == "unsupported"]


def case_view(case: Case, rules: NumericRules) -> CaseView:
    """Lay ``case`` out: chunks by rank, the answer's numbers against them, claims, golden, findings."""
    raw_chunks = [
        c if isinstance(c, dict) else {"text": str(c)} for c in case.trace.get("retrieved_chunks") or ()
    ]
    per_chunk = [_amounts(rules, str(c.get("text", ""))) for c in raw_chunks]
    golden = case.result.get("golden") if isinstance(case.result.get("golden"), dict) else None
    golden_numeric = _texts_by_kind((golden or {}).get("numeric"))
    off_source = _amounts(rules, " ; ".join(golden_numeric.get("out_of_source", [])))
    answer = _segments(rules, case.answer, lambda q: _support(q, per_chunk, off_source))
    said = {(q.value, q.unit) for _, _, q in rules.locate(case.answer)}
    numbers = list({(s.text, s.kind): s for s in answer if s.kind is not None}.values())
    return CaseView(
        case=case,
        answer=answer,
        numbers=numbers,
        chunks=_chunks(case, raw_chunks, rules, said),
        claims=[c if isinstance(c, dict) else {"text": str(c)} for c in case.judge.get("claims") or ()],
        golden=golden,
        golden_numeric=golden_numeric,
        findings=_texts_by_kind(case.result.get("numeric")),
        conditional=[
            (str(f.get("text", "")), str(f.get("condition", "")), str(f.get("severity", "")))
            for f in case.result.get("conditional") or ()
            if isinstance(f, dict)
        ],
    )


def _amounts(rules: NumericRules, text: str) -> frozenset[_Amount]:
    return frozenset((q.value, q.unit) for q in rules.extract(text)) if text else frozenset()


def _support(
    quantity: Quantity, per_chunk: Sequence[frozenset[_Amount]], off_source: frozenset[_Amount]
) -> Segment:
    amount = (quantity.value, quantity.unit)
    ranks = tuple(rank for rank, amounts in enumerate(per_chunk, start=1) if amount in amounts)
    if not ranks:
        return Segment(quantity.text, "unsupported")
    return Segment(quantity.text, "out_of_source" if amount in off_source else "supported", ranks)


Mark = Callable[[Quantity], Segment | None]


def _segments(rules: NumericRules, text: str, mark: Mark) -> list[Segment]:
    """``text`` (in NFC, as the rules read it) cut around its numbers; ``mark(quantity)`` -> Segment."""
    surface = nfc(text)
    out: list[Segment] = []
    at = 0
    for start, end, quantity in rules.locate(text):
        if start > at:
            out.append(Segment(surface[at:start]))
        segment = mark(quantity)
        if segment is None:
            out.append(Segment(surface[start:end]))
        else:
            out.append(replace(segment, text=surface[start:end]))
        at = end
    if at < len(surface):
        out.append(Segment(surface[at:]))
    return out


def _chunks(
    case: Case, raw: Sequence[dict[str, Any]], rules: NumericRules, said: set[_Amount]
) -> list[ChunkView]:
    cited = {str(c) for c in case.trace.get("citations") or ()}
    useful = case.judge.get("chunk_useful") or []
    views = []
    for rank, chunk in enumerate(raw, start=1):
        sections = chunk.get("sections") or (chunk.get("metadata") or {}).get("sections") or ()
        chunk_id = str(chunk.get("chunk_id") or "")
        views.append(
            ChunkView(
                rank=rank,
                chunk_id=chunk_id,
                document_id=str(chunk.get("document_id") or ""),
                sections=tuple(str(s) for s in sections),
                retrieval_score=_float(chunk.get("retrieval_score")),
                rerank_score=_float(chunk.get("rerank_score")),
                cited=bool(chunk_id) and chunk_id in cited,
                useful=bool(useful[rank - 1]) if rank <= len(useful) else None,
                segments=_segments(rules, str(chunk.get("text", "")), _said_in_chunk(rank, said)),
            )
        )
    return views


def _said_in_chunk(rank: int, said: set[_Amount]) -> Mark:
    """Mark the numbers of chunk ``rank`` that the answer states too."""

    def mark(quantity: Quantity) -> Segment | None:
        return (
            Segment(quantity.text, "supported", (rank,)) if (quantity.value, quantity.unit) in said else None
        )

    return mark


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _texts_by_kind(numeric: Any) -> dict[str, list[str]]:
    """A ``numeric`` object of a result record as kind -> the texts of its findings."""
    if not isinstance(numeric, dict):
        return {}
    out: dict[str, list[str]] = {}
    for kind, items in numeric.items():
        if isinstance(items, list) and items:
            out[str(kind)] = [_finding_text(item) for item in items]
    return out


def _finding_text(item: Any) -> str:
    if isinstance(item, dict):
        if "text" in item:
            return str(item["text"])
        if "values" in item:
            return f"{item.get('unit')}: " + ", ".join(str(v) for v in item["values"])
        return " ".join(f"{k}={v}" for k, v in item.items())
    return str(item)


def parse_sections(text: str) -> list[str]:
    """Section ids typed by a reviewer, separated by commas or spaces: "DT-1, DT-3" -> [DT-1, DT-3]."""
    return list(dict.fromkeys(part for part in text.replace(",", " ").split() if part))


def parse_cost(value: str | None, default: float) -> float:
    """A non-negative error cost from the agreement page's query string."""
    try:
        cost = Decimal(value) if value else Decimal(str(default))
    except InvalidOperation:
        return default
    return float(cost) if cost.is_finite() and cost >= 0 else default
