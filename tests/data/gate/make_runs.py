"""Write the gate fixtures: seed 000's two configurations as the runs a CI harness would record.

    .venv/bin/python tests/data/gate/make_runs.py

Rankings are the seed's hand-built top-5 (tests/data/banhang/policy.json ``seed_top5``); each chunk
carries the sections it contains and their text. Answers are the seed's section 5 answers where it
gives them (q01 both configurations, q03/q04/q05 at chunk-800), otherwise the expected answer in the
assistant's words. Versions: chunk-200 is main (the configuration that ran well), chunk-800 the
Friday deploy (bigger chunks and a new embedding model, so a new index). Ids are given three ways to
cover the pairing rules: ``golden_id`` at the top level, ``metadata.golden_id``, and none (the
question is asked verbatim).
"""

from __future__ import annotations

import json
from pathlib import Path

from monitor.golden import GoldenSet

HERE = Path(__file__).parent
BANHANG = HERE.parent / "banhang"

ANSWERS = {
    ("q01", "chunk-200"): "Bạn được đổi hoặc trả trong 7 ngày kể từ ngày nhận hàng, nhớ giữ tem và hóa đơn.",
    ("q01", "chunk-800"): "Bạn có 30 ngày để đổi trả áo, miễn là hàng còn tem và nhãn.",
    (
        "q02",
        "chunk-200",
    ): "Laptop lỗi do nhà sản xuất được đổi máy mới trong 7 ngày, sau đó bảo hành 12 tháng tại hãng.",
    (
        "q02",
        "chunk-800",
    ): "Máy lỗi nhà sản xuất được đổi mới trong 7 ngày; sau đó bảo hành 12 tháng tại hãng.",
    (
        "q03",
        "chunk-200",
    ): "Tiền hoàn về phương thức thanh toán ban đầu trong 5 ngày làm việc sau khi kho nhận hàng trả.",
    ("q03", "chunk-800"): "Tiền sẽ về tài khoản của bạn trong 5 ngày sau khi kho nhận hàng.",
    ("q04", "chunk-200"): "Có. Khách đổi ý chịu phí vận chuyển 30.000 đồng.",
    ("q04", "chunk-800"): "Có. Nếu đổi ý, bạn chịu phí vận chuyển 30.000 đồng.",
    (
        "q05",
        "chunk-200",
    ): "Không. Điện thoại lỗi được đổi máy mới trong 7 ngày, sau đó bảo hành 12 tháng tại hãng. "
    "Mức 30 ngày chỉ dành cho hàng thời trang của thành viên Plus.",
    ("q05", "chunk-800"): "Không. Điện thoại lỗi được đổi máy mới trong 7 ngày, sau đó bảo hành "
    "12 tháng tại hãng. Mức 30 ngày chỉ dành cho hàng thời trang của thành viên Plus.",
}
VERSIONS = {
    "chunk-200": {
        "model_id": "banhang-answer-2026-07",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-2026-09-c200-e5small",
    },
    "chunk-800": {
        "model_id": "banhang-answer-2026-07",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-2026-09-25-c800-m3",
    },
}


def trace(config: str, entry_id: str, question: str, policy: dict, golden_version: str, n: int) -> dict:
    chunking, sections = policy["chunkings"][config], policy["sections"]
    chunks = [
        {
            "chunk_id": cid,
            "document_id": "chinh-sach-doi-tra",
            "sections": chunking[cid],
            "retrieval_score": round(0.86 - 0.04 * rank, 2),
            "text": " ".join(sections[s] for s in chunking[cid]),
        }
        for rank, cid in enumerate(policy["seed_top5"][config][entry_id])
    ]
    record: dict = {
        "trace_id": f"gate-{config}-{entry_id}",
        "timestamp": f"2026-09-25T16:{n:02d}:00Z",
        "question": question,
        "retrieved_chunks": chunks,
        "answer": ANSWERS[(entry_id, config)],
        "citations": [chunks[0]["chunk_id"]],
        **VERSIONS[config],
        "language": "vi",
        "metadata": {"config": config, "golden_version": golden_version},
    }
    if entry_id in ("q01", "q02", "q03"):
        record["golden_id"] = entry_id
    elif entry_id == "q04":
        record["metadata"]["golden_id"] = entry_id
    return record  # q05: no id, paired by its question


def write_runs(out: Path = HERE) -> list[Path]:
    """Write run-chunk-200.jsonl and run-chunk-800.jsonl into ``out``."""
    policy = json.loads((BANHANG / "policy.json").read_text(encoding="utf-8"))
    golden = GoldenSet.load([BANHANG / "golden.json"])
    paths = []
    for config in ("chunk-200", "chunk-800"):
        rows = [trace(config, e.id, e.question, policy, golden.version, n) for n, e in enumerate(golden, 1)]
        path = out / f"run-{config}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    for path in write_runs():
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
