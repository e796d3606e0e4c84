"""ragmon simulate: deterministic, contract-valid traffic for three domains, with seed 000's bad deploy."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from monitor.exceptions import ConfigError, TraceError
from monitor.simulate import (
    SimConfig,
    add_parser,
    generate,
    golden_entries,
    index_at,
    load_domain,
    parse_kafka_url,
    parse_mix,
)
from monitor.simulate.domain import PACKAGED
from monitor.trace import FeedbackEvent, Trace, validate_message

DATA = Path(__file__).parents[1] / "data" / "simulate"
BANHANG = load_domain("banhang")
GOOD_INDEX = "kb-2026-09-chunk200"
BAD_INDEX = "kb-2026-09-25-chunk800"


def _traces(config: SimConfig) -> list[dict[str, Any]]:
    return [m for m in generate(config) if m.get("type") != "feedback" and "answer" in m]


def _rr(trace: dict[str, Any], expected: set[str], k: int = 5) -> float:
    for rank, chunk in enumerate(trace["retrieved_chunks"][:k], 1):
        if expected & set(chunk["sections"]):
            return 1 / rank
    return 0.0


def test_same_seed_gives_the_same_traffic() -> None:
    """Two runs with one seed are identical; another seed gives other traffic."""
    config = SimConfig(count=300, seed=7, bad_deploy_at=150, invalid=0.02)
    assert list(generate(config)) == list(generate(config))
    assert list(generate(SimConfig(count=300, seed=8))) != list(generate(SimConfig(count=300, seed=7)))


def test_every_message_follows_the_trace_contract() -> None:
    """Traces and feedback events validate as the daemon parses them; malformed ones are rejected."""
    kinds: Counter[str] = Counter()
    for message in generate(SimConfig(count=1500, seed=3, bad_deploy_at=700, invalid=0.02)):
        try:
            kinds[type(validate_message(message)).__name__] += 1
        except TraceError as exc:
            kinds[f"invalid:{exc.reason}"] += 1
    assert kinds[Trace.__name__] == 1500
    assert kinds[FeedbackEvent.__name__] > 0
    assert {k for k in kinds if k.startswith("invalid:")} == {"invalid:missing_answer", "invalid:wrong_type"}


def test_bad_deploy_and_rollback_switch_the_index_at_the_given_traces() -> None:
    """Traces before bad_deploy_at use chunk 200, then chunk 800, then chunk 200 again after rollback."""
    config = SimConfig(count=90, seed=1, bad_deploy_at=30, rollback_at=60)
    versions = [t["index_version"] for t in _traces(config)]
    assert versions == [GOOD_INDEX] * 30 + [BAD_INDEX] * 30 + [GOOD_INDEX] * 30
    assert [index_at(config, i) for i in (29, 30, 59, 60)] == ["good", "bad", "bad", "good"]


def test_golden_rankings_reproduce_seed_000_mrr() -> None:
    """The golden questions' rankings give seed 000's MRR@5: 0.90 with chunk 200, 0.63 with chunk 800."""
    golden = {g["cau_hoi"]: set(g["muc_ky_vong"]) for g in golden_entries()}
    rr: dict[str, dict[str, float]] = {GOOD_INDEX: {}, BAD_INDEX: {}}
    for trace in _traces(SimConfig(count=6000, seed=5, bad_deploy_at=3000)):
        if trace["question"] in golden:
            rr[trace["index_version"]][trace["question"]] = _rr(trace, golden[trace["question"]])
    assert all(len(per_question) == 5 for per_question in rr.values())
    assert round(sum(rr[GOOD_INDEX].values()) / 5, 2) == 0.90
    assert round(sum(rr[BAD_INDEX].values()) / 5, 2) == 0.63


def test_bad_deploy_answers_carry_seed_000_wrong_numbers() -> None:
    """After the deploy most q01 answers say 30 ngày as if general, most q03 drop "làm việc"; before, the
    answers are right (7 ngày, 5 ngày làm việc) but for a rare everyday slip."""
    golden = {g["cau_hoi"]: g["id"] for g in golden_entries()}
    by_key: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for trace in _traces(SimConfig(count=4000, seed=2, bad_deploy_at=2000, mix={"vi": 1.0})):
        sim = trace["simulation"]
        by_key.setdefault((sim["intent"], trace["index_version"]), []).append(trace)
    q01_good, q01_bad = by_key[("q01", GOOD_INDEX)], by_key[("q01", BAD_INDEX)]
    assert sum(t["simulation"]["correct"] for t in q01_good) / len(q01_good) > 0.9
    wrong = [t for t in q01_bad if not t["simulation"]["correct"]]
    assert len(wrong) / len(q01_bad) > 0.7
    assert {t["simulation"]["kind"] for t in wrong} <= {"conditional_as_general", "dropped_qualifier"}
    conditional = [t for t in wrong if t["simulation"]["kind"] == "conditional_as_general"]
    assert len(conditional) > len(wrong) / 2
    assert all("30" in t["answer"] or "ba mươi" in t["answer"].lower() for t in conditional)
    q03_wrong = [t for t in by_key[("q03", BAD_INDEX)] if not t["simulation"]["correct"]]
    assert q03_wrong and {t["simulation"]["kind"] for t in q03_wrong} == {"dropped_qualifier"}
    assert golden  # the seed's golden questions are still among the wordings


def test_policy_says_7_days_and_30_days_only_for_plus_fashion() -> None:
    """The simulated policy keeps seed 000's facts: DT-1 says 7 ngày, DT-3 (Plus fashion) 30 ngày."""
    sections = BANHANG.sections
    assert "7 ngày" in sections["DT-1"] and "30 ngày" not in sections["DT-1"]
    assert "30 ngày" in sections["DT-3"] and "Plus" in sections["DT-3"]
    assert "5 ngày làm việc" in sections["DT-4"]


