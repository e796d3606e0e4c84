"""The local judge on the bundled sample: the false positives users saw, and no flag on a correct answer."""

from __future__ import annotations

import asyncio
from importlib.resources import files

import pytest

from monitor.embeddings import LocalE5Embedder
from monitor.exceptions import TraceError
from monitor.flags import FlagRules
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult, judge_input
from monitor.judge.local import LocalJudge
from monitor.judge.support import FEATURES
from monitor.trace import Trace, parse_message

SHIPPING = "Đổi trả do lỗi của BanHang được miễn phí vận chuyển. Khách đổi ý chịu phí vận chuyển 30.000 đồng."
FREE = "Đơn từ 300.000 đồng được miễn phí vận chuyển; đơn nhỏ hơn chịu phí 25.000 đồng."
# The sample's planted wrong answers: numbers that contradict the policy, and 002, which gives everyone
# the 30 days of Plus members (seed 000's incident).
WRONG = {"sample-002", "sample-004", "sample-010", "sample-014", "sample-016", "sample-020", "sample-024"}


@pytest.fixture(scope="module")
def judge() -> LocalJudge:
    return LocalJudge(LocalE5Embedder(), answer_relevance=False)


def run(judge: LocalJudge, question: str, answer: str, chunks: list[str]) -> JudgeResult:
    item = JudgeInput(
        "t", question, answer, tuple(JudgeChunk(f"c{i}", c) for i, c in enumerate(chunks)), "vi"
    )
    return asyncio.run(judge.judge(item))


def _feature(judge: LocalJudge, question: str, answer: str, chunks: list[str], name: str) -> list[float]:
    item = JudgeInput(
        "t", question, answer, tuple(JudgeChunk(f"c{i}", c) for i, c in enumerate(chunks)), "vi"
    )
    return [float(v) for v in judge.measure(item).features[:, FEATURES.index(name)]]


def test_30k_is_the_30_000_dong_of_the_policy(judge: LocalJudge) -> None:
    """ "30k" is read by monitor.numeric as 30.000 đồng: no stray bare 30 makes the number unsupported."""
    question, answer = "Đổi ý có mất phí ship không?", "Nếu đổi ý, bạn chịu phí vận chuyển 30k."
    assert _feature(judge, question, answer, [SHIPPING, FREE], "numbers_bad") == [0.0]
    assert (run(judge, question, answer, [SHIPPING, FREE]).scores.faithfulness or 0.0) >= 0.8
    wrong = run(judge, question, "Nếu đổi ý, bạn chịu phí vận chuyển 50k.", [SHIPPING, FREE])
    assert wrong.scores.faithfulness == 0.0


def test_dong_sign_is_a_unit_not_a_novel_word(judge: LocalJudge) -> None:
    """ "300.000đ" is the policy's "300.000 đồng": the quantity agrees and the "đ" is no invented word."""
    question, answer = "đơn 300k có free ship ko", "Đơn từ 300.000đ được miễn phí vận chuyển."
    assert _feature(judge, question, answer, [FREE, SHIPPING], "numbers_bad") == [0.0]
    assert (run(judge, question, answer, [FREE, SHIPPING]).scores.faithfulness or 0.0) >= 0.8


def test_the_shops_name_is_not_an_invented_fact(judge: LocalJudge) -> None:
    """A trailing "theo chính sách của BanHang" is an attribution, and a name the user wrote is known."""
    chunk = "Thực phẩm, đồ lót và thẻ quà tặng không được đổi trả."
    answer = "Đồ lót không được đổi trả theo chính sách của BanHang."
    assert _feature(judge, "Tôi muốn đổi đồ lót", answer, [chunk], "novel_count") == [0.0]
    assert (run(judge, "Tôi muốn đổi đồ lót", answer, [chunk]).scores.faithfulness or 0.0) >= 0.8
    delivery = "Đơn ngoại thành được giao trong 4 ngày."
    asked = "BanHang giao hàng ngoại thành bao lâu?"
    assert _feature(
        judge, asked, "BanHang giao đơn ngoại thành trong 4 ngày.", [delivery], "novel_count"
    ) == [0.0]
    assert (
        _feature(
            judge,
            "Giao hàng bao lâu?",
            "ShopXYZ giao đơn ngoại thành trong 4 ngày.",
            [delivery],
            "novel_count",
        )[0]
        > 0
    )


def test_an_honest_abstention_pointing_to_support_has_no_claim(judge: LocalJudge) -> None:
    """ "Bạn vui lòng liên hệ CSKH" says where to ask, not a fact: no claim, faithfulness undefined."""
    answer = "Xin lỗi, tài liệu không nói về việc bán vé máy bay. Bạn vui lòng liên hệ CSKH."
    result = run(judge, "Shop có bán vé máy bay không?", answer, [])
    assert result.verdicts.abstained and result.verdicts.claims == ()
    assert result.scores.faithfulness is None
    # a phone number is a fact to check where the chunks state a contact number; where they state none
    # it cannot be checked, like the pointer without one
    hotline = "Gọi tổng đài 1900 1234 để được hỗ trợ."
    numbered = run(judge, "Hỏi gì?", "Gọi 1900 9999 để liên hệ CSKH.", [FREE, hotline])
    assert len(numbered.verdicts.claims) == 1 and not numbered.verdicts.claims[0].supported
    assert run(judge, "Hỏi gì?", "Gọi 1900 9999 để liên hệ CSKH.", [FREE]).verdicts.claims == ()


def test_a_claim_that_drops_the_members_only_condition_is_not_supported(judge: LocalJudge) -> None:
    """ "30 ngày" for everyone, from "Thành viên BanHang Plus ... 30 ngày", is flagged; with the condition
    in the claim or the question, or for the unconditional 7 days, it is not."""
    chunks = [
        "Thành viên BanHang Plus được đổi trả hàng thời trang trong 30 ngày.",
        "Khách được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng.",
    ]
    question = "mua ao ko vua tra dc may ngay"
    dropped = run(judge, question, "Bạn có 30 ngày để đổi trả áo.", chunks)
    assert (dropped.scores.faithfulness or 0.0) < 0.7
    for asked, answer in [
        (question, "Thành viên Plus có 30 ngày để đổi trả."),
        ("Thành viên Plus đổi trả mấy ngày?", "Bạn có 30 ngày để đổi trả."),
        (question, "Bạn có 7 ngày để đổi trả."),
    ]:
        assert (run(judge, asked, answer, chunks).scores.faithfulness or 0.0) >= 0.8, answer


def test_the_bundled_samples_correct_answers_raise_no_low_faithfulness(judge: LocalJudge) -> None:
    """Correct sample answers stay at or above the low_faithfulness threshold, wrong numbers fall under."""
    threshold = FlagRules.load().thresholds()["faithfulness"]
    traces = []
    for line in files("monitor").joinpath("data", "sample_traces.jsonl").read_bytes().splitlines():
        try:
            message = parse_message(line)
        except TraceError:
            continue  # the sample holds poison lines on purpose
        if isinstance(message, Trace):
            traces.append(message)
    assert len(traces) >= 20
    for trace in traces:
        faithfulness = asyncio.run(judge.judge(judge_input(trace))).scores.faithfulness
        if trace.trace_id in WRONG:
            assert faithfulness is not None and faithfulness < threshold, trace.trace_id
        else:
            assert faithfulness is None or faithfulness >= threshold, (trace.trace_id, faithfulness)
