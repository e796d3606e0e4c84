"""Reference checks on matched traces: seed 000's replay (MRR, hit@1, numbers) and the golden flags."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean
from typing import Any

import msgspec
import pytest

from monitor.embeddings import LocalE5Embedder
from monitor.golden import GoldenChecker, GoldenMatcher, GoldenSet
from monitor.golden.model import GoldenEntry
from monitor.numeric import NumericRules
from monitor.trace import Chunk, Trace

DATA = Path(__file__).parents[1] / "data" / "banhang"
POLICY: dict[str, Any] = json.loads((DATA / "policy.json").read_text(encoding="utf-8"))

# Seed 000 section 5: answers as the assistant gave them under each configuration.
SEED_ANSWERS = {
    ("q01", "chunk-200"): "Bạn được đổi hoặc trả trong 7 ngày kể từ ngày nhận hàng, nhớ giữ tem và hóa đơn.",
    ("q01", "chunk-800"): "Bạn có 30 ngày để đổi trả áo, miễn là hàng còn tem và nhãn.",
    ("q03", "chunk-800"): "Tiền sẽ về tài khoản của bạn trong 5 ngày sau khi kho nhận hàng.",
    ("q04", "chunk-800"): "Có. Nếu đổi ý, bạn chịu phí vận chuyển 30.000 đồng.",
    ("q05", "chunk-800"): "Không. Điện thoại lỗi được đổi máy mới trong 7 ngày, sau đó bảo hành "
    "12 tháng tại hãng. Mức 30 ngày chỉ dành cho hàng thời trang của thành viên Plus.",
}


@pytest.fixture(scope="module")
def golden() -> GoldenSet:
    return GoldenSet.load([DATA / "golden.json"], sections_path=DATA / "policy.json")


@pytest.fixture(scope="module")
def embedder() -> LocalE5Embedder:
    return LocalE5Embedder()


@pytest.fixture(scope="module")
def numeric() -> NumericRules:
    return NumericRules.load()


@pytest.fixture(scope="module")
def checker(golden: GoldenSet, embedder: LocalE5Embedder, numeric: NumericRules) -> GoldenChecker:
    return GoldenChecker(GoldenMatcher(golden, embedder), numeric)


def chunk(config: str, chunk_id: str) -> Chunk:
    sections = POLICY["chunkings"][config][chunk_id]
    text = " ".join(POLICY["sections"][s] for s in sections)
    return Chunk(chunk_id=chunk_id, sections=tuple(sections), text=text)


def seed_trace(golden: GoldenSet, config: str, qid: str, question: str | None = None) -> Trace:
    entry = golden.get(qid)
    assert entry is not None
    return Trace(
        trace_id=f"{config}-{qid}",
        question=question or entry.question,
        answer=SEED_ANSWERS.get((qid, config), entry.expected_answer or ""),
        retrieved_chunks=tuple(chunk(config, c) for c in POLICY["seed_top5"][config][qid]),
        index_version=config,
    )


@pytest.mark.parametrize(("config", "mrr", "hit1"), [("chunk-200", 0.90, 0.80), ("chunk-800", 0.633, 0.40)])
def test_seed_replay_mrr_and_hit_at_1(
    golden: GoldenSet, checker: GoldenChecker, config: str, mrr: float, hit1: float
) -> None:
    """Replaying the seed's rankings gives MRR@5 0.90 vs 0.63 and hit@1 0.80 vs 0.40."""
    checks = [checker.check(seed_trace(golden, config, e.id)) for e in golden]
    assert all(c is not None for c in checks)
    assert [c.entry_id for c in checks if c] == ["q01", "q02", "q03", "q04", "q05"]
    assert mean(c.reciprocal_rank or 0.0 for c in checks if c) == pytest.approx(mrr, abs=1e-3)
    assert mean(bool(c.hit_at_1) for c in checks if c) == pytest.approx(hit1)
    assert all(c.hit_at_k and c.recall_at_k == 1.0 for c in checks if c)


def test_q05_hit_recall_and_ndcg(golden: GoldenSet, checker: GoldenChecker) -> None:
    """q05: hit@1 = 1 and recall@1 = 0.5 at chunk-200; nDCG@5 ≈ 0.92 at chunk-800."""
    small = checker.check(seed_trace(golden, "chunk-200", "q05"))
    large = checker.check(seed_trace(golden, "chunk-800", "q05"))
    assert small is not None and small.retrieval is not None
    assert small.hit_at_1 is True and small.retrieval.recall_at[1] == 0.5
    assert large is not None and large.retrieval is not None
    assert large.retrieval.ndcg_at_k == pytest.approx(0.92, abs=0.005)
    assert large.first_hit_rank == 1


