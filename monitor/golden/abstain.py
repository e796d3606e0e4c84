"""A small check for answers that abstain ("the documents do not say"), in folded text.

An unanswerable golden entry expects the assistant to abstain. Phrase packs in ``rules/abstention/*.yaml``
are used when present (their ``abstention`` lists; a pack without that key gives all its listed strings),
otherwise a minimal built-in list in Vietnamese and English. ``noncommittal`` phrases are not abstentions:
"as an AI assistant, ..." can still precede a made-up answer.

A fixed phrase misses the words people put in between ("chính sách *của BanHang* không nói về ...",
"I *can't* find *anything about that in our* documents"), so a pack may also give ``abstention_clauses``:
a sentence abstains when it holds one of its ``denials`` (a negated verb of saying or finding) and one
of its ``sources`` (the documents, the policy, the information). Both lists are data, per language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from monitor.exceptions import ConfigError
from monitor.golden.text import fold

MINIMAL_PHRASES = (
    "khong co thong tin",
    "chua co thong tin",
    "tai lieu khong noi",
    "tai lieu khong de cap",
    "khong duoc de cap",
    "khong tim thay thong tin",
    "khong the tra loi",
    "toi khong biet",
    "ngoai pham vi",
    "i don't know",
    "i do not know",
    "no information",
    "not mentioned",
    "not in the documents",
    "not in the context",
    "cannot answer",
    "can't answer",
    "unable to answer",
)


_SENTENCE_END = re.compile(r"[.!?;\n\u3002\uff01\uff1f\uff1b\u061f]+")


@dataclass(frozen=True)
class AbstentionClauses:
    """A sentence that denies (``denials``) what a source (``sources``) says: "X không nói về Y".

    ``more`` holds further groups, each with its own denials and sources: "not having" abstains only
    of information ("اطلاعاتی ... ندارم"), not of conditions ("من این شرایط را ندارم").
    """

    denials: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    more: tuple[AbstentionClauses, ...] = ()

    @classmethod
    def of(cls, denials: Iterable[str], sources: Iterable[str]) -> AbstentionClauses:
        def folded(words: Iterable[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(" ".join(fold(w).split()) for w in words if w.strip()))

        return cls(folded(denials), folded(sources))

    def __bool__(self) -> bool:
        return bool(self.denials and self.sources) or any(self.more)

    def abstains(self, text: str) -> bool:
        """Whether one sentence of ``text`` holds both a denial and a source of one group."""
        if not self:
            return False
        groups = [g for g in (self, *self.more) if g.denials and g.sources]
        for sentence in _SENTENCE_END.split(text):
            folded = " ".join(fold(sentence).split())
            for group in groups:
                if any(d in folded for d in group.denials) and any(s in folded for s in group.sources):
                    return True
        return False

    @classmethod
    def load(cls, packs: Iterable[Any]) -> AbstentionClauses:
        """The packs' ``abstention_clauses``: a mapping with ``denials`` and ``sources``, or a list of
        them. Mappings of the packs are merged into one group (as before); each listed one after the
        first of its pack is a group of its own."""
        denials: list[str] = []
        sources: list[str] = []
        more: list[AbstentionClauses] = []
        for data in packs:
            part = data.get("abstention_clauses") if isinstance(data, dict) else None
            if part is None:
                continue
            groups = part if isinstance(part, list) else [part]
            for index, group in enumerate(groups):
                if not isinstance(group, dict) or not all(
                    isinstance(group.get(k, []), list) and all(isinstance(w, str) for w in group.get(k, []))
                    for k in ("denials", "sources")
                ):
                    raise ConfigError(
                        "abstention_clauses: expected {denials: [text, ...], sources: [text, ...]} or a list"
                    )
                if index == 0:
                    denials += group.get("denials", [])
                    sources += group.get("sources", [])
                else:
                    more.append(cls.of(group.get("denials", []), group.get("sources", [])))
        merged = cls.of(denials, sources)
        return cls(merged.denials, merged.sources, tuple(more))


class AbstentionDetector:
    """Tells whether an answer abstains, by folded phrase containment (accents and case ignored) or by
    a denial and a source in one sentence."""

    def __init__(
        self, phrases: Iterable[str] = MINIMAL_PHRASES, clauses: AbstentionClauses | None = None
    ) -> None:
        self.phrases = tuple(dict.fromkeys(" ".join(fold(p).split()) for p in phrases if p.strip()))
        self.clauses = clauses or AbstentionClauses()

    @classmethod
    def load(cls, directory: Path | None = None) -> AbstentionDetector:
        """Phrases from the ``*.yaml`` packs in ``directory`` (default: shipped), else the minimal list."""
        root: Traversable = directory or resources.files("monitor") / "rules" / "abstention"
        packs = (
            sorted((p for p in root.iterdir() if p.name.endswith((".yaml", ".yml"))), key=lambda p: p.name)
            if root.is_dir()
            else []
        )
        data = [_read(pack) for pack in packs]
        phrases = [phrase for pack in data for phrase in _strings(_abstention_part(pack))]
        clauses = AbstentionClauses.load(data)
        return cls(phrases, clauses) if phrases else cls(clauses=clauses)

    def abstains(self, answer: str) -> bool:
        """Whether the answer contains an abstention phrase or an abstaining sentence."""
        text = " ".join(fold(answer).split())
        return any(phrase in text for phrase in self.phrases) or self.clauses.abstains(answer)


def _read(pack: Traversable) -> Any:
    try:
        return yaml.safe_load(pack.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{pack}: cannot read the abstention pack: {exc}") from exc


def _abstention_part(data: Any) -> Any:
    return data["abstention"] if isinstance(data, dict) and "abstention" in data else data


def _strings(data: Any) -> Iterator[str]:
    """Every string inside lists of the pack, whatever its nesting (packs differ in layout)."""
    if isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for item in data:
            if isinstance(item, str):
                yield item
            else:
                yield from _strings(item)
