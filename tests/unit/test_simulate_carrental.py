"""The unseen carrental domain (云途租车, Yuntu Car Rental): its two files load and never share a sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from monitor.simulate import SimConfig, generate, load_domain
from monitor.trace import validate_message

DATA = Path(__file__).parents[1] / "data" / "simulate"
DOMAIN, TEST = DATA / "carrental.domain.json", DATA / "carrental.test.json"
KINDS = {"conditional_as_general", "wrong_number", "dropped_qualifier", "wrong_unit", "should_abstain"}


def _wordings(data: dict[str, Any]) -> list[str]:
    """Every question and answer of a domain or variant file, with a domain file's sections and golden set."""
    intents = data["intents"].values() if isinstance(data["intents"], dict) else data["intents"]
    texts: list[str] = list(data.get("sections", {}).values())
    for entry in data.get("golden", []):
        texts += [entry["question"], entry.get("reference_answer", "")]
    for intent in intents:
        texts += [q for qs in intent["questions"].values() for q in qs]
        texts += [a for answers in intent["answers"]["good"].values() for a in answers]
        texts += [a["text"] for answers in intent["answers"]["bad"].values() for a in answers]
    return texts


def _sentences(texts: list[str]) -> set[str]:
    """Sentences (split at . ! ? ; and their CJK and Persian forms), case- and space-folded."""
    out = set()
    for text in texts:
        for part in re.split(r"(?<=[.!?;؟])\s+|(?<=[。！？；])", text):
            folded = " ".join(part.casefold().split()).strip(" .!?;。！？；؟")
            if folded:
                out.add(folded)
    return out


def test_carrental_files_load_with_the_simulators_loader() -> None:
    """The domain file loads alone and with its test wordings; every intent re-worded in three languages."""
    train, test = load_domain(DOMAIN), load_domain(DOMAIN, TEST)
    assert train.name == "carrental" and train.language == "zh" and len(train.golden) == 12
    assert {i.id for i in test.intents} == {i.id for i in train.intents} and len(train.intents) == 24
    assert train.languages == test.languages == {"zh", "en", "fa"}
    assert {a.kind for i in test.intents for answers in i.bad.values() for a in answers} == KINDS
    traces = list(generate(SimConfig(count=200, seed=4, domain=DOMAIN, variants=TEST, bad_deploy_at=100)))
    assert all(validate_message(t) for t in traces if "answer" in t)


def test_carrental_test_wordings_never_share_a_sentence_with_the_domain_file() -> None:
    """No sentence of carrental.test.json is in carrental.domain.json (sections, golden, train wordings)."""
    domain = json.loads(DOMAIN.read_text(encoding="utf-8"))
    test = json.loads(TEST.read_text(encoding="utf-8"))
    assert not _sentences(_wordings(test)) & _sentences(_wordings(domain))
