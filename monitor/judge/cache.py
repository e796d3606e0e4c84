"""A bounded verdict cache, so a redelivered or duplicate trace is not judged (and paid for) twice.

Keyed by (judge, prompt version, question, answer, chunks): the inputs that decide the verdicts.
The trace id is left out on purpose, so identical traces under new ids hit too. Scores are not
cached: they are recomputed from the cached verdicts, so a change of scoring options still applies.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass

from monitor.judge.base import JudgeInput, Verdicts

DEFAULT_MAX_ENTRIES = 10_000


@dataclass(frozen=True, slots=True)
class CachedVerdicts:
    """What a judged trace leaves behind: its verdicts and the reverse-question similarities."""

    verdicts: Verdicts
    similarities: tuple[float, ...]


class VerdictCache:
    """An LRU map from input digests to verdicts; one per process, shared by the judge's tasks."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self._max = max_entries
        self._entries: OrderedDict[str, CachedVerdicts] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def key(judge: str, prompt_version: str, item: JudgeInput) -> str:
        """A digest of everything that decides the verdicts (not the trace id)."""
        payload = [
            judge,
            prompt_version,
            item.question,
            item.answer,
            [[c.chunk_id, c.text] for c in item.chunks],
        ]
        raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        return hashlib.sha256(raw).hexdigest()

    def get(self, key: str) -> CachedVerdicts | None:
        """The cached verdicts for ``key``, refreshed as most recently used, or ``None``."""
        value = self._entries.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(key)
        return value

    def put(self, key: str, value: CachedVerdicts) -> None:
        """Remember ``value``, evicting the least recently used entry beyond the bound."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
