"""The golden set: reference questions with expected sections and answers, loaded from versioned files.

Three entry shapes are accepted: seed 000's (``cau_hoi``, ``muc_ky_vong``, ``tra_loi_ky_vong``,
``nguon``), seed 001's (``question``, ``reference_answer``, ``reference_contexts``, ``answerable``,
``expected_behavior``, ...) and the promoted shape (seed 001's plus ``expected_sections`` and ``source``).
Any shape may carry ``variants``: other wordings of the question, which the matcher matches as well
(``ragmon review promote --as-variant`` appends to it), and ``negatives``: reviewed questions that
the matcher matched to the entry wrongly, kept as "not this" (``--as-negative`` appends to it).
A file is a bare JSON array (its version is a hash of its bytes), an object ``{"version": ...,
"entries": [...]}`` (promotion writes this and bumps the version), or JSONL (one entry per line).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from monitor.exceptions import ConfigError


@dataclass(frozen=True)
class GoldenEntry:
    """One reference question; ``expected_sources_text`` is the text numbers must come from."""

    id: str
    question: str
    expected_answer: str | None = None
    expected_sections: tuple[str, ...] = ()
    expected_sources_text: tuple[str, ...] = ()
    answerable: bool = True
    source: str | None = None
    language: str | None = None
    category: str | None = None
    tags: tuple[str, ...] = ()  # free labels; ``scoring_only: true`` adds "scoring_only" (ragmon gate)
    variants: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()  # questions known not to ask this entry (reviewed false matches)

    @property
    def questions(self) -> tuple[str, ...]:
        """The question and its variants, the wordings the matcher compares a live question with."""
        return (self.question, *self.variants)


@dataclass(frozen=True)
class GoldenSet:
    """The loaded golden entries and the set's version (reports carry it: versions do not compare)."""

    version: str
    entries: tuple[GoldenEntry, ...]

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[GoldenEntry]:
        return iter(self.entries)

    def get(self, entry_id: str) -> GoldenEntry | None:
        """The entry with this id, or None."""
        return next((e for e in self.entries if e.id == entry_id), None)

    @classmethod
    def load(cls, paths: Sequence[Path], sections_path: Path | None = None) -> GoldenSet:
        """Merge golden files (ids must be unique across them); section texts come from ``sections_path``."""
        if not paths:
            raise ConfigError("no golden file given")
        sections = load_sections(sections_path) if sections_path else {}
        versions: list[str] = []
        entries: dict[str, GoldenEntry] = {}
        for path in paths:
            version, raw_entries = _read_file(Path(path))
            versions.append(version)
            for index, raw in enumerate(raw_entries):
                entry = _entry(raw, f"{path}: entry {index}", sections)
                if entry.id in entries:
                    raise ConfigError(f"{path}: entry {index}: duplicate golden id {entry.id!r}")
                entries[entry.id] = entry
        return cls(version="+".join(versions), entries=tuple(entries.values()))


def load_sections(path: Path) -> dict[str, str]:
    """Section id -> text, from a JSON/YAML map or an object with a ``sections`` map (policy.json)."""
    data = _decode(path, path.read_bytes() if path.exists() else None)
    if isinstance(data, dict) and isinstance(data.get("sections"), dict):
        data = data["sections"]
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ConfigError(f"{path}: expected a map of section id to text (or an object with 'sections')")
    return {str(k): v for k, v in data.items()}


def _read_file(path: Path) -> tuple[str, list[Any]]:
    content = path.read_bytes() if path.is_file() else None
    if content is None:
        raise ConfigError(f"{path}: golden file not found")
    digest = "sha256:" + hashlib.sha256(content).hexdigest()[:12]
    if path.suffix == ".jsonl":
        return digest, _jsonl(path, content)
    data = _decode(path, content)
    if isinstance(data, list):
        return digest, data
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, str | int) or not str(version):
            raise ConfigError(f"{path}: field 'version' must be a non-empty string or an integer")
        return str(version), data["entries"]
    raise ConfigError(f"{path}: expected a JSON array of entries or an object with 'version' and 'entries'")