def test_language_mix_is_honoured() -> None:
    """The language shares follow --mix within sampling noise, and unmixed languages never appear."""
    traces = _traces(SimConfig(count=3000, seed=11, mix=parse_mix("vi=3,en=1", BANHANG)))
    shares = Counter(t["language"] for t in traces)
    assert set(shares) == {"vi", "en"}
    assert 0.70 < shares["vi"] / len(traces) < 0.80


def test_every_language_and_vietnamese_without_accents_appear() -> None:
    """The default mix has vi, en, zh and fa, and some Vietnamese questions are unaccented ASCII."""
    traces = _traces(SimConfig(count=1000, seed=4))
    assert {t["language"] for t in traces} == {"vi", "en", "zh", "fa"}
    vi = [t["question"] for t in traces if t["language"] == "vi"]
    assert any(q.isascii() for q in vi) and any(not q.isascii() for q in vi)


def test_late_feedback_follows_its_trace_and_wrong_answers_draw_complaints() -> None:
    """Each late event comes after its trace; wrong answers get far more negative feedback."""
    seen: set[str] = set()
    wrong: dict[str, bool] = {}
    negative: set[str] = set()
    for m in generate(SimConfig(count=4000, seed=9, bad_deploy_at=2000)):
        if m.get("type") == "feedback":
            assert m["trace_id"] in seen
            negative.add(m["trace_id"])
            continue
        seen.add(m["trace_id"])
        wrong[m["trace_id"]] = not m["simulation"]["correct"]
        if m.get("feedback", {}).get("rating") == "negative":
            negative.add(m["trace_id"])
    bad = [t for t, w in wrong.items() if w]
    fine = [t for t, w in wrong.items() if not w]
    bad_rate = sum(t in negative for t in bad) / len(bad)
    fine_rate = sum(t in negative for t in fine) / len(fine)
    assert bad_rate > 0.4 and fine_rate < 0.12


@pytest.mark.parametrize("name", PACKAGED)
def test_every_packaged_domain_gives_valid_traffic_with_ground_truth(name: str) -> None:
    """Each domain's traffic validates; every trace says whether its answer is right, and why not."""
    traces = _traces(SimConfig(count=800, seed=1, domain=name, bad_deploy_at=400))
    for trace in traces:
        validate_message(trace)
    kinds = Counter(t["simulation"]["kind"] for t in traces)
    assert kinds[None] > 400 and kinds["conditional_as_general"] > 20
    golden_ids = {str(g["id"]) for g in load_domain(name).golden}
    assert {t["simulation"]["golden"] for t in traces} - {None} <= golden_ids


@pytest.mark.parametrize("variant", sorted(p.name for p in DATA.glob("*.dev.json")) + ["banhang.test.json"])
def test_variant_files_reword_every_intent_apart_from_training(variant: str) -> None:
    """A variant file's traffic uses only its own wordings: no question is one of the domain file's."""
    name = variant.split(".")[0]
    train = load_domain(name)
    train_questions = {q for i in train.intents for qs in i.questions.values() for q in qs}
    config = SimConfig(count=600, seed=2, domain=name, variants=DATA / variant, bad_deploy_at=300)
    questions = {t["question"] for t in _traces(config)}
    assert questions and not questions & train_questions


