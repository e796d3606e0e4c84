"""The local judge on the seed examples, abstention packs and rule loading, with the real e5 model."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.embeddings import Kind, LocalE5Embedder, Vectors
from monitor.exceptions import ConfigError
from monitor.judge.base import ClaimVerdict, JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.claims import split_claims
from monitor.judge.local import (
    Antonyms,
    LocalJudge,
    PlainNumbers,
    anchoring,
    pair_coverage,
    ranking_score,
    unit_sequence,
    word_pairs,
)
from monitor.judge.support import FEATURES

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
    """Each case gets the faithfulness (within 0.2: claims count by their support probability, so 1.0
    means "not flagged" and 0.0 "critical"), chunk verdicts and context precision its case file states."""
    result = run(judge, case["question"], case["answer"], case["chunks"])
    assert result.scores.faithfulness == pytest.approx(case["faithfulness"], abs=0.2)
    if "chunk_useful" in case:
        assert list(result.verdicts.chunk_useful) == case["chunk_useful"]
    if "context_precision" in case:
        assert result.scores.context_precision == pytest.approx(case["context_precision"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_invented_claim_halves_faithfulness_and_leaves_context_precision(
    judge: LocalJudge, lang: str
) -> None:
    """Seed 002 step 5: the invented population claim (a number in no chunk: support 0) halves
    faithfulness, precision unchanged."""
    plain, invented = (c for c in CASES if c["name"].startswith(f"france_{lang}"))
    before = run(judge, plain["question"], plain["answer"], plain["chunks"])
    after = run(judge, invented["question"], invented["answer"], invented["chunks"])
    assert before.scores.faithfulness is not None and before.scores.faithfulness >= 0.8
    assert after.verdicts.claims[1].score == 0.0
    assert after.scores.faithfulness == pytest.approx((after.verdicts.claims[0].score or 0.0) / 2)
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


class CountingEmbedder(LocalE5Embedder):
    """The real e5 embedder, recording what each ``embed`` call asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        self.calls.append((kind, tuple(texts)))
        return super().embed(texts, kind)


def test_every_claim_gets_a_support_score_consistent_with_its_verdict(judge: LocalJudge) -> None:
    """Each claim carries a score in [0, 1]; it is supported exactly when the score reaches the threshold."""
    for case in CASES:
        result = run(judge, case["question"], case["answer"], case["chunks"])
        for claim in result.verdicts.claims:
            assert claim.score is not None and 0.0 <= claim.score <= 1.0
            assert claim.supported == (claim.score >= judge.rules.model.threshold)


def test_ranking_score_breaks_faithfulness_ties_by_support(judge: LocalJudge) -> None:
    """Two fully faithful answers: the one reworded away from the context ranks below the copied one."""
    chunks = CASES[0]["chunks"]
    copied = run(judge, "What is the capital of France?", "Paris is the capital of France.", chunks)
    reworded = run(judge, "What is the capital of France?", "Paris has been the capital of France.", chunks)
    assert copied.scores.faithfulness > reworded.scores.faithfulness >= 0.8  # both unflagged
    copied_rank, reworded_rank = (ranking_score(r.verdicts.claims) for r in (copied, reworded))
    assert copied_rank is not None and reworded_rank is not None
    assert copied_rank > reworded_rank
    assert ranking_score(()) is None


def test_ranking_score_orders_by_faithfulness_first() -> None:
    """A higher faithfulness always ranks higher, whatever the claims' support scores."""
    weak_but_supported = (ClaimVerdict("a", True, (), 0.61), ClaimVerdict("b", True, (), 0.61))
    strong_but_half = (ClaimVerdict("a", True, (), 1.0), ClaimVerdict("b", False, (), 0.59))
    assert (ranking_score(weak_but_supported) or 0) > (ranking_score(strong_but_half) or 0)