@pytest.mark.parametrize(
    ("qid", "config", "flags"),
    [
        ("q01", "chunk-200", []),
        ("q01", "chunk-800", [("numeric_missing", "7 ngày"), ("numeric_out_of_source", "30 ngày")]),
        ("q03", "chunk-800", [("numeric_missing", "5 ngày làm việc"), ("numeric_out_of_source", "5 ngày")]),
        ("q04", "chunk-800", []),
        ("q05", "chunk-800", []),
    ],
)
def test_seed_numeric_table(
    golden: GoldenSet, checker: GoldenChecker, qid: str, config: str, flags: list[tuple[str, str]]
) -> None:
    """Seed 000's numeric table: q01 and q03 at chunk-800 fail both ways, the rest pass."""
    check = checker.check(seed_trace(golden, config, qid))
    assert check is not None
    raised = [(reason, detail) for reason, detail in check.flags() if reason.startswith("numeric_")]
    assert [reason for reason, _ in raised] == [reason for reason, _ in flags]
    for (_, detail), (_, quantity) in zip(raised, flags, strict=True):
        assert f"{qid}: " in detail and quantity in detail


def test_paraphrased_question_gets_the_same_checks(golden: GoldenSet, checker: GoldenChecker) -> None:
    """An unaccented, abbreviated q01 at chunk-800 is matched and fails the same way as the original."""
    check = checker.check(
        seed_trace(golden, "chunk-800", "q01", question="ao mac ko vua dc tra trong bn ngay")
    )
    assert check is not None and check.entry_id == "q01" and check.similarity < 1.0
    assert check.first_hit_rank == 3
    assert check.numeric_missing == ["7 ngày"] and check.numeric_out_of_source == ["30 ngày"]


def test_retrieval_miss_and_unlabelled_chunks(golden: GoldenSet, checker: GoldenChecker) -> None:
    """No expected section in the top k flags golden_retrieval_miss; unlabelled chunks measure nothing."""
    entry = golden.get("q03")
    assert entry is not None
    missed = Trace(
        trace_id="t1",
        question=entry.question,
        answer="Trong 5 ngày làm việc.",
        retrieved_chunks=(chunk("chunk-200", "c07"), chunk("chunk-200", "c01")),
    )
    check = checker.check(missed)
    assert check is not None and check.first_hit_rank is None and check.reciprocal_rank == 0.0
    assert [reason for reason, _ in check.flags()] == ["golden_retrieval_miss"]
    unlabelled = msgspec.structs.replace(missed, retrieved_chunks=(Chunk(text="x"),))
    check = checker.check(unlabelled)
    assert check is not None and check.retrieval is None and check.flags() == []
    assert check.as_dict()["reciprocal_rank"] is None


def test_unmatched_question_is_not_checked(checker: GoldenChecker) -> None:
    """A question that matches no golden entry gets no golden block."""
    trace = Trace(trace_id="t2", question="Thẻ quà tặng có được đổi trả không?", answer="Không.")
    assert checker.check(trace) is None


@pytest.fixture(scope="module")
def abstain_checker(
    tmp_path_factory: pytest.TempPathFactory, embedder: LocalE5Embedder, numeric: NumericRules
) -> GoldenChecker:
    entry = {
        "id": "oos-1",
        "question": "Shop có bán vé máy bay không?",
        "reference_answer": "Tài liệu không nói về vé máy bay.",
        "answerable": False,
        "expected_behavior": "abstain",
    }
    path = tmp_path_factory.mktemp("golden") / "oos.json"
    path.write_text(json.dumps([entry], ensure_ascii=False), encoding="utf-8")
    golden = GoldenSet.load([path])
    return GoldenChecker(GoldenMatcher(golden, embedder), numeric)


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("Có, vé máy bay giá 1.200.000 đồng.", True),
        ("Xin lỗi, tài liệu không nói về việc bán vé máy bay.", False),
        ("xin loi, toi khong co thong tin ve ve may bay", False),
    ],
)
def test_unanswerable_entry_expects_abstention(
    abstain_checker: GoldenChecker, answer: str, flagged: bool
) -> None:
    """An unanswerable entry flags should_abstain unless the answer abstains (accents optional)."""
    trace = Trace(trace_id="t3", question="shop co ban ve may bay ko", answer=answer)
    check = abstain_checker.check(trace)
    assert check is not None and check.numeric is None
    assert check.should_abstain is flagged
    assert ("should_abstain" in [reason for reason, _ in check.flags()]) is flagged


def test_as_dict_is_the_result_golden_block(golden: GoldenSet, checker: GoldenChecker) -> None:
    """The golden block carries the stable keys and is JSON-serializable."""
    check = checker.check(seed_trace(golden, "chunk-800", "q01"))
    assert check is not None
    block = check.as_dict()
    assert {"id", "similarity", "first_hit_rank", "reciprocal_rank", "recall_at_k"} <= set(block)
    assert block["id"] == "q01" and block["first_hit_rank"] == 3 and block["hit_at_1"] is False
    assert block["reciprocal_rank"] == pytest.approx(1 / 3)
    assert block["numeric"] == {"missing": ["7 ngày"], "out_of_source": ["30 ngày"]}
    assert json.loads(json.dumps(block)) == block


