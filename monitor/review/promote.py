"""Promotion: a confirmed production failure becomes a golden entry (seed 000 §6, "every failure a case").

The golden file is written as ``{"version": N, "entries": [...]}``; each promotion bumps N. A bare
JSON array (seed 000's format) is converted on first promotion, its entries kept verbatim, as
version 1 -> 2. Promotion is all or nothing: if any case is refused (no human-confirmed expected
answer, already promoted, or its question is already in the file) nothing is written. The file is
replaced atomically, so a crash never leaves half a golden set.

``promote_variant`` adds reviewed cases' questions to an existing entry's ``variants`` instead (a
paraphrase the matcher missed): refused when the entry is unknown (a ``ConfigError``), when the question
is already that entry's question or variant, or another entry's, or when the case is unreviewed or
already promoted; it bumps the version too. ``promote_negative`` adds them to the entry's
``negatives`` (a question the matcher matched to the entry wrongly: "not this"), refused when the
question is already one of the entry's wordings or negatives; the matcher then vetoes the entry for
questions nearer that negative than to its wordings.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from monitor.exceptions import ConfigError
from monitor.pii import Scrubber
from monitor.review.models import Case, ReviewError, Status

_QUESTION_KEYS = ("question", "cau_hoi")
_PUNCTUATION = re.compile(r"[^\w\s]")


class PromotionRefused(ReviewError):
    """One or more cases cannot become golden entries; ``reasons`` maps trace id to why."""

    def __init__(self, reasons: Mapping[str, str]) -> None:
        lines = "; ".join(f"{tid}: {why}" for tid, why in reasons.items())
        super().__init__(f"promotion refused, nothing written: {lines}")
        self.reasons = dict(reasons)


@dataclass(frozen=True, slots=True)
class GoldenFile:
    """A golden set as read from disk: its version and its entries, verbatim."""

    version: int
    entries: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class PromotedVariants:
    """What a variant promotion did: the new version, the entry and the questions it gained."""

    version: int
    entry_id: str
    variants: list[str]


@dataclass(frozen=True, slots=True)
class Promoted:
    """What a promotion did: the new golden-set version and the entries it appended."""

    version: int
    entries: list[dict[str, Any]]


def normalize_question(text: str) -> str:
    """Case, accents, punctuation and spacing folded, so "Mua áo..." and "mua ao ...?" compare equal."""
    text = unicodedata.normalize("NFKD", text.replace("đ", "d").replace("Đ", "D"))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_PUNCTUATION.sub(" ", text.casefold()).split())


def load_golden(path: Path) -> GoldenFile:
    """Read a golden file in either form; a missing file is an empty set at version 0."""
    if not path.exists():
        return GoldenFile(version=0, entries=[])
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"golden file {path}: {exc}") from exc
    if isinstance(data, list):
        return GoldenFile(version=1, entries=_entries(path, data))
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        version = data.get("version", 1)
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise ConfigError(f"golden file {path}: 'version' must be a non-negative integer")
        return GoldenFile(version=version, entries=_entries(path, data["entries"]))
    raise ConfigError(f"golden file {path}: expected a JSON array or an object with 'version' and 'entries'")


def _entries(path: Path, items: list[Any]) -> list[dict[str, Any]]:
    if not all(isinstance(item, dict) for item in items):
        raise ConfigError(f"golden file {path}: every entry must be a JSON object")
    return items


def write_golden(path: Path, golden: GoldenFile) -> None:
    """Write ``{"version", "entries"}`` to a temp file beside ``path``, fsync it, rename it over ``path``."""
    text = json.dumps({"version": golden.version, "entries": golden.entries}, ensure_ascii=False, indent=2)
    try:
        _atomic_write(path, text + "\n")
    except OSError as exc:
        raise ReviewError(f"cannot write golden file {path}: {exc}") from exc


def _atomic_write(path: Path, text: str) -> None:
    # mkstemp makes the file 0600; a golden file lives in the repo and must stay readable by others.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def golden_entry(case: Case, source: str) -> dict[str, Any]:
    """The seed-001-shaped entry for a labelled case, plus ``expected_sections``, ``source``, ``trace_id``."""
    if case.label is None:
        raise ReviewError(f"case {case.trace_id!r} has no label")
    sections = list(case.label.sections)
    chunks = case.trace.get("retrieved_chunks") or ()
    relevant = [c for c in chunks if set(c.get("sections") or ()) & set(sections)]
    return {
        "id": f"review-{case.trace_id}",
        "question": case.question,
        "reference_answer": case.label.expected_answer,
        "relevant_document_ids": _unique(c.get("document_id") for c in relevant),
        "relevant_chunk_ids": _unique(c.get("chunk_id") for c in relevant),
        "reference_contexts": _unique(c.get("text") for c in relevant),
        "category": case.trace.get("category"),
        "language": case.trace.get("language"),
        "answerable": True,
        "expected_behavior": "answer",
        "expected_sections": sections,
        "source": source,
        "trace_id": case.trace_id,
    }


def _unique(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(v for v in values if v))


def refusal(case: Case, questions: set[str], promoted_ids: set[str]) -> str | None:
    """Why ``case`` cannot be promoted into a file with these questions and trace ids, or ``None``."""
    if case.status == Status.PROMOTED or case.trace_id in promoted_ids:
        return "already promoted"
    if case.label is None or not (case.label.expected_answer or "").strip():
        return "no human-confirmed expected answer (label it with --expected-answer first)"
    if normalize_question(case.question) in questions:
        return "a golden entry with the same question already exists"
    return None


class _PromoteStore(Protocol):
    def require(self, trace_id: str) -> Case: ...

    def mark_promoted(self, trace_id: str, source: str, golden_version: int) -> None: ...


def promote(
    store: _PromoteStore, trace_ids: Sequence[str], golden_path: Path, source: str | None = None
) -> Promoted:
    """Append the cases to the golden file as one new version, then mark them promoted in the store."""
    golden = load_golden(golden_path)
    questions = {normalize_question(q) for e in golden.entries for q in _questions(e)}
    promoted_ids = _promoted_ids(golden.entries)
    added, refused = [], {}
    for trace_id in dict.fromkeys(trace_ids):
        case = store.require(trace_id)
        why = refusal(case, questions, promoted_ids)
        if why is not None:
            refused[trace_id] = why
            continue
        added.append(golden_entry(case, source or trace_id))
        questions.add(normalize_question(case.question))
    if refused:
        raise PromotionRefused(refused)
    new = GoldenFile(version=golden.version + 1, entries=[*golden.entries, *added])
    write_golden(golden_path, new)
    for entry in added:
        store.mark_promoted(entry["trace_id"], entry["source"], new.version)
    return Promoted(version=new.version, entries=added)


def promote_variant(
    store: _PromoteStore,
    trace_ids: Sequence[str],
    entry_id: str,
    golden_path: Path,
    source: str | None = None,
    scrubber: Scrubber | None = None,
) -> PromotedVariants:
    """Add the cases' (scrubbed) questions to entry ``entry_id``'s variants as one new golden version."""

    def known(entries: Sequence[dict[str, Any]], entry: Mapping[str, Any]) -> dict[str, str]:
        return {
            normalize_question(q): (
                f"already a question or variant of {entry_id}"
                if str(e.get("id")) == entry_id
                else f"already the question or a variant of another entry, {e.get('id')}"
            )
            for e in entries
            for q in _questions(e)
        }

    refused_as = f"already a question or variant of {entry_id}"
    return _add_to_entry(
        store, trace_ids, entry_id, golden_path, "variants", known, refused_as, source, scrubber
    )


def promote_negative(
    store: _PromoteStore,
    trace_ids: Sequence[str],
    entry_id: str,
    golden_path: Path,
    source: str | None = None,
    scrubber: Scrubber | None = None,
) -> PromotedVariants:
    """Add the cases' (scrubbed) questions to entry ``entry_id``'s negatives as one new golden version."""

    def known(entries: Sequence[dict[str, Any]], entry: Mapping[str, Any]) -> dict[str, str]:
        out = {
            normalize_question(q): f"already a question or variant of {entry_id}" for q in _questions(entry)
        }
        out |= {
            normalize_question(q): f"already a negative of {entry_id}" for q in _strings(entry, "negatives")
        }
        return out

    refused_as = f"already a negative of {entry_id}"
    return _add_to_entry(
        store, trace_ids, entry_id, golden_path, "negatives", known, refused_as, source, scrubber
    )


_Known = Callable[[Sequence[dict[str, Any]], Mapping[str, Any]], dict[str, str]]


def _add_to_entry(
    store: _PromoteStore,
    trace_ids: Sequence[str],
    entry_id: str,
    golden_path: Path,
    key: str,
    known_of: _Known,
    refused_as: str,
    source: str | None,
    scrubber: Scrubber | None,
) -> PromotedVariants:
    """Add the cases' scrubbed questions to entry ``entry_id``'s list ``key`` (``variants`` or
    ``negatives``, their trace ids under ``variant_trace_ids``/``negative_trace_ids``) as one new
    golden version, then mark the cases promoted. ``known_of`` maps the normalized questions the file
    already holds to why a case asking one is refused; an added question is then ``refused_as``."""
    golden = load_golden(golden_path)
    entry = next((e for e in golden.entries if str(e.get("id")) == entry_id), None)
    if entry is None:
        raise ConfigError(f"golden file {golden_path}: no entry with id {entry_id!r}")
    scrub = (scrubber or Scrubber.load()).scrub
    known = known_of(golden.entries, entry)
    promoted_ids = _promoted_ids(golden.entries)
    added: list[str] = []
    refused: dict[str, str] = {}
    for trace_id in dict.fromkeys(trace_ids):
        case = store.require(trace_id)
        question = scrub(case.question).strip()
        why = "already promoted" if trace_id in promoted_ids else _addition_refusal(case, question, known)
        if why is not None:
            refused[trace_id] = why
            continue
        added.append(question)
        known[normalize_question(question)] = refused_as
    if refused:
        raise PromotionRefused(refused)
    singular = key.removesuffix("s")
    entry[key] = [*_strings(entry, key), *added]
    entry[f"{singular}_trace_ids"] = [*entry.get(f"{singular}_trace_ids", ()), *dict.fromkeys(trace_ids)]
    new = GoldenFile(version=golden.version + 1, entries=golden.entries)
    write_golden(golden_path, new)
    for trace_id in dict.fromkeys(trace_ids):
        store.mark_promoted(trace_id, source or trace_id, new.version)
    return PromotedVariants(version=new.version, entry_id=entry_id, variants=added)


def _addition_refusal(case: Case, question: str, known: Mapping[str, str]) -> str | None:
    """Why a case's question cannot join an entry's variants or negatives, or ``None``."""
    if case.status == Status.PROMOTED:
        return "already promoted"
    if case.label is None:
        return "not reviewed (label it first)"
    if not normalize_question(question):
        return "the case has no question"
    return known.get(normalize_question(question))


def _question(entry: Mapping[str, Any]) -> str:
    return next((str(entry[k]) for k in _QUESTION_KEYS if isinstance(entry.get(k), str)), "")


def _variants(entry: Mapping[str, Any]) -> list[str]:
    return _strings(entry, "variants")


def _strings(entry: Mapping[str, Any], key: str) -> list[str]:
    """The entry's list of strings under ``key`` (variants, negatives), or none."""
    value = entry.get(key) or []
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _promoted_ids(entries: Iterable[Mapping[str, Any]]) -> set[str]:
    """Trace ids already in the file, as an entry's own trace or as a variant's or a negative's."""
    ids = {str(e["trace_id"]) for e in entries if e.get("trace_id")}
    keys = ("variant_trace_ids", "negative_trace_ids")
    return ids | {str(t) for e in entries for key in keys for t in e.get(key) or ()}


def _questions(entry: Mapping[str, Any]) -> list[str]:
    """The entry's question and its variants."""
    return [_question(entry), *_variants(entry)]