def test_one_passage_batch_and_one_query_per_trace() -> None:
    """A trace of several claims costs one passage embed call (the answer's opening) and one query call
    (the question); a one-claim answer adds one query call, its best chunk sentence (``answer_similarity``),
    and its opening is embedded once for both."""
    embedder = CountingEmbedder()
    judge = LocalJudge(embedder)
    chunks = CASES[0]["chunks"]
    run(judge, "What is in cookies?", "Cookies contain flour and butter. They are baked in an oven.", chunks)
    assert [kind for kind, _ in embedder.calls] == ["passage", "query"]
    embedder.calls.clear()
    run(judge, "What is in cookies?", "Cookies contain flour and butter, and they are baked.", chunks)
    assert [kind for kind, _ in embedder.calls] == ["passage", "query", "query"]


def test_claims_are_not_embedded() -> None:
    """Support is lexical and numeric: only the answer's opening is embedded (answer relevance)."""
    embedder = CountingEmbedder()
    judge = LocalJudge(embedder)
    answer = "Paris is the capital of France, and its population is about 9 million."
    result = run(judge, "What is the capital of France?", answer, CASES[0]["chunks"])
    assert [c.supported for c in result.verdicts.claims] == [True, False]
    passages = next(texts for kind, texts in embedder.calls if kind == "passage")
    assert not any(claim.text in passages for claim in result.verdicts.claims)


def test_negation_elsewhere_in_a_long_sentence_does_not_contradict(judge: LocalJudge) -> None:
    """Polarity is read in the clause that matches the claim, and "nor'easter" holds no "nor"."""
    chunk = "The store is not open on Sundays, but shipping is free for orders over 50 dollars."
    result = run(judge, "Is shipping free?", "Shipping is free for orders over 50 dollars.", [chunk])
    assert result.scores.faithfulness >= 0.8
    storm = run(judge, "What hit?", "A nor'easter hit the coast.", ["A nor'easter hit the coast in 1992."])
    assert storm.scores.faithfulness >= 0.8
    flipped = run(judge, "Is shipping free?", "Shipping is not free for orders over 50 dollars.", [chunk])
    assert flipped.scores.faithfulness == 0.0


def features(judge: LocalJudge, answer: str, chunks: list[str], question: str = "q") -> dict[str, float]:
    item = JudgeInput(
        "t-1", question, answer, tuple(JudgeChunk(f"c{i + 1}", c) for i, c in enumerate(chunks))
    )
    row = judge.measure(item).features[0]
    return {name: float(value) for name, value in zip(FEATURES, row, strict=True)}


def test_vietnamese_words_that_fold_to_a_negation_cue_do_not_negate(judge: LocalJudge) -> None:
    """With its diacritics "áp dụng" (apply) is not "đừng" (don't) nor "chùa" "chưa": no polarity
    mismatch; typed without diacritics, "chua" still negates."""
    chunk = "Chính sách này không áp dụng cho hàng giảm giá."
    copied = features(judge, "Chính sách này không áp dụng cho hàng giảm giá.", [chunk])
    assert copied["mismatch"] == 0.0 and copied["flip"] == 0.0
    applied = features(judge, "Chính sách này áp dụng cho hàng giảm giá.", [chunk])
    assert applied["flip"] == 1.0
    assert features(judge, "Đơn hàng đã được giao.", ["Đơn hàng chưa được giao."])["mismatch"] == 1.0
    assert features(judge, "don hang da duoc giao", ["don hang chua duoc giao"])["mismatch"] == 1.0


def test_numbers_after_a_cjk_character_are_read(judge: LocalJudge) -> None:
    """ "は9日" holds the number 9 (the old rule wanted no word character before it), full-width too."""
    assert [q.value for q in PlainNumbers().extract("調査団は9日、３兆ドル、共39人")] == [9.0, 3.0, 39.0]
    chunk = "調査団は10日、武漢を訪問した。"
    assert features(judge, "調査団は9日、武漢を訪問した。", [chunk])["numbers_bad"] == 1.0
    assert features(judge, "調査団は10日、武漢を訪問した。", [chunk])["numbers_bad"] == 0.0