def _decode(path: Path, content: bytes | None) -> Any:
    if content is None:
        raise ConfigError(f"{path}: file not found")
    try:
        text = content.decode("utf-8")
        return yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot parse: {exc}") from exc


def _jsonl(path: Path, content: bytes) -> list[Any]:
    rows: list[Any] = []
    for number, line in enumerate(content.decode("utf-8", errors="strict").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}: line {number}: invalid JSON: {exc.msg}") from exc
    return rows


def _entry(raw: Any, where: str, sections: Mapping[str, str]) -> GoldenEntry:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected an object")
    entry_id = _id(raw, where)
    where = f"{where} ({entry_id})"
    expected_sections = _str_list(raw, ("expected_sections", "muc_ky_vong"), where)
    return GoldenEntry(
        id=entry_id,
        question=_text(raw, ("question", "cau_hoi"), where, required=True) or "",
        expected_answer=_text(raw, ("reference_answer", "tra_loi_ky_vong", "expected_answer"), where),
        expected_sections=expected_sections,
        expected_sources_text=_sources(raw, expected_sections, sections, where),
        answerable=_answerable(raw, where),
        source=_text(raw, ("source", "nguon"), where),
        language=_text(raw, ("language",), where),
        category=_text(raw, ("category",), where),
        tags=_tags(raw, where),
        variants=_str_list(raw, ("variants",), where),
        negatives=_str_list(raw, ("negatives",), where),
    )


def _tags(raw: dict[str, Any], where: str) -> tuple[str, ...]:
    """``tags`` (a list of strings), plus "scoring_only" for ``scoring_only: true`` (kept out of tuning)."""
    tags = _str_list(raw, ("tags",), where)
    flag = raw.get("scoring_only", False)
    if not isinstance(flag, bool):
        raise ConfigError(f"{where}: field 'scoring_only' must be true or false")
    return (*tags, "scoring_only") if flag and "scoring_only" not in tags else tags


def _id(raw: dict[str, Any], where: str) -> str:
    value = raw.get("id")
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise ConfigError(f"{where}: field 'id' must be a non-empty string or an integer")
    return str(value)


def _text(raw: dict[str, Any], keys: tuple[str, ...], where: str, required: bool = False) -> str | None:
    key = next((k for k in keys if raw.get(k) is not None), None)
    if key is None:
        if required:
            raise ConfigError(f"{where}: field '{keys[0]}' is required")
        return None
    value = raw[key]
    if not isinstance(value, str) or (required and not value.strip()):
        raise ConfigError(f"{where}: field '{key}' must be a non-empty string")
    return value


def _str_list(raw: dict[str, Any], keys: tuple[str, ...], where: str) -> tuple[str, ...]:
    key = next((k for k in keys if raw.get(k) is not None), None)
    if key is None:
        return ()
    value = raw[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: field '{key}' must be a list of non-empty strings")
    return tuple(dict.fromkeys(value))


def _sources(
    raw: dict[str, Any], expected: tuple[str, ...], sections: Mapping[str, str], where: str
) -> tuple[str, ...]:
    contexts = _str_list(raw, ("reference_contexts",), where)
    if sections:
        unknown = [s for s in expected if s not in sections]
        if unknown:
            key = "expected_sections" if "expected_sections" in raw else "muc_ky_vong"
            raise ConfigError(f"{where}: field '{key}' names sections not in the sections file: {unknown}")
    return tuple(sections[s] for s in expected if s in sections) + contexts


def _answerable(raw: dict[str, Any], where: str) -> bool:
    answerable = raw.get("answerable", True)
    if not isinstance(answerable, bool):
        raise ConfigError(f"{where}: field 'answerable' must be true or false")
    behavior = raw.get("expected_behavior")
    if behavior is not None and not isinstance(behavior, str):
        raise ConfigError(f"{where}: field 'expected_behavior' must be a string")
    return answerable and (behavior or "").strip().lower() not in ("abstain", "refuse", "decline")
