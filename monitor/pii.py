"""PII scrubbing: phone numbers, emails, order codes and card numbers become typed placeholders.

Everything ragmon stores or exports for humans (review cases, golden entries) passes through a
``Scrubber`` first. The patterns are data in ``rules/pii.yaml`` so a shop can add its own order-code
formats without touching code. Numbers that carry policy meaning ("30.000 đồng", "7 ngày", dates)
are left alone: every pattern needs a prefix or a shape that such numbers do not have.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

from monitor.exceptions import ConfigError

# Keys whose values are identifiers: PII found in them becomes a *pseudonym* ("[PHONE#3f9a1c2e]"), a
# keyed hash of the value, so a conversation keyed by a phone number stays one conversation.
ID_KEYS = frozenset(
    {
        "trace_id",
        "conversation_id",
        "session_id",
        "user_id",
        "chunk_id",
        "chunk_ids",
        "document_id",
        "citations",
        "id",
    }
)
PSEUDONYM_HEX = 8


@dataclass(frozen=True, slots=True)
class PiiKind:
    """One kind of PII: its placeholder, its patterns, and whether matches must pass the Luhn check."""

    kind: str
    placeholder: str
    patterns: tuple[re.Pattern[str], ...]
    check: Callable[[str], bool] | None = None  # a checksum a match must pass (Luhn, IBAN mod 97)

    def scrub(self, text: str, pseudonym: Callable[[str, str], str] | None = None) -> str:
        """Replace every match with the placeholder, or with ``pseudonym(placeholder, match)`` if given."""
        for pattern in self.patterns:
            text = pattern.sub(lambda match: self._replace(match, pseudonym), text)
        return text

    def _replace(self, match: re.Match[str], pseudonym: Callable[[str, str], str] | None) -> str:
        found = match.group(0)
        if self.check is not None and not self.check(found):
            return found
        return pseudonym(self.placeholder, found) if pseudonym is not None else self.placeholder


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


def iban_valid(text: str) -> bool:
    """True when ``text`` (spaces allowed) passes the ISO 13616 mod-97 check of an IBAN."""
    compact = "".join(text.split()).upper()
    if len(compact) < 15 or not compact.isalnum():
        return False
    rotated = compact[4:] + compact[:4]
    digits = "".join(str(int(ch, 36)) for ch in rotated)
    return int(digits) % 97 == 1


CHECKS: dict[str, Callable[[str], bool]] = {"luhn": luhn_valid, "iban": iban_valid}


class Scrubber:
    """Replaces PII in text and in JSON-like objects; build one with ``Scrubber.load()`` and reuse it.

    Every string is scrubbed by pattern, whatever its key; so are dictionary keys and integers whose
    digits match (a phone number stored as a number). In identifiers (``ID_KEYS``) a match becomes a
    pseudonym keyed by ``key``: give every replica the same key (``pii.key``) and pseudonyms agree
    across replicas and restarts; without one, a random key per process keeps them apart.
    """

    def __init__(self, kinds: Iterable[PiiKind], key: bytes | None = None) -> None:
        self.kinds = tuple(kinds)
        self._key = key if key else secrets.token_bytes(32)

    @classmethod
    def load(cls, path: Path | Traversable | None = None, key: bytes | None = None) -> Scrubber:
        """Load the rule pack at ``path``, or the bundled ``rules/pii.yaml``."""
        try:
            if path is None:
                text = (resources.files("monitor") / "rules" / "pii.yaml").read_text(encoding="utf-8")
            else:
                text = path.read_text(encoding="utf-8")
            data = yaml.safe_load(text)
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read PII rules {path or 'rules/pii.yaml'}: {exc}") from exc
        return cls(_parse_kinds(data), key)

    def scrub(self, text: str) -> str:
        """Return ``text`` with every PII match replaced by its typed placeholder."""
        for kind in self.kinds:
            text = kind.scrub(text)
        return text

    def pseudonymize(self, text: str) -> str:
        """Return ``text`` with every PII match replaced by a stable pseudonym (for identifiers)."""
        for kind in self.kinds:
            text = kind.scrub(text, self._pseudonym)
        return text

    def _pseudonym(self, placeholder: str, value: str) -> str:
        digest = hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:PSEUDONYM_HEX]
        return f"{placeholder[:-1]}#{digest}]" if placeholder.endswith("]") else f"{placeholder}#{digest}"

    def scrub_obj(self, obj: Any, key: str | None = None) -> Any:
        """Scrub every string, key and PII-shaped integer in a JSON-like value, deep; ids get pseudonyms."""
        if isinstance(obj, str):
            return self.pseudonymize(obj) if key in ID_KEYS else self.scrub(obj)
        if isinstance(obj, dict):
            return {self.scrub(str(k)): self.scrub_obj(v, str(k)) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.scrub_obj(item, key) for item in obj]
        if isinstance(obj, int) and not isinstance(obj, bool) and abs(obj) >= _SHORTEST_PII:
            digits = str(obj)
            clean = self.pseudonymize(digits) if key in ID_KEYS else self.scrub(digits)
            return obj if clean == digits else clean
        return obj


_SHORTEST_PII = 10**8  # integers below nine digits are counts, amounts or dates, never a phone or card


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
    check = item.get("check", "luhn" if item.get("luhn") else None)
    if check is not None and check not in CHECKS:
        raise ConfigError(f"{where} ({kind}): 'check' must be one of {', '.join(CHECKS)}, not {check!r}")
    return PiiKind(kind, placeholder, compiled, CHECKS[check] if check else None)