@pytest.mark.parametrize(
    ("answer", "chunk"),
    [
        ("Thử nghiệm hiệu quả là bước cuối cùng.", "Thử nghiệm hiệu quả là bước đầu tiên."),
        ("Sales decreased in 2020.", "Sales increased in 2020."),
        ("今年价格下降了。", "今年价格上升了。"),
        ("輸出が増加した。", "輸出が減少した。"),
    ],
)
def test_an_antonym_of_the_chunks_word_caps_the_claim(judge: LocalJudge, answer: str, chunk: str) -> None:
    """A claim saying the opposite word of the chunk's (and not the chunk's word) is capped (`decided`)."""
    assert features(judge, answer, [chunk])["antonym"] == 1.0
    assert features(judge, chunk, [chunk])["antonym"] == 0.0
    claim = run(judge, "q", answer, [chunk]).verdicts.claims[0]
    assert claim.score is not None and claim.score <= judge.scaled(judge.rules.decided["antonym"])


def test_antonym_entries_must_be_pairs() -> None:
    """An antonym entry without its '/' is a configuration error, not a silent no-op."""
    with pytest.raises(ConfigError, match="word/opposite"):
        Antonyms.from_rules({"en": ["increase"]})


def test_added_negation_and_novel_names_are_measured(judge: LocalJudge) -> None:
    """A negation no chunk holds, and name-like runs no chunk holds (katakana, ideographs, words)."""
    chunk = "WHOの調査団は武漢を訪問した。"
    added = features(judge, "WHOの調査団は武漢を訪問しなかった。", [chunk])
    assert added["negation_added"] == 1.0
    copied = features(judge, "WHOの調査団は武漢を訪問した。", [chunk])
    assert copied["negation_added"] == 0.0 and copied["names_novel"] == 0.0
    assert features(judge, "アンダーセン基地の調査団は武漢を訪問した。", [chunk])["names_novel"] > 0.0
    asked = features(judge, "BanHang ships free.", ["Shipping is free."], question="Does BanHang ship free?")
    assert asked["names_novel"] == features(judge, "Ships free.", ["Shipping is free."])["names_novel"] > 0


def test_thousands_separators_do_not_split_claims() -> None:
    """ "1,500,000" is one number, not an enumeration of three claims."""
    assert [c.text for c in split_claims("The stadium cost 1,500,000 dollars.", "en")] == [
        "The stadium cost 1,500,000 dollars"
    ]


def test_word_pairs_missing_from_the_context_lower_the_score(judge: LocalJudge) -> None:
    """A short answer recombining context words ("Scandinavian Union") scores below the copied phrase."""
    chunk = "Christian I was a Scandinavian monarch under the Kalmar Union."
    question = "Under which union did Christian I rule?"
    copied = run(judge, question, "the Kalmar Union", [chunk]).verdicts.claims[0]
    recombined = run(judge, question, "the Scandinavian Union", [chunk]).verdicts.claims[0]
    assert copied.supported and copied.score is not None and recombined.score is not None
    assert copied.score > recombined.score
    pairs = word_pairs(unit_sequence(chunk))
    assert pair_coverage(unit_sequence("the Kalmar Union"), pairs) == 1.0
    assert pair_coverage(unit_sequence("the Scandinavian Union"), pairs) == 0.0  # "the scandinavian" too


def test_anchoring_is_relative_to_the_best_place_for_the_question() -> None:
    """A claim in the window holding most question words anchors at 1.0; elsewhere lower; no question 1.0."""
    windows = [{"voice", "mowgli", "osment"}, {"credits", "goodman"}]
    question = {"voice", "mowgli"}
    assert anchoring({"osment"}, question, windows, [0]) == 1.0
    assert anchoring({"goodman"}, question, windows, [1]) == 0.0
    assert anchoring({"goodman"}, set(), windows, [1]) == 1.0


