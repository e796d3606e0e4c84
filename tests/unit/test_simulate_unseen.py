"""The unseen simulated domains (airline, gym, appliance, streaming, pharmacy; vet to furniture,
bookshop, mobilevn, travelins, ebike, carinsure, petshop, groceries, hotpot, airportpark, phonerepair,
busvn and laundry, each read once; evcharge, spa, daycare and optician, read once at the start of the
2026-12-08 session; and the sealed petinsure, housekeep, healthins and travelagency): each domain
file loads alone and with its held-out
test wordings, generates valid traffic, and never shares a sentence with its test file
(tests/data/simulate/FORMAT.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from monitor.simulate import SimConfig, generate, load_domain
from monitor.trace import validate_message

DATA = Path(__file__).parents[1] / "data" / "simulate"
KINDS = {"conditional_as_general", "wrong_number", "dropped_qualifier", "wrong_unit", "should_abstain"}


class Unseen(NamedTuple):
    name: str
    language: str
    golden: int
    intents: int
    languages: frozenset[str]


DOMAINS = [
    Unseen("airline", "vi", 16, 22, frozenset({"vi", "en", "zh", "fa"})),  # Sao Mai Airlines
    Unseen("gym", "en", 12, 24, frozenset({"en", "vi", "zh"})),  # Ironwood Fitness
    Unseen("appliance", "zh", 12, 24, frozenset({"zh", "en", "vi"})),  # 优家电器
    Unseen("vet", "en", 12, 24, frozenset({"en", "vi", "zh"})),  # Harborview Veterinary Group (read once)
    Unseen("carrental", "zh", 12, 24, frozenset({"zh", "en", "fa"})),  # 云途租车 (read once)
    Unseen("school", "vi", 11, 24, frozenset({"vi", "en", "zh"})),  # Trung tâm Anh ngữ Sao Việt (read once)
    Unseen("hotel", "en", 12, 24, frozenset({"en", "zh", "fa"})),  # Lanting Hotels & Suites (read once)
    Unseen("streaming", "zh", 12, 24, frozenset({"zh", "en", "vi"})),  # 星河视频 (Xinghe Video)
    Unseen("pharmacy", "fa", 12, 24, frozenset({"fa", "en", "vi"})),  # داروخانه آنلاین مهرسا (Mehrsa)
    Unseen("courier", "vi", 12, 24, frozenset({"vi", "en", "zh"})),  # Giao Nhanh Việt (read once)
    Unseen("utility", "en", 12, 24, frozenset({"en", "zh", "fa"})),  # Northgate Energy & Water (read once)
    Unseen("dental", "zh", 12, 24, frozenset({"zh", "en", "vi"})),  # 皓齿口腔 Haochi Dental (read once)
    Unseen("tuition", "fa", 12, 24, frozenset({"fa", "en", "zh"})),  # آموزشگاه نوآوران (read once)
    Unseen("cinema", "zh", 24, 34, frozenset({"zh", "en", "fa"})),  # 光影影城 Guangying Cinemas (read once)
    Unseen("coworking", "vi", 13, 22, frozenset({"vi", "en", "zh"})),  # WorkNest (read once)
    Unseen("furniture", "en", 11, 25, frozenset({"en", "fa", "vi"})),  # Maple & Oak Home (read once)
    Unseen("bookshop", "fa", 14, 25, frozenset({"fa", "en", "zh"})),  # کتاب‌سرای نیلوفر (read once)
    Unseen("mobilevn", "vi", 13, 26, frozenset({"vi", "en", "zh"})),  # Sóng Xanh (read once)
    Unseen("travelins", "en", 14, 26, frozenset({"en", "vi", "fa"})),  # Bluewater (read once)
    Unseen("ebike", "zh", 13, 26, frozenset({"zh", "en", "vi"})),  # 绿骑出行 Lvqi Mobility (read once)
    Unseen("carinsure", "fa", 13, 25, frozenset({"fa", "en", "vi"})),  # بیمه آسان‌ران (sealed)
    Unseen("petshop", "vi", 13, 26, frozenset({"vi", "en", "zh"})),  # Mèo Mập Pet Stores (sealed)
    Unseen("groceries", "en", 14, 25, frozenset({"en", "zh", "fa"})),  # FreshCart (sealed)
    Unseen("hotpot", "zh", 13, 26, frozenset({"zh", "en", "vi"})),  # 蜀味火锅 Shuwei Hotpot (sealed)
    Unseen("airportpark", "en", 14, 26, frozenset({"en", "zh", "vi"})),  # SkyPark Airport Parking (read once)
    Unseen("phonerepair", "fa", 14, 26, frozenset({"fa", "en", "zh"})),  # آی‌فیکس iFix (read once)
    Unseen("busvn", "vi", 14, 26, frozenset({"vi", "en", "fa"})),  # Phương Nam Express (read once)
    Unseen("laundry", "zh", 14, 26, frozenset({"zh", "en", "vi"})),  # 净衣坊 Jingyi Laundry (read once)
    Unseen("evcharge", "en", 14, 26, frozenset({"en", "zh", "fa"})),  # VoltWay EV charging (sealed)
    Unseen("spa", "vi", 14, 26, frozenset({"vi", "en", "zh"})),  # Sen Xanh Spa (sealed)
    Unseen("daycare", "zh", 14, 26, frozenset({"zh", "en", "vi"})),  # 小橡树托育中心 Little Oak (sealed)
    Unseen("optician", "fa", 14, 26, frozenset({"fa", "en", "zh"})),  # عینک‌سازی بینا Bina Optics (sealed)
    Unseen("petinsure", "en", 14, 28, frozenset({"en", "zh", "vi"})),  # PawGuard Pet Insurance (sealed)
    Unseen("housekeep", "zh", 15, 27, frozenset({"zh", "en", "fa"})),  # 家帮家政 Jiabang (sealed)
    Unseen("healthins", "vi", 14, 28, frozenset({"vi", "en", "zh"})),  # An Tâm Care (sealed)
    Unseen("travelagency", "fa", 14, 28, frozenset({"fa", "en", "vi"})),  # سفرینو Safarino (sealed)
]


def _files(domain: Unseen) -> tuple[Path, Path]:
    return DATA / f"{domain.name}.domain.json", DATA / f"{domain.name}.test.json"


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


@pytest.mark.parametrize("domain", DOMAINS, ids=lambda d: d.name)
def test_the_files_load_with_the_simulators_loader(domain: Unseen) -> None:
    """The domain file loads alone and with its test wordings; every intent is re-worded in its languages,
    both files hold every kind of wrong answer, and the traffic is valid."""
    path, held_out = _files(domain)
    train, test = load_domain(path), load_domain(path, held_out)
    assert train.name == domain.name and train.language == domain.language
    assert len(train.golden) == domain.golden and len(train.intents) == domain.intents
    assert {i.id for i in test.intents} == {i.id for i in train.intents}
    assert train.languages == test.languages == domain.languages
    for loaded in (train, test):
        assert {a.kind for i in loaded.intents for answers in i.bad.values() for a in answers} == KINDS
    traces = list(generate(SimConfig(count=200, seed=4, domain=path, variants=held_out, bad_deploy_at=100)))
    assert all(validate_message(t) for t in traces if "answer" in t)


@pytest.mark.parametrize("domain", DOMAINS, ids=lambda d: d.name)
def test_the_test_wordings_never_share_a_sentence_with_the_domain_file(domain: Unseen) -> None:
    """No sentence of <name>.test.json is in <name>.domain.json (sections, golden set, train wordings)."""
    path, held_out = _files(domain)
    train = json.loads(path.read_text(encoding="utf-8"))
    test = json.loads(held_out.read_text(encoding="utf-8"))
    assert not _sentences(_wordings(test)) & _sentences(_wordings(train))


@pytest.mark.parametrize("domain", DOMAINS, ids=lambda d: d.name)
def test_each_intent_is_asked_in_the_same_languages_in_both_files(domain: Unseen) -> None:
    """Each intent of the test file is asked and answered in the languages the domain file gives it."""
    path, held_out = _files(domain)
    train = json.loads(path.read_text(encoding="utf-8"))
    test = json.loads(held_out.read_text(encoding="utf-8"))["intents"]
    for intent in train["intents"]:
        languages = set(intent["questions"])
        assert set(test[intent["id"]]["questions"]) == languages, intent["id"]
