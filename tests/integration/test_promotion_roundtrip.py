"""A production failure becomes a golden case: flag, label, promote, reload; it now guards live traffic."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from monitor.cli import main
from monitor.embeddings import LocalE5Embedder
from monitor.golden import GoldenChecker, GoldenMatcher, GoldenSet
from monitor.numeric import NumericRules
from monitor.trace import Trace, validate_trace
from tests.support.banhang import GOLDEN, POLICY

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

VC1 = "Đơn nội thành được giao trong 2 ngày, đơn ngoại thành trong 4 ngày."
BAD = {
    "trace_id": "prod-771",
    "question": "Đơn nội thành giao mất mấy ngày?",
    "retrieved_chunks": [{"chunk_id": "c07", "sections": ["VC-1"], "retrieval_score": 0.82, "text": VC1}],
    "answer": "Đơn nội thành được giao trong 3 ngày. Gọi 0912 345 678 nếu cần.",
    "citations": ["c07"],
    "index_version": "kb-2026-09-chunk200",
}


def _trace(answer: str, question: str = "giao hang noi thanh mat may ngay vay shop") -> Trace:
    return validate_trace({**BAD, "trace_id": "live-1", "question": question, "answer": answer})


def test_promoted_case_matches_live_traffic_and_checks_its_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Promote a flagged case; the reloaded golden set flags a bad answer to a paraphrase, not a good one."""
    store = str(tmp_path / "review.db")
    golden_file = tmp_path / "golden.json"
    shutil.copy(GOLDEN, golden_file)
    src = tmp_path / "prod.jsonl"
    src.write_text(json.dumps(BAD, ensure_ascii=False) + "\n", encoding="utf-8")

    assert main(["replay", str(src), "--store", store, "--dlq", str(tmp_path / "d.jsonl")]) == 0
    assert main(["review", "--store", store, "list", "--format", "json"]) == 0
    listed = json.loads(_last_json(capsys.readouterr().out))
    assert [c["trace_id"] for c in listed] == ["prod-771"]
    assert "0912 345 678" not in json.dumps(listed, ensure_ascii=False)

    assert main(["review", "--store", store, "promote", "prod-771", "--golden", str(golden_file)]) != 0
    assert (
        main(
            [
                "review",
                "--store",
                store,
                "label",
                "prod-771",
                "--verdict",
                "bad",
                "--expected-answer",
                "Đơn nội thành được giao trong 2 ngày.",
                "--sections",
                "VC-1",
            ]
        )
        == 0
    )
    assert main(["review", "--store", store, "promote", "prod-771", "--golden", str(golden_file)]) == 0
    assert main(["review", "--store", store, "promote", "prod-771", "--golden", str(golden_file)]) != 0

    golden = GoldenSet.load([golden_file], POLICY)
    assert any(e.source == "prod-771" for e in golden.entries)
    numeric = NumericRules.load()
    checker = GoldenChecker(GoldenMatcher(golden, LocalE5Embedder()), numeric)
    bad = checker.check(_trace("Đơn nội thành được giao trong 3 ngày."))
    good = checker.check(_trace("Nội thành giao trong 2 ngày nhé."))
    assert bad is not None and good is not None
    assert bad.entry_id == good.entry_id != "q01"
    assert {r for r, _ in bad.flags()} == {"numeric_missing", "numeric_out_of_source"}
    assert good.flags() == []


def _last_json(out: str) -> str:
    start = out.index("[")
    return out[start:]


MISSED = "đồ mặc lên người bị chật, gửi lại shop được trong khoảng thời gian nào, sđt 0912 345 678"
DT1 = "Khách được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng. Hàng phải còn tem, nhãn và hóa đơn."


def test_missed_paraphrase_promoted_as_variant_guards_the_next_one(tmp_path: Path) -> None:
    """A paraphrase q01 missed is promoted as its variant; the next such wording matches and is checked."""
    store = str(tmp_path / "review.db")
    golden_file = tmp_path / "golden.json"
    shutil.copy(GOLDEN, golden_file)
    wrong = {
        "trace_id": "prod-900",
        "question": MISSED,
        "retrieved_chunks": [{"chunk_id": "c01", "sections": ["DT-1"], "retrieval_score": 0.8, "text": DT1}],
        "answer": "Bạn được trả trong 30 ngày.",
        "citations": ["c01"],
    }
    src = tmp_path / "prod.jsonl"
    src.write_text(json.dumps(wrong, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["replay", str(src), "--store", store, "--dlq", str(tmp_path / "d.jsonl")]) == 0
    next_one = "do mac len nguoi chat qua thi gui lai shop trong khoang thoi gian nao a"
    before = GoldenMatcher(GoldenSet.load([golden_file], POLICY))
    assert before.match(MISSED) is None and before.match(next_one) is None

    promote = ["review", "--store", store, "promote", "prod-900", "--golden", str(golden_file)]
    assert main([*promote, "--as-variant", "q01"]) == 1  # not reviewed yet
    assert main(["review", "--store", store, "label", "prod-900", "bad"]) == 0
    assert main([*promote, "--as-variant", "q09"]) == 2  # no such entry
    assert main([*promote, "--as-variant", "q01"]) == 0
    assert main([*promote, "--as-variant", "q01"]) == 1  # already promoted

    written = json.loads(golden_file.read_text(encoding="utf-8"))
    assert written["version"] == 2
    golden = GoldenSet.load([golden_file], POLICY)
    q01 = golden.get("q01")
    assert q01 is not None and len(q01.variants) == 1 and "0912" not in q01.variants[0]
    checker = GoldenChecker(GoldenMatcher(golden), NumericRules.load())
    check = checker.check(_trace("Bạn được trả trong 30 ngày.", question=next_one))
    assert check is not None and check.entry_id == "q01"
    assert {r for r, _ in check.flags()} >= {"numeric_missing"}