def test_a_supported_paraphrase_names_the_chunk_it_rests_on(judge: LocalJudge) -> None:
    """A claim that restates a chunk in other words (spelled numbers, a polite opening) and is found
    supported names that chunk, so context relevance and precision are not 0 for a correct answer."""
    result = run(
        judge,
        "bao lâu thì hàng tới tay vậy shop",
        "Tùy địa chỉ ạ: nội thành hai ngày, ngoại thành bốn ngày.",
        [
            "VC-1. Đơn trong nội thành được giao trong 2 ngày; đơn ngoại thành cần 4 ngày.",
            "DT-5. Đổi trả vì lỗi của BanHang thì khách không mất phí vận chuyển.",
        ],
    )
    assert all(c.supported for c in result.verdicts.claims)
    assert result.verdicts.chunk_useful == (True, False)
    assert result.scores.context_precision == 1.0


def test_a_polite_particle_ends_a_sentence_and_its_claim_is_judged(judge: LocalJudge) -> None:
    """Vietnamese chat ends sentences with "ạ." (not an initial): the claim before a support-contact
    sentence is still a claim, and it is supported by the chunk it restates."""
    result = run(
        judge,
        "hoàn tiền trả hàng mấy ngày mới có",
        "Dạ trong vòng năm ngày làm việc sau khi kho nhận hàng ạ. "
        "Quá hạn chưa thấy tiền, bạn liên hệ CSKH nhé.",
        [
            "Tiền hoàn được chuyển về phương thức thanh toán ban đầu trong 5 ngày làm việc, "
            "tính từ lúc kho nhận được hàng trả."
        ],
    )
    assert [c.supported for c in result.verdicts.claims] == [True]
    assert result.verdicts.chunk_useful == (True,)


@pytest.mark.parametrize(
    ("question", "unreadable"),
    [
        ("bao hanh pin dien thoai bao lau vay", True),
        ("doi size ao duoc khong", True),
        ("Bảo hành pin bao lâu?", False),
        ("may I return the item in the shop", False),
        ("my plan ran out of data what now", False),
    ],
)
def test_answer_relevance_is_left_undefined_where_e5_cannot_read_the_question(
    judge: LocalJudge, question: str, unreadable: bool
) -> None:
    """Vietnamese typed without diacritics: e5-small's cosine does not separate an on-topic answer
    from an off-topic one there, so relevance is undefined (no low_answer_relevance flag), not guessed."""
    assert judge.rules.unreadable(question) is unreadable
    result = run(judge, question, "Pin được bảo hành 6 tháng.", ["Pin được bảo hành 6 tháng."])
    assert (result.scores.answer_relevance is None) is unreadable


def test_an_opening_particle_answers_the_question_and_does_not_negate_the_claim(judge: LocalJudge) -> None:
    """ "Không bạn nhé, ..." answers a yes/no question: the claim after it is measured without it (no
    polarity flip against the chunk it restates), and "Không ạ." alone is no claim."""
    rules = judge.rules
    assert rules.opening("Không bạn nhé, khách không mất phí vận chuyển") == "khách không mất phí vận chuyển"
    assert rules.opening("Khách hàng, bạn có 7 ngày") == "Khách hàng, bạn có 7 ngày"
    assert not rules.is_claim("Không ạ") and rules.is_claim("Không, điện thoại chỉ được 7 ngày")
    chunks = [
        "VC-1. Đơn trong nội thành được giao trong 2 ngày; đơn ngoại thành cần 4 ngày.",
        "DT-5. Đổi trả vì lỗi của BanHang thì khách không mất phí vận chuyển. "
        "Khách đổi ý thì tự chịu phí vận chuyển 30.000 đồng.",
    ]
    result = run(
        judge,
        "Đơn bị giao sai sản phẩm, gửi trả có mất phí không?",
        "Không bạn nhé, đổi trả vì lỗi của BanHang thì khách không mất phí vận chuyển.",
        chunks,
    )
    assert [c.supported for c in result.verdicts.claims] == [True]
    result = run(
        judge, "Đổi ý trả hàng có mất phí không?", "Không ạ. Khách đổi ý tự chịu phí 30.000 đồng.", chunks
    )
    assert [c.text for c in result.verdicts.claims] == ["Khách đổi ý tự chịu phí 30.000 đồng"]


