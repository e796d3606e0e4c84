"""The loop on a file source: every line handled, bad ones dead-lettered with their bytes, metrics counted."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

from prometheus_client import CollectorRegistry

from monitor.app import replay
from monitor.cli import main
from monitor.config import load_settings
from monitor.exceptions import TraceError
from monitor.sources import sample_path
from monitor.trace import Trace, parse_message

GOOD = {
    "trace_id": "t1",
    "question": "q",
    "answer": "a",
    "retrieved_chunks": [{"chunk_id": "c1", "retrieval_score": 0.4}],
}


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _replay(
    tmp_path: Path, src: Path
) -> tuple[CollectorRegistry, list[dict[str, object]], list[dict[str, object]]]:
    registry = CollectorRegistry()
    settings = load_settings(
        overrides={
            "source": str(src),
            "dlq": str(tmp_path / "dlq.jsonl"),
            "results": str(tmp_path / "out.jsonl"),
            "store": str(tmp_path / "review.db"),
        },
        environ={},
    )
    asyncio.run(replay(settings, registry))
    dlq = (
        [json.loads(x) for x in (tmp_path / "dlq.jsonl").read_text().splitlines()]
        if (tmp_path / "dlq.jsonl").exists()
        else []
    )
    out = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    return registry, dlq, out


def test_bad_lines_go_to_the_dead_letter_file_and_good_ones_are_kept(tmp_path: Path) -> None:
    """Each rejected line keeps its reason, line number and original bytes; no good trace is lost."""
    src = _write(
        tmp_path / "in.jsonl",
        [
            json.dumps(GOOD).encode(),
            b"{oops",
            b"",
            json.dumps({**GOOD, "trace_id": "t2"}).encode(),
            b'{"q": "\xff"}',
        ],
    )
    registry, dlq, out = _replay(tmp_path, src)
    assert sorted(r["trace_id"] for r in out) == ["t1", "t2"]
    assert [(d["reason"], d["origin"]["line"]) for d in dlq] == [("invalid_json", 2), ("not_utf8", 5)]
    assert dlq[0]["value"] == "{oops"
    assert dlq[1]["value"] == '{"q": "\ufffd"}' and dlq[1]["utf8"] is False
    assert dlq[1]["sha256"] == hashlib.sha256(b'{"q": "\xff"}').hexdigest()
    assert "raw_b64" not in dlq[1]  # the exact bytes only with dead_letter_raw
    assert registry.get_sample_value("ragmon_traces_total", {"outcome": "ok"}) == 2
    assert registry.get_sample_value("ragmon_traces_total", {"outcome": "invalid"}) == 2
    assert registry.get_sample_value("ragmon_invalid_messages_total", {"reason": "invalid_json"}) == 1


def test_result_record_has_the_stable_keys(tmp_path: Path) -> None:
    """The result record carries the keys DESIGN.md promises."""
    _, _, out = _replay(tmp_path, _write(tmp_path / "in.jsonl", [json.dumps(GOOD).encode()]))
    assert set(out[0]) >= {
        "trace_id",
        "versions",
        "signals",
        "numeric",
        "golden",
        "sampled",
        "scores",
        "judge",
        "flags",
    }
    assert out[0]["signals"]["top_score"] == 0.4


def test_version_labels_are_capped(tmp_path: Path) -> None:
    """Past the cap, new index versions are exported as ``other``."""
    lines = [
        json.dumps({**GOOD, "trace_id": f"t{i}", "index_version": f"kb-{i}"}).encode() for i in range(25)
    ]
    registry, _, _ = _replay(tmp_path, _write(tmp_path / "in.jsonl", lines))
    other = registry.get_sample_value("ragmon_retrieval_top_score_count", {"index_version": "other"})
    assert other == 5


def test_late_feedback_for_an_unknown_trace_is_counted_not_an_error(tmp_path: Path) -> None:
    """Feedback about a trace the monitor never saw is counted and acked."""
    line = json.dumps({"type": "feedback", "trace_id": "nope", "rating": "negative"}).encode()
    registry, dlq, out = _replay(tmp_path, _write(tmp_path / "in.jsonl", [line]))
    assert dlq == [] and out == []
    assert registry.get_sample_value("ragmon_feedback_total", {"rating": "negative"}) == 1


def test_replay_of_the_bundled_sample_exits_0(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`ragmon replay` handles every line of the sample, rejected lines included, and exits 0."""
    valid = 0
    for raw in sample_path().read_bytes().splitlines():
        try:
            valid += isinstance(parse_message(raw), Trace)
        except TraceError:
            pass
    code = main(
        [
            "replay",
            str(sample_path()),
            "--dlq",
            str(tmp_path / "d.jsonl"),
            "--store",
            str(tmp_path / "r.db"),
            "--format",
            "json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["traces"] == valid
    assert sum(summary["invalid"].values()) >= 5


def test_a_score_the_judge_leaves_undefined_is_not_observed_nor_flagged(tmp_path: Path) -> None:
    """An English answer over Vietnamese chunks holds no number the local judge can check: its
    faithfulness and context relevance are undefined, so the quality histograms count the judged trace
    only where a score exists (a mean over defined scores, not a 0 or a 1) and no low_ flag is raised."""
    chunk = {"chunk_id": "c1", "text": "Tiền hoàn được chuyển về phương thức thanh toán ban đầu của khách."}
    foreign = {**GOOD, "trace_id": "t1", "question": "where does my refund go?", "retrieved_chunks": [chunk]}
    foreign["answer"] = "The refund goes back to the card you paid with."
    same = {**foreign, "trace_id": "t2", "answer": "Tiền hoàn được chuyển về phương thức thanh toán ban đầu."}
    src = _write(tmp_path / "in.jsonl", [json.dumps(t, ensure_ascii=False).encode() for t in (foreign, same)])
    registry = CollectorRegistry()
    overrides = {"source": str(src), "results": str(tmp_path / "out.jsonl"), "sample_all": True}
    overrides |= {"dlq": str(tmp_path / "dlq.jsonl"), "store": str(tmp_path / "review.db")}
    asyncio.run(replay(load_settings(overrides=overrides, environ={}), registry))
    out = {r["trace_id"]: r for r in map(json.loads, (tmp_path / "out.jsonl").read_text().splitlines())}
    assert out["t1"]["scores"]["faithfulness"] is None and out["t1"]["scores"]["context_relevance"] is None
    assert out["t2"]["scores"]["faithfulness"] is not None
    assert not [f for f in out["t1"]["flags"] if f["reason"].startswith("low_")]

    def observed(metric: str) -> float:
        return sum(
            sample.value
            for family in registry.collect()
            for sample in family.samples
            if sample.name == f"ragmon_{metric}_count"
        )

    assert observed("faithfulness") == 1.0
    assert observed("answer_relevance") == 2.0
