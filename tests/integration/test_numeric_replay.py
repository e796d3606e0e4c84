"""A replay flags fabricated numbers and dropped qualifiers, and leaves correct money shorthands alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

FEE = "Khách đổi ý chịu phí vận chuyển 30.000 đồng. Đơn từ 300.000 đồng được miễn phí vận chuyển."
REFUND = "Tiền hoàn về phương thức thanh toán ban đầu trong 5 ngày làm việc sau khi kho nhận hàng trả."
CASES = {
    "ok-30k": (FEE, "Phí ship khi đổi ý là 30k bạn nhé.", False),
    "ok-30000d": (FEE, "Bạn chịu phí vận chuyển 30.000đ.", False),
    "ok-300000d": (FEE, "Đơn từ 300.000đ được miễn phí vận chuyển.", False),
    "ok-business-days": (REFUND, "Tiền về trong 5 ngày làm việc.", False),
    "bad-fabricated-fee": (FEE, "Phí vận chuyển là 45.000đ.", True),
    "bad-dropped-qualifier": (REFUND, "Tiền sẽ về trong 5 ngày.", True),
    "bad-fabricated-days": (REFUND, "Tiền về trong 10 ngày làm việc.", True),
}


def test_numeric_flags_on_a_replay(tmp_path: Path) -> None:
    """Only the fabricated or qualifier-dropping answers get numeric_unsupported."""
    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {
                    "trace_id": tid,
                    "question": "?",
                    "answer": answer,
                    "retrieved_chunks": [{"chunk_id": "c1", "text": chunk}],
                    "citations": ["c1"],
                },
                ensure_ascii=False,
            )
            + "\n"
            for tid, (chunk, answer, _) in CASES.items()
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    args = [
        "replay",
        str(src),
        "--results",
        str(out),
        "--store",
        str(tmp_path / "r.db"),
        "--dlq",
        str(tmp_path / "d"),
    ]
    assert main(args) == 0
    records = {r["trace_id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    for tid, (_, _, bad) in CASES.items():
        reasons = {f["reason"] for f in records[tid]["flags"]}
        assert ("numeric_unsupported" in reasons) is bad, (tid, records[tid]["numeric"])
    assert records["bad-dropped-qualifier"]["numeric"]["unsupported"][0]["unit"] == "day"