def test_a_section_label_before_a_negated_sentence_does_not_flip_its_copy(judge: LocalJudge) -> None:
    """ "DT-5." is a sentence of its own whose window holds the next one: a claim copying that negated
    next sentence ties with the label and must be read against the sentence, not the label."""
    result = run(
        judge,
        "gửi trả hàng lỗi có mất phí không",
        "Đổi trả vì lỗi của BanHang thì khách không mất phí vận chuyển.",
        ["DT-5. Đổi trả vì lỗi của BanHang thì khách không mất phí vận chuyển. Khách đổi ý thì tự chịu phí."],
    )
    assert [c.supported for c in result.verdicts.claims] == [True]
    assert result.scores.faithfulness is not None and result.scores.faithfulness >= 0.8


@pytest.mark.parametrize(
    ("claim", "chunk", "added"),
    [
        ("San pham khong duoc doi tra.", "Sản phẩm không được đổi trả.", 0.0),  # typed without diacritics
        ("Sản phẩm không được đổi trả.", "San pham khong duoc doi tra.", 0.0),  # the context typed so
        ("Sản phẩm không được đổi trả.", "Sản phẩm không được đổi trả.", 0.0),
        ("Đừng đổi trả sản phẩm.", "Chính sách áp dụng cho sản phẩm đổi trả.", 1.0),  # 'áp dụng' is no 'đừng'
        ("San pham khong duoc doi tra.", "Sản phẩm được đổi trả.", 1.0),
    ],
)
def test_a_negation_is_held_whichever_side_lacks_diacritics(
    judge: LocalJudge, claim: str, chunk: str, added: float
) -> None:
    assert features(judge, claim, [chunk])["negation_added"] == added


VI_CHUNKS = [
    "DT-4. Tiền hoàn được chuyển về phương thức thanh toán ban đầu trong 5 ngày làm việc sau khi kho nhận.",
    "DT-1. Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm.",
]


def test_an_answer_in_another_language_without_a_number_has_undefined_support(judge: LocalJudge) -> None:
    """An English answer over Vietnamese chunks shares no words with them: no claim can be judged, so
    faithfulness and context relevance are undefined (no flag), not the low score of novel words."""
    result = run(judge, "when does the refund arrive?", "The refund goes back to your card.", VI_CHUNKS)
    assert result.verdicts.claims == ()
    assert result.verdicts.chunk_useful == ()
    assert result.scores.faithfulness is None
    assert result.scores.context_relevance is None
    assert result.scores.context_precision is None
    assert result.scores.answer_relevance is not None  # question and answer share a language


def test_an_answer_in_another_language_is_judged_by_its_numbers(judge: LocalJudge) -> None:
    """Across languages a claim holding a number is supported when monitor.numeric finds its quantities
    in a chunk (which is then useful) and unsupported when no chunk holds them; claims without a
    number are left out."""
    right = run(
        judge,
        "when does the refund arrive?",
        "Within 5 business days after the warehouse receives the item. It goes back to your card.",
        VI_CHUNKS,
    )
    assert [(c.supported, c.chunk_ids) for c in right.verdicts.claims] == [(True, ("c1",))]
    assert right.scores.faithfulness == 1.0
    assert right.verdicts.chunk_useful == (True, False)
    wrong = run(
        judge,
        "when does the refund arrive?",
        "Within 9 business days after the warehouse gets it.",
        VI_CHUNKS,
    )
    assert [(c.supported, c.chunk_ids) for c in wrong.verdicts.claims] == [(False, ())]
    assert wrong.scores.faithfulness == 0.0
    zh = run(judge, "退款几天到账？", "仓库收货后5个工作日内退款。", VI_CHUNKS)
    assert zh.scores.faithfulness == 1.0


