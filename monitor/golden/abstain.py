"""A small phrase check for answers that abstain ("the documents do not say"), in folded text.

An unanswerable golden entry expects the assistant to abstain. Phrase packs in ``rules/abstention/*.yaml``
are used when present (their ``abstention`` lists; a pack without that key gives all its listed strings),
otherwise a minimal built-in list in Vietnamese and English. ``noncommittal`` phrases are not abstentions:
"as an AI assistant, ..." can still precede a made-up answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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


class AbstentionDetector:
    """Tells whether an answer abstains, by folded phrase containment (accents and case ignored)."""

    def __init__(self, phrases: Iterable[str] = MINIMAL_PHRASES) -> None:
        self.phrases = tuple(dict.fromkeys(" ".join(fold(p).split()) for p in phrases if p.strip()))

    @classmethod
    def load(cls, directory: Path | None = None) -> AbstentionDetector:
        """Phrases from the ``*.yaml`` packs in ``directory`` (default: shipped), else the minimal list."""
        root: Traversable = directory or resources.files("monitor") / "rules" / "abstention"
        packs = (
            sorted((p for p in root.iterdir() if p.name.endswith((".yaml", ".yml"))), key=lambda p: p.name)
            if root.is_dir()
            else []
        )
        phrases = [phrase for pack in packs for phrase in _strings(_abstention_part(_read(pack)))]
        return cls(phrases) if phrases else cls()

    def abstains(self, answer: str) -> bool:
        """Whether the answer contains an abstention phrase."""
        text = " ".join(fold(answer).split())
        return any(phrase in text for phrase in self.phrases)


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
