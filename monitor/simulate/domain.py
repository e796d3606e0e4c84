"""Simulated domains: a business's policy sections, two indexes, a golden set and the intents customers ask.

A domain file (``monitor/data/simulate/<name>.json``, or any path) holds the training wordings; a
variant file (``tests/data/simulate/<name>.<split>.json``) replaces every wording with its own and may
add intents, so dev and test traffic never share a sentence with the training split. The format is
documented in ``tests/data/simulate/FORMAT.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from monitor.exceptions import ConfigError

GOOD, BAD = "good", "bad"
PACKAGED = ("banhang", "telecom", "insurer")
# Kinds of wrong answer a bad deploy produces (seed 000); other kinds are the model's everyday slips.
DEPLOY_KINDS = frozenset({"conditional_as_general", "dropped_qualifier"})


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer wording; ``kind`` names what is wrong with it (None: a correct answer)."""

    text: str
    kind: str | None = None


@dataclass(frozen=True)
class Intent:
    """One kind of customer question with its rankings per index and its wordings per language."""

    id: str
    category: str
    weight: float
    sections: tuple[str, ...]
    rankings: Mapping[str, Sequence[str]]
    cites: Mapping[str, Sequence[str]]
    questions: Mapping[str, tuple[str, ...]]
    good: Mapping[str, tuple[Answer, ...]]
    bad: Mapping[str, tuple[Answer, ...]] = field(default_factory=dict)
    golden: str | None = None
    abstain: bool = False
    condition: str | None = None

    @property
    def answers(self) -> Mapping[str, Mapping[str, tuple[Answer, ...]]]:
        """``{"good": {lang: ...}, "bad": {lang: ...}}``."""
        return {GOOD: self.good, BAD: self.bad}

    def wrong(self, language: str, deploy: bool) -> tuple[Answer, ...]:
        """Wrong answers in ``language``: a bad deploy's kinds when ``deploy`` and the intent has them."""
        answers = self.bad.get(language, ())
        if deploy:
            deployed = tuple(a for a in answers if a.kind in DEPLOY_KINDS)
            return deployed or answers
        return answers


@dataclass(frozen=True)
class Domain:
    """A simulated business: section texts, the two indexes, the golden set and the intents."""

    name: str
    language: str
    business: str
    sections: Mapping[str, str]
    documents: Mapping[str, str]
    indexes: Mapping[str, Mapping[str, Any]]
    golden: Sequence[Mapping[str, Any]]
    intents: Sequence[Intent]

    @property
    def languages(self) -> frozenset[str]:
        return frozenset(lang for intent in self.intents for lang in intent.questions)

    def chunk(self, index: str, chunk_id: str) -> dict[str, Any]:
        """A retrieved chunk (without score) as the trace contract spells it."""
        sections = list(self.indexes[index]["chunks"][chunk_id])
        return {
            "chunk_id": chunk_id,
            "document_id": self.documents.get(sections[0].split("-")[0], sections[0].split("-")[0]),
            "sections": sections,
            "text": " ".join(f"{s}. {self.sections[s]}" for s in sections),
        }

    def with_variants(self, variants: Mapping[str, Any], origin: str = "variants") -> Domain:
        """This domain with only the variant file's wordings (and its new intents)."""
        by_id = {intent.id: intent for intent in self.intents}
        worded: list[Intent] = []
        for intent_id, raw in dict(variants.get("intents") or {}).items():
            if intent_id not in by_id:
                raise ConfigError(f"{origin}: intents.{intent_id}: no such intent in domain {self.name}")
            questions, good, bad = _wordings(raw, f"{origin}: intents.{intent_id}")
            worded.append(replace(by_id[intent_id], questions=questions, good=good, bad=bad))
        for index, raw in enumerate(variants.get("new_intents") or []):
            worded.append(_intent(raw, f"{origin}: new_intents[{index}]"))
        if not worded:
            raise ConfigError(f"{origin}: no intents with wordings")
        return replace(self, intents=tuple(worded))


def load_domain(name: str | Path, variants: str | Path | None = None) -> Domain:
    """A packaged domain by name (banhang, telecom, insurer) or a domain file, optionally re-worded."""
    domain = _packaged(str(name)) if str(name) in PACKAGED else _from_file(Path(name))
    if variants is None:
        return domain
    return domain.with_variants(_read(Path(variants)), str(variants))


@cache
def _packaged(name: str) -> Domain:
    text = (resources.files("monitor") / "data" / "simulate" / f"{name}.json").read_text(encoding="utf-8")
    return parse_domain(json.loads(text), f"monitor/data/simulate/{name}.json")


def _from_file(path: Path) -> Domain:
    return parse_domain(_read(path), str(path))


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc.msg} at line {exc.lineno}") from exc


def parse_domain(data: Mapping[str, Any], origin: str) -> Domain:
    """Build a domain from a decoded domain file; ConfigError names the file and the field."""
    try:
        intents = tuple(_intent(raw, f"{origin}: intents[{i}]") for i, raw in enumerate(data["intents"]))
        return Domain(
            name=str(data.get("domain") or Path(origin).stem),
            language=str(data.get("language") or "vi"),
            business=str(data.get("business") or data.get("domain") or ""),
            sections=data["sections"],
            documents=data.get("documents") or {},
            indexes=data["indexes"],
            golden=tuple(data.get("golden") or ()),
            intents=intents,
        )
    except KeyError as exc:
        raise ConfigError(f"{origin}: missing field {exc.args[0]!r}") from exc


def _intent(raw: Mapping[str, Any], where: str) -> Intent:
    try:
        questions, good, bad = _wordings(raw, where)
        return Intent(
            id=str(raw["id"]),
            category=str(raw.get("category") or raw["id"]),
            weight=float(raw.get("weight", 1)),
            sections=tuple(raw.get("sections") or ()),
            rankings=raw["rankings"],
            cites=raw.get("cites") or {GOOD: [], BAD: []},
            questions=questions,
            good=good,
            bad=bad,
            golden=raw.get("golden"),
            abstain=bool(raw.get("abstain", False)),
            condition=raw.get("condition"),
        )
    except KeyError as exc:
        raise ConfigError(f"{where}: missing field {exc.args[0]!r}") from exc


def _wordings(
    raw: Mapping[str, Any], where: str
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[Answer, ...]], dict[str, tuple[Answer, ...]]]:
    questions = {lang: _strings(v) for lang, v in (raw.get("questions") or {}).items()}
    answers = raw.get("answers") or {}
    good = {lang: tuple(Answer(t) for t in _strings(v)) for lang, v in (answers.get(GOOD) or {}).items()}
    bad = {lang: _wrong(v, f"{where}.answers.bad.{lang}") for lang, v in (answers.get(BAD) or {}).items()}
    answerable = {lang: q for lang, q in questions.items() if q and good.get(lang)}
    if not answerable:
        raise ConfigError(f"{where}: needs questions and good answers in at least one language")
    return answerable, good, bad


def _strings(value: Any) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(str(v) for v in value)


def _wrong(value: Any, where: str) -> tuple[Answer, ...]:
    items = [value] if isinstance(value, str | dict) else list(value)
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(Answer(item, "wrong"))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append(Answer(item["text"], str(item.get("kind") or "wrong")))
        else:
            raise ConfigError(f"{where}: a wrong answer is a string or {{'text', 'kind'}}")
    return tuple(out)
