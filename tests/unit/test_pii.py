"""PII scrubbing over the case file tests/data/pii_cases.yaml, plus the Luhn check and rule-pack errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.exceptions import ConfigError
from monitor.pii import Scrubber, luhn_valid

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parents[1] / "data" / "pii_cases.yaml").read_text(encoding="utf-8")
)


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber.load()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_scrub_cases(scrubber: Scrubber, case: dict[str, Any]) -> None:
    """Each case text scrubs to its expected form: PII typed, policy numbers and dates kept."""
    assert scrubber.scrub(case["text"]) == case["expected"]


def test_scrub_is_idempotent(scrubber: Scrubber) -> None:
    """Scrubbing already-scrubbed text changes nothing, so redelivered cases stay identical."""
    for case in CASES:
        once = scrubber.scrub(case["text"])
        assert scrubber.scrub(once) == once


@pytest.mark.parametrize(
    ("number", "valid"),
    [("4111111111111111", True), ("4111 1111 1111 1112", False), ("79927398713", True), ("7", False)],
)
def test_luhn(number: str, valid: bool) -> None:
    """The Luhn check accepts real card numbers and rejects one wrong digit."""
    assert luhn_valid(number) is valid


def test_scrub_obj_is_deep_and_scrubs_by_pattern_not_by_key() -> None:
    """Every string is scrubbed; in identifiers PII becomes a stable pseudonym; plain ids are kept."""
    scrubber = Scrubber.load(key=b"test-key")
    obj = {
        "trace_id": "trace-2026-09-25-001",
        "conversation_id": "0912345678",
        "question": "đơn DH123456 gọi 0912 345 678",
        "retrieved_chunks": [{"chunk_id": "0912345678", "text": "email a@b.com", "retrieval_score": 0.8}],
        "citations": ["0912345678", "c02"],
        "feedback": {"rating": "negative", "reason": "gọi lại 0912345678"},
        "latency_ms": 912345678,
        "metadata": {"phone": 84912345678, "a@b.com": "x", "card": 4111111111111111, "count": 12},
    }
    out = scrubber.scrub_obj(obj)
    assert out["trace_id"] == "trace-2026-09-25-001"
    pseudonym = out["conversation_id"]
    assert pseudonym.startswith("[PHONE#") and "0912345678" not in pseudonym
    assert out["retrieved_chunks"][0]["chunk_id"] == pseudonym == out["citations"][0]
    assert out["citations"][1] == "c02"
    assert out["question"] == "đơn [ORDER] gọi [PHONE]"
    assert out["retrieved_chunks"][0]["text"] == "email [EMAIL]"
    assert out["feedback"]["reason"] == "gọi lại [PHONE]"
    assert out["latency_ms"] == 912345678
    assert out["metadata"] == {"phone": "[PHONE]", "[EMAIL]": "x", "card": "[CARD]", "count": 12}
    assert obj["question"] == "đơn DH123456 gọi 0912 345 678"
    again = Scrubber.load(key=b"test-key").scrub_obj({"conversation_id": "0912345678"})
    assert again["conversation_id"] == pseudonym  # the same key: the same pseudonym, in any process


def test_custom_order_pattern_is_data(tmp_path: Path) -> None:
    """A shop's own order-code format added to the YAML is scrubbed without code changes."""
    rules = tmp_path / "pii.yaml"
    rules.write_text(
        "kinds:\n  - kind: order\n    placeholder: '[ORDER]'\n    patterns: ['SO-\\d{5}']\n", encoding="utf-8"
    )
    assert Scrubber.load(rules).scrub("đơn SO-12345 và DH123456") == "đơn [ORDER] và DH123456"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kinds: 3\n", "'kinds' list"),
        ("kinds:\n  - {kind: x, placeholder: '[X]', patterns: []}\n", "non-empty list"),
        ("kinds:\n  - {kind: x, placeholder: '[X]', patterns: ['(']}\n", "invalid pattern"),
        ("kinds: [\n", "cannot read"),
    ],
)
def test_bad_rule_pack_raises_config_error(tmp_path: Path, text: str, message: str) -> None:
    """A broken rule pack is a ConfigError that says what is wrong."""
    rules = tmp_path / "pii.yaml"
    rules.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        Scrubber.load(rules)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "text",
    ["x" * 524_288, "1" * 524_288, "1 " * 262_144, "a." * 262_144, "a@" + "b." * 200_000, "0912 " * 100_000],
    ids=["letters", "digits", "spaced-digits", "dots", "at-dots", "phones"],
)
def test_adversarial_text_scrubs_in_linear_time(scrubber: Scrubber, text: str) -> None:
    """Half a megabyte that nearly matches a pattern finishes (no pattern backtracks per position)."""
    assert len(scrubber.scrub(text)) > 0