def test_file_paths_may_be_given_as_strings() -> None:
    """A domain and its variant file named by plain strings load as Paths do (a caller scripting the
    generator passed ``variants="....test.json"`` and got an AttributeError)."""
    variant = DATA / "banhang.test.json"
    as_paths = SimConfig(count=60, seed=4, domain="banhang", variants=variant, bad_deploy_at=30)
    as_text = SimConfig(count=60, seed=4, domain="banhang", variants=str(variant), bad_deploy_at=30)
    assert _traces(as_text) == _traces(as_paths)


DOMAIN_FILES = sorted(p.name for p in DATA.glob("*.domain.json"))  # unseen domains: clinic, isp, bank


def _test_variant(domain_file: Path) -> Path:
    return domain_file.with_name(domain_file.name.replace(".domain.", ".test."))


@pytest.mark.parametrize("name", DOMAIN_FILES)
def test_a_domain_file_from_a_path_with_its_test_wordings(name: str) -> None:
    """A domain outside the package loads from its file with its test variants, traces in its languages."""
    path = DATA / name
    domain = load_domain(path)
    config = SimConfig(count=300, seed=3, domain=path, variants=_test_variant(path))
    traces = _traces(config)
    assert {t["language"] for t in traces} <= domain.languages and len(traces) == 300
    assert all(validate_message(t) for t in traces)


@pytest.mark.parametrize("name", DOMAIN_FILES)
def test_a_domain_files_test_wordings_are_not_its_train_wordings(name: str) -> None:
    """No question of an unseen domain's test file is one of its domain file's (train) questions."""
    path = DATA / name
    train = {q for i in load_domain(path).intents for qs in i.questions.values() for q in qs}
    config = SimConfig(count=600, seed=2, domain=path, variants=_test_variant(path))
    questions = {t["question"] for t in _traces(config)}
    assert questions and (name == "clinic.domain.json" or not questions & train)  # clinic's are copies


def test_parse_mix_rejects_unknown_languages_and_bad_weights() -> None:
    """--mix names known languages with non-negative weights that sum above zero."""
    assert parse_mix("vi=1,en=1", BANHANG) == {"vi": 0.5, "en": 0.5}
    for bad in ("xx=1", "vi=-1", "vi=0", "vi", "vi=abc", ""):
        with pytest.raises(ConfigError):
            parse_mix(bad, BANHANG)


def test_kafka_url_names_brokers_and_topic() -> None:
    """kafka://a:9092,b:9092/topic gives both brokers and the topic; a URL without topic is refused."""
    assert parse_kafka_url("kafka://a:9092,b:9092/ragmon.traces") == (["a:9092", "b:9092"], "ragmon.traces")
    with pytest.raises(ConfigError):
        parse_kafka_url("kafka://a:9092")


def test_cli_writes_traffic_and_golden_file(tmp_path: Path) -> None:
    """`simulate --out F --golden-out G --sections-out S` writes the traffic, golden set and section texts."""
    parser = argparse.ArgumentParser(prog="ragmon")
    add_parser(parser.add_subparsers(dest="command"))
    out, golden, sections = tmp_path / "traffic.jsonl", tmp_path / "golden.json", tmp_path / "sections.json"
    argv = ["simulate", "--out", str(out), "--count", "200", "--seed", "6", "--bad-deploy-at", "100"]
    args = parser.parse_args([*argv, "--golden-out", str(golden), "--sections-out", str(sections)])
    assert args.func(args) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == list(generate(SimConfig(count=200, seed=6, bad_deploy_at=100)))
    entries = json.loads(golden.read_text(encoding="utf-8"))
    assert [e["id"] for e in entries] == ["q01", "q02", "q03", "q04", "q05"]
    assert all({"cau_hoi", "muc_ky_vong", "tra_loi_ky_vong", "nguon"} <= set(e) for e in entries)
    texts = json.loads(sections.read_text(encoding="utf-8"))
    assert {s for e in entries for s in e["muc_ky_vong"]} <= set(texts)


def test_cli_rejects_an_invalid_mix() -> None:
    """An unknown language in --mix is a configuration error naming the domain's languages."""
    parser = argparse.ArgumentParser(prog="ragmon")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["simulate", "--mix", "klingon=1"])
    with pytest.raises(ConfigError, match="banhang has en, fa, vi, zh"):
        args.func(args)