def test_out_of_source_needs_source_text(checker: GoldenChecker, embedder: LocalE5Embedder) -> None:
    """Without any text for the expected sections, answer numbers are not called out of source."""
    golden = GoldenSet.load([DATA / "golden.json"])  # no sections file, no reference_contexts
    bare = GoldenChecker(GoldenMatcher(golden, embedder), checker.numeric)
    check = bare.check(seed_trace(golden, "chunk-800", "q01"))
    assert check is not None
    assert check.numeric_missing == ["7 ngày"] and check.numeric_out_of_source == []


RESULTS = (
    "XN-1. Kết quả xét nghiệm máu của gói khám VIP được trả trong 2 giờ. "
    "Với các gói khám khác, kết quả được trả trong 24 giờ."
)
FASTING = "XN-3. Trước khi xét nghiệm đường huyết hoặc mỡ máu, bệnh nhân cần nhịn ăn ít nhất 8 tiếng."
PENALTY = "HD-1. Phí phạt chấm dứt hợp đồng trước hạn là 200 nghìn đồng."
PLAN = "GC-1. Gói cơ bản có giá 150 nghìn đồng mỗi tháng."


@pytest.mark.parametrize(
    ("expected", "chunks", "question", "answer", "missing", "outside"),
    [
        # asked and answered about the fasting sentence, not the entry's blood test results: a near miss
        (
            ("XN-1", RESULTS, "Kết quả xét nghiệm máu được trả trong 24 giờ."),
            [("XN-1", RESULTS), ("XN-3", FASTING)],
            "truoc khi xet nghiem mau co can nhin an khong, nhin bao lau",
            "Trước khi xét nghiệm đường huyết hoặc mỡ máu, bạn cần nhịn ăn ít nhất 8 tiếng.",
            [],
            [],
        ),
        # asked about fasting (the entry), answered with the results sentence's wording and its 2 giờ:
        # the answer copies a neighbour's words, the question decides, and the wrong number stays
        (
            ("XN-3", FASTING, "Bạn cần nhịn ăn ít nhất 8 tiếng trước khi xét nghiệm."),
            [("XN-3", FASTING), ("XN-1", RESULTS)],
            "trước khi xét nghiệm mỡ máu phải nhịn ăn bao lâu",
            "Với gói khám VIP, trước khi xét nghiệm máu bạn cần nhịn ăn 2 giờ.",
            ["8 tiếng"],
            ["2 giờ"],
        ),
        # the entry's own wording is closer (the penalty), the plan's 150 nghìn is a wrong number
        (
            ("HD-1", PENALTY, "Phí phạt chấm dứt hợp đồng trước hạn là 200 nghìn đồng."),
            [("HD-1", PENALTY), ("GC-1", PLAN)],
            "phí phạt chấm dứt hợp đồng trước hạn bao nhiêu",
            "Phí phạt chấm dứt hợp đồng là 150 nghìn đồng.",
            ["200 nghìn đồng"],
            ["150 nghìn đồng"],
        ),
        # a thousands mark is no sentence end: the plan's "1.500.000 đồng" is read whole, and asked about
        (
            ("HD-1", "HD-1. Phí phạt chấm dứt hợp đồng là 200.000 đồng.", "Phí phạt là 200.000 đồng."),
            [
                ("HD-1", "HD-1. Phí phạt chấm dứt hợp đồng là 200.000 đồng."),
                ("GC-2", "GC-2. Gói gia đình có giá 1.500.000 đồng mỗi năm."),
            ],
            "gói gia đình giá bao nhiêu một năm",
            "Gói gia đình có giá 1.500.000 đồng mỗi năm.",
            [],
            [],
        ),
    ],
)
def test_a_value_another_section_answers_better_is_no_contradiction(
    numeric: NumericRules,
    embedder: LocalE5Embedder,
    golden: GoldenSet,
    expected: tuple[str, str, str],
    chunks: list[tuple[str, str]],
    question: str,
    answer: str,
    missing: list[str],
    outside: list[str],
) -> None:
    """A value a sentence of another section states, when the answer's sentence is closer to it than to
    the entry's expected answer and the question closer to it than to the entry, is no contradiction nor
    out of source; a closer entry, or a question about the entry, keeps both."""
    section, text, reference = expected
    entry = GoldenEntry(
        id="x1", question=reference, expected_answer=reference, expected_sections=(section,),
        expected_sources_text=(text,),
    )  # fmt: skip
    trace = Trace(
        trace_id="t",
        question=question,
        answer=answer,
        retrieved_chunks=tuple(Chunk(chunk_id=s, sections=(s,), text=t) for s, t in chunks),
    )
    check = GoldenChecker(GoldenMatcher(golden, embedder), numeric).evaluate(entry, trace)
    assert check.numeric_missing == missing
    assert check.numeric_out_of_source == outside
