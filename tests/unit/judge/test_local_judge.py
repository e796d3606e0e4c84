"""The local judge on the seed examples, abstention packs and rule loading, with the real e5 model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.embeddings import LocalE5Embedder
from monitor.exceptions import ConfigError
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.local import LocalJudge, PlainNumbers

DATA = Path(__file__).parents[2] / "data" / "local_judge"
CASES: list[dict[str, Any]] = yaml.safe_load((DATA / "judge.yaml").read_text(encoding="utf-8"))
ABSTENTIONS: list[dict[str, str]] = yaml.safe_load((DATA / "abstention.yaml").read_text(encoding="utf-8"))
RULES = Path(__file__).parents[3] / "rules"


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge(LocalE5Embedder())


def run(judge: LocalJudge, question: str, answer: str, chunks: list[str]) -> JudgeResult:
    item = JudgeInput(
        "t-1", question, answer, tuple(JudgeChunk(f"c{i + 1}", c) for i, c in enumerate(chunks))
    )
    return asyncio.run(judge.judge(item))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_local_judge_case_file(judge: LocalJudge, case: dict[str, Any]) -> None:
    """Each case gets the faithfulness, chunk verdicts and context precision its case file states."""
    result = run(judge, case["question"], case["answer"], case["chunks"])
    assert result.scores.faithfulness == pytest.approx(case["faithfulness"])
    if "chunk_useful" in case:
        assert list(result.verdicts.chunk_useful) == case["chunk_useful"]
    if "context_precision" in case:
        assert result.scores.context_precision == pytest.approx(case["context_precision"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_invented_claim_halves_faithfulness_and_leaves_context_precision(
    judge: LocalJudge, lang: str
) -> None:
    """Seed 002 step 5: the invented population claim drops faithfulness 1.0 -> 0.5, precision unchanged."""
    plain, invented = (c for c in CASES if c["name"].startswith(f"france_{lang}"))
    before = run(judge, plain["question"], plain["answer"], plain["chunks"])
    after = run(judge, invented["question"], invented["answer"], invented["chunks"])
    assert (before.scores.faithfulness, after.scores.faithfulness) == (1.0, 0.5)
    assert after.scores.context_precision == before.scores.context_precision == 1.0
    assert [c.supported for c in after.verdicts.claims] == [True, False]
    assert after.verdicts.claims[0].chunk_ids == ("c1", "c2")


def test_answer_relevance_is_high_for_an_on_topic_answer_and_low_for_an_off_topic_one(
    judge: LocalJudge,
) -> None:
    """Calibrated question-answer similarity separates a direct answer from an unrelated one."""
    chunks = CASES[0]["chunks"]
    on_topic = run(judge, "What is the capital of France?", "Paris is the capital of France.", chunks)
    off_topic = run(judge, "What is the capital of France?", "Rainforests hold many tree species.", chunks)
    assert on_topic.scores.answer_relevance is not None and off_topic.scores.answer_relevance is not None
    assert on_topic.scores.answer_relevance > 0.8 > off_topic.scores.answer_relevance + 0.3


@pytest.mark.parametrize("case", ABSTENTIONS, ids=[c["language"] + str(i) for i, c in enumerate(ABSTENTIONS)])
def test_honest_abstention_is_flagged_and_not_penalized(judge: LocalJudge, case: dict[str, str]) -> None:
    """An answer saying the context does not cover the question is abstained, with no claims to fail."""
    result = run(
        judge, "What is the international warranty policy?", case["answer"], ["Returns within 7 days."]
    )
    assert result.verdicts.abstained
    assert result.verdicts.claims == ()
    assert result.scores.faithfulness is None
    assert result.scores.answer_relevance is None


def test_noncommittal_answer_is_penalized(judge: LocalJudge) -> None:
    """An evasive answer ("as a language model...") is noncommittal and its relevance drops to zero."""
    result = run(
        judge, "How do you feel today?", "As a language model, I have no feelings.", ["Unrelated text."]
    )
    assert result.verdicts.noncommittal == (True,)
    assert not result.verdicts.abstained
    assert result.scores.answer_relevance == 0.0


def test_judge_reports_its_name_version_and_zero_usage(judge: LocalJudge) -> None:
    """The local judge is named and versioned like any judge and spends no LLM calls or tokens."""
    result = run(judge, "What is the capital of France?", "Paris.", ["Paris is the capital of France."])
    assert (judge.name, judge.prompt_version) == ("local", "local-v1")
    assert (result.judge, result.prompt_version) == ("local", "local-v1")
    assert (result.usage.calls, result.usage.prompt_tokens, result.usage.completion_tokens) == (0, 0, 0)


def test_no_chunks_means_no_support_and_undefined_context_scores(judge: LocalJudge) -> None:
    """Without retrieved chunks every claim is unsupported and context metrics are undefined."""
    result = run(judge, "What is the capital of France?", "Paris is the capital of France.", [])
    assert result.scores.faithfulness == 0.0
    assert result.scores.context_precision is None


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("900 万", [9e6]),
        ("9 million", [9e6]),
        ("30.000 đồng", [30000.0]),
        ("3,5 kg", [3.5]),
        ("۷ روز", [7.0]),
    ],
)
def test_plain_numbers_read_scales_separators_and_persian_digits(text: str, values: list[float]) -> None:
    """The fallback extractor reads 万/million scales, thousands dots, decimal commas, Persian digits."""
    assert [q.value for q in PlainNumbers().extract(text)] == values


def test_invalid_rule_pack_raises_config_error(tmp_path: Path) -> None:
    """A rule file with a bare YAML boolean in a word list is rejected with ConfigError."""
    (tmp_path / "abstention").mkdir()
    text = (RULES / "local_judge.yaml").read_text(encoding="utf-8").replace('"no"', "no")
    (tmp_path / "local_judge.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="quote YAML words"):
        LocalJudge(LocalE5Embedder(), rules_dir=tmp_path)
