"""End to end: sampled traces get scores in the result records and in the quality histograms."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.app import replay
from monitor.config import load_settings
from monitor.review import open_store
from monitor.sources import sample_path
from tests.support.scripted_llm import Reply, ScriptedLLM, grounding_json, relevance_json

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

CHUNK = "Khách được đổi hoặc trả hàng trong 7 ngày kể từ ngày nhận hàng. Hàng phải còn tem, nhãn và hóa đơn."
TRACES = [
    {
        "trace_id": f"j-{i}",
        "question": "Mua áo mặc không vừa thì được trả trong mấy ngày?",
        "retrieved_chunks": [
            {"chunk_id": "c01", "sections": ["DT-1"], "retrieval_score": 0.86, "text": CHUNK}
        ],
        "answer": "Bạn được đổi hoặc trả trong 7 ngày kể từ ngày nhận hàng.",
        "citations": ["c01"],
        "feedback": {"rating": "negative"} if i == 0 else None,
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-1",
    }
    for i in range(3)
]


def _run(tmp_path: Path, src: Path, **overrides: Any) -> tuple[CollectorRegistry, list[dict[str, Any]]]:
    registry = CollectorRegistry()
    settings = load_settings(
        overrides={
            "source": str(src),
            "sample_all": True,
            "results": str(tmp_path / "out.jsonl"),
            "dlq": str(tmp_path / "dlq.jsonl"),
            "store": str(tmp_path / "review.db"),
            **overrides,
        },
        environ={},
    )
    asyncio.run(replay(settings, registry))
    return registry, [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]


def _write(tmp_path: Path) -> Path:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in TRACES), encoding="utf-8")
    return src


def test_local_judge_scores_every_sampled_trace(tmp_path: Path) -> None:
    """With --sample-all the local judge scores the bundled sample; scores reach results and histograms."""
    registry, out = _run(tmp_path, sample_path())
    judged = [r for r in out if r["judge"] is not None]
    assert judged and len(judged) == len(out)
    assert all(r["judge"]["name"] == "local" and r["judge"]["prompt_version"] for r in judged)
    faithful = [r for r in judged if r["scores"]["faithfulness"] is not None]
    count = sum(
        registry.get_sample_value(
            "ragmon_faithfulness_count",
            {
                "model_id": "gen-model-2026-08",
                "prompt_version": p,
                "index_version": i,
                "judge": "local",
                "sample": "random",
            },
        )
        or 0
        for p in ("rag-answer-v4", "rag-answer-v5")
        for i in ("kb-2026-09-chunk200", "kb-2026-09-25-chunk800")
    )
    assert count == len(faithful) > 0
    build = registry.get_sample_value(
        "ragmon_build_info",
        {"version": "0.1.0", "judge": "local", "judge_prompt": "local-v1", "golden_version": "none"},
    )
    assert build == 1


def test_llm_judge_scores_reach_results_histograms_and_token_counters(tmp_path: Path) -> None:
    """An OpenAI-compatible judge (scripted server on loopback) scores traces; usage is counted per judge."""
    llm = ScriptedLLM()
    llm.on("check an answer", Reply.json(grounding_json([("Đổi trả trong 7 ngày.", True, [1])], [1])))
    llm.on("Write", Reply.json(relevance_json(["Trả áo trong mấy ngày?"] * 3)))
    with llm:
        registry, out = _run(
            tmp_path, _write(tmp_path), judge={"kind": "openai", "url": llm.base_url, "model": "judge-m"}
        )
    assert len(out) == 3
    for record in out:
        assert record["scores"]["faithfulness"] == 1.0
        assert record["scores"]["context_precision"] == 1.0
        assert record["judge"]["name"] == "openai:judge-m" and record["judge"]["calls"] <= 2
    labels = {
        "model_id": "unknown",
        "prompt_version": "rag-answer-v4",
        "index_version": "kb-1",
        "judge": "openai:judge-m",
    }
    assert registry.get_sample_value("ragmon_faithfulness_count", {**labels, "sample": "random"}) == 3
    assert (
        registry.get_sample_value("ragmon_judge_tokens_total", {"judge": "openai:judge-m", "kind": "prompt"})
        or 0
    ) > 0


def test_judge_failure_is_a_flag_and_negative_feedback_still_reaches_review(tmp_path: Path) -> None:
    """A judge that keeps failing yields judge_error; traces are still counted and the bad one is queued."""
    with ScriptedLLM(default=Reply.server_error(500)) as llm:
        registry, out = _run(
            tmp_path,
            _write(tmp_path),
            judge={"kind": "openai", "url": llm.base_url, "model": "judge-m", "max_retries": 0},
        )
    assert registry.get_sample_value("ragmon_traces_total", {"outcome": "ok"}) == 3
    assert all(r["scores"] is None and r["judge"]["error"] for r in out)
    assert all("judge_error" in {f["reason"] for f in r["flags"]} for r in out)
    with open_store(str(tmp_path / "review.db")) as store:
        case = store.get("j-0")
    assert case is not None and "negative_feedback" in case.reasons


def test_late_negative_feedback_keeps_the_stored_verdicts(tmp_path: Path) -> None:
    """A thumbs-down after judging adds negative_feedback to the case without erasing its scores."""
    src = tmp_path / "in.jsonl"
    trace = {**TRACES[1], "answer": "Bạn được trả trong 30 ngày."}
    late = {"type": "feedback", "trace_id": trace["trace_id"], "rating": "negative", "reason": "wrong_info"}
    src.write_text(json.dumps(trace, ensure_ascii=False) + "\n" + json.dumps(late) + "\n", encoding="utf-8")
    llm = ScriptedLLM()
    llm.on("check an answer", Reply.json(grounding_json([("Trả trong 30 ngày.", False, [])], [0])))
    llm.on("Write", Reply.json(relevance_json(["Trả áo trong mấy ngày?"] * 3)))
    with llm:
        registry, _ = _run(tmp_path, src, judge={"kind": "openai", "url": llm.base_url, "model": "judge-m"})
    with open_store(str(tmp_path / "review.db")) as store:
        case = store.get(trace["trace_id"])
    assert case is not None
    assert {"negative_feedback", "low_faithfulness", "numeric_unsupported"} <= set(case.reasons)
    assert case.result["scores"]["faithfulness"] == 0.0
    assert registry.get_sample_value("ragmon_flagged_total", {"reason": "numeric_unsupported"}) == 1
