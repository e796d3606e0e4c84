"""PII scrubbing: phone numbers, emails, order codes and card numbers become typed placeholders.

Everything ragmon stores or exports for humans (review cases, golden entries) passes through a
``Scrubber`` first. The patterns are data in ``rules/pii.yaml`` so a shop can add its own order-code
formats without touching code. Numbers that carry policy meaning ("30.000 đồng", "7 ngày", dates)
are left alone: every pattern needs a prefix or a shape that such numbers do not have.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from monitor.exceptions import ConfigError

# Keys whose values are identifiers or versions, never free text: scrubbing them would break joins.
ID_KEYS = frozenset(
    {
        "trace_id",
        "conversation_id",
        "chunk_id",
        "chunk_ids",
        "document_id",
        "citations",
        "sections",
        "model_id",
        "prompt_version",
        "index_version",
        "timestamp",
        "id",
    }
)


@dataclass(frozen=True, slots=True)
class PiiKind:
    """One kind of PII: its placeholder, its patterns, and whether matches must pass the Luhn check."""

    kind: str
    placeholder: str
    patterns: tuple[re.Pattern[str], ...]
    luhn: bool = False

    def scrub(self, text: str) -> str:
        """Replace every match of every pattern with the placeholder."""
        for pattern in self.patterns:
            text = pattern.sub(self._replace, text)
        return text

    def _replace(self, match: re.Match[str]) -> str:
        if self.luhn and not luhn_valid(match.group(0)):
            return match.group(0)
        return self.placeholder


def luhn_valid(text: str) -> bool:
    """True when the digits of ``text`` pass the Luhn checksum used by payment card numbers."""
    digits = [int(ch) for ch in text if ch.isdigit()]
    if len(digits) < 2:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


class Scrubber:
    """Replaces PII in text and in JSON-like objects; build one with ``Scrubber.load()`` and reuse it."""

    def __init__(self, kinds: Iterable[PiiKind]) -> None:
        self.kinds = tuple(kinds)

    @classmethod
    def load(cls, path: Path | None = None) -> Scrubber:
        """Load the rule pack at ``path``, or the bundled ``rules/pii.yaml``."""
        try:
            if path is None:
                text = (resources.files("monitor") / "rules" / "pii.yaml").read_text(encoding="utf-8")
            else:
                text = path.read_text(encoding="utf-8")
            data = yaml.safe_load(text)
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read PII rules {path or 'rules/pii.yaml'}: {exc}") from exc
        return cls(_parse_kinds(data))

    def scrub(self, text: str) -> str:
        """Return ``text`` with every PII match replaced by its typed placeholder."""
        for kind in self.kinds:
            text = kind.scrub(text)
        return text

    def scrub_obj(self, obj: Any, keep: frozenset[str] = ID_KEYS) -> Any:
        """Scrub every string in a JSON-like value, deep; values under keys in ``keep`` are left as is."""
        if isinstance(obj, str):
            return self.scrub(obj)
        if isinstance(obj, dict):
            return {k: v if k in keep else self.scrub_obj(v, keep) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.scrub_obj(item, keep) for item in obj]
        return obj


def _parse_kinds(data: Any) -> list[PiiKind]:
    if not isinstance(data, dict) or not isinstance(data.get("kinds"), list):
        raise ConfigError("PII rules: expected a mapping with a 'kinds' list")
    return [_parse_kind(index, item) for index, item in enumerate(data["kinds"])]


def _parse_kind(index: int, item: Any) -> PiiKind:
    where = f"PII rules: kinds[{index}]"
    if not isinstance(item, dict):
        raise ConfigError(f"{where}: expected a mapping")
    kind, placeholder, patterns = item.get("kind"), item.get("placeholder"), item.get("patterns")
    if not isinstance(kind, str) or not isinstance(placeholder, str):
        raise ConfigError(f"{where}: 'kind' and 'placeholder' must be strings")
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) for p in patterns):
        raise ConfigError(f"{where} ({kind}): 'patterns' must be a non-empty list of strings")
    flags = re.IGNORECASE if item.get("ignore_case") else 0
    try:
        compiled = tuple(re.compile(p, flags) for p in patterns)
    except re.error as exc:
        raise ConfigError(f"{where} ({kind}): invalid pattern {exc.pattern!r}: {exc}") from exc
    return PiiKind(kind=kind, placeholder=placeholder, patterns=compiled, luhn=bool(item.get("luhn")))