def test_cross_language_lexical_setting_measures_every_answer_alike(tmp_path: Path) -> None:
    """``cross_language: {check: lexical}`` reads an answer over foreign chunks with the support model,
    as for any answer; an unknown check is a ConfigError."""
    shutil.copytree(RULES, tmp_path / "rules")
    path = tmp_path / "rules" / "local_judge.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  check: numbers", "  check: lexical"), encoding="utf-8")
    lexical = LocalJudge(LocalE5Embedder(), rules_dir=tmp_path / "rules")
    result = run(lexical, "when does the refund arrive?", "The refund goes back to your card.", VI_CHUNKS)
    assert len(result.verdicts.claims) == 1 and result.scores.faithfulness is not None
    path.write_text(text.replace("  check: numbers", "  check: guess"), encoding="utf-8")
    with pytest.raises(ConfigError, match="cross_language.check"):
        LocalJudge(LocalE5Embedder(), rules_dir=tmp_path / "rules")


def test_an_answer_in_the_chunks_language_is_still_read_word_by_word(judge: LocalJudge) -> None:
    """A Vietnamese answer typed without diacritics is in the chunks' language: the support model reads it."""
    result = run(judge, "tien hoan bao lau", "Tien hoan duoc chuyen ve trong 5 ngay lam viec.", VI_CHUNKS)
    assert result.verdicts.claims[0].score is not None
    assert result.verdicts.chunk_useful == (True, False)


def _dropped(judge: LocalJudge, question: str, answer: str, chunk: str, language: str | None = None) -> float:
    item = JudgeInput("t-1", question, answer, (JudgeChunk("c1", chunk),), language)
    return float(judge.measure(item).features[0, FEATURES.index("condition_dropped")])


def test_condition_words_are_read_in_the_language_of_the_trace(judge: LocalJudge) -> None:
    """ "plus" is a Vietnamese tier name and the English "and": an English claim is not capped for the
    chunk's "plus any instalments", while a Vietnamese claim over the members-only sentence still is."""
    fee = "Contract customers who cancel within the first 12 months pay a fee of $60, plus any instalments."
    said = "Contract customers in their first 12 months pay a $60 fee."
    assert _dropped(judge, "cancel fee?", said, fee, "en") == 0.0
    assert run(judge, "cancel fee?", said, [fee]).verdicts.claims[0].supported
    plus = (
        "Khách hàng được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng. "
        "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
    )
    general = "Hàng thời trang được đổi hoặc trả trong 30 ngày."
    assert _dropped(judge, "đổi trả mấy ngày", general, plus, "vi") == 1.0
    assert _dropped(judge, "đổi trả mấy ngày", general, plus) == 1.0  # language from the answer


def test_a_negated_claim_drops_no_condition(judge: LocalJudge) -> None:
    """ "Điện thoại không được áp dụng 30 ngày" denies the members' 30 days instead of granting them to
    everyone: not capped (a correct answer was low_faithfulness); the same claim without its negation,
    the hard negative, still is."""
    plus = (
        "Khách hàng được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng. "
        "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
    )
    question = "điện thoại có được đổi trả 30 ngày không"
    assert _dropped(judge, question, "Điện thoại không được áp dụng 30 ngày bạn nhé.", plus, "vi") == 0.0
    assert _dropped(judge, question, "Điện thoại được áp dụng 30 ngày bạn nhé.", plus, "vi") == 1.0


@pytest.mark.parametrize(
    ("answer", "supported"),
    [
        ("The hotline runs 9:00-18:00 daily, holidays included.", True),  # another language, same hours
        ("9:00-18:00，节假日不休息。", True),  # the same language, another way of writing them
        ("The hotline runs 8:00-20:00 daily.", False),
    ],
)
def test_opening_hours_are_read_as_one_clock_range(judge: LocalJudge, answer: str, supported: bool) -> None:
    """ "9:00-18:00" is the policy's "上午9点至下午6点", not the bare numbers 9, 18 and 6 (18 in no chunk)."""
    chunk = "客服热线的服务时间为每天上午9点至下午6点，节假日照常服务。"
    result = run(judge, "hotline hours?", answer, [chunk])
    assert result.scores.faithfulness is not None
    assert (result.scores.faithfulness >= 0.8) is supported
    assert features(judge, answer, [chunk])["numbers_bad"] == (0.0 if supported else 1.0)


TELECOM_RETURNS = (
    "CT-2. You can return a phone bought from Skyline Mobile within 14 days of delivery, provided it is "
    "undamaged. Opened SIM cards cannot be returned. Refunds go back to the original payment method "
    "within 5 business days after the device reaches our warehouse."
)


def test_a_copied_claim_is_not_flipped_by_a_negated_neighbour_of_its_sentence(judge: LocalJudge) -> None:
    """The best window of a refund claim is centred on "Opened SIM cards cannot be returned.", which
    says nothing about refunds: the flip cap needs the sentence holding the claim's words to disagree."""
    answer = (
        "Within 5 business days of your return arriving at our warehouse, to your original payment method."
    )
    assert features(judge, answer, [TELECOM_RETURNS])["flip"] == 0.0
    result = run(judge, "days until refund for a returned phone", answer, [TELECOM_RETURNS])
    assert result.scores.faithfulness is not None and result.scores.faithfulness >= 0.8


def test_a_copied_claim_that_negates_its_own_sentence_is_still_flipped(judge: LocalJudge) -> None:
    """The hard negative: a refund claim that denies the refund sentence, beside a neighbour, is capped."""
    chunk = "Refunds go back to the original payment method within 5 business days. Exchanges are free."
    answer = "Refunds do not go back to the original payment method within 5 business days."
    assert features(judge, answer, [chunk])["flip"] == 1.0
    assert run(judge, "days until refund for a returned phone", answer, [chunk]).scores.faithfulness == 0.0


def test_vietnamese_function_syllables_are_no_content(judge: LocalJudge) -> None:
    """ "rất", "đang", "tôi", "rằng" are stopwords: a claim adding them to a chunk's words adds nothing
    new; a content syllable it adds ("đắt") still counts as novel."""
    chunk = "Vườn thú có nhiều sinh vật."
    padded = features(judge, "Tôi nghĩ rằng vườn thú đang có rất nhiều sinh vật.", [chunk])
    assert padded["novel_count"] == pytest.approx(
        features(judge, "Nghĩ vườn thú có nhiều sinh vật.", [chunk])["novel_count"]
    )
    assert features(judge, "Vườn thú có nhiều sinh vật đắt.", [chunk])["novel_count"] > 0.0


@pytest.mark.parametrize(
    ("claim", "chunk", "bad"),
    [
        ("保証期間は3か月です。", "保証期間は3ヶ月です。", 0.0),  # the same duration in two spellings
        ("保証期間は3か月です。", "保証期間は3年です。", 1.0),  # a month is no year
        ("料金は5万円です。", "料金は50000円です。", 0.0),
        ("感染者は1億人に達した。", "感染者は100000000人に達した。", 0.0),  # 億 is 1e8
        ("感染者は2億600万人に達した。", "感染者は1億600万人に達した。", 1.0),  # 億 is read: 2e8 is no 1e8
    ],
)
def test_japanese_counters_and_currency_are_read(
    judge: LocalJudge, claim: str, chunk: str, bad: float
) -> None:
    """か月/ヶ月, 円 and 億 are read (rules/numeric/ja.yaml, the judge's bare numbers): a claim with
    another quantity than its chunk's is numbers_bad, the same quantity spelled otherwise is not."""
    assert features(judge, claim, [chunk])["numbers_bad"] == bad
