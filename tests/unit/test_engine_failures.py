"""Failures inside a stage never lose a trace: a crashing judge, a review store outage."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.config import load_settings
from monitor.exceptions import StoreError
from monitor.judge.base import JudgeInput, JudgeResult
from monitor.metrics import Metrics
from monitor.pipeline import Item
from monitor.review.sink import ReviewSink
from monitor.sinks import ResultsFile
from monitor.sources import open_source
from monitor.trace import Feedback, Trace
from tests.support.pipeline import make_engine, make_pipeline, run_to_end


class CrashingJudge:
    """A judge with a bug: it raises something that is not a JudgeError."""

    name = "crashing"
    prompt_version = "v0"

    async def judge(self, item: JudgeInput) -> JudgeResult:
        raise ValueError(f"could not convert string to float: {item.answer!r}")

    async def aclose(self) -> None:
        return None


def test_a_crashing_judge_yields_judge_error_and_the_trace_is_finished(tmp_path: Path) -> None:
    """An unexpected judge exception becomes judge_error; the trace is written, counted and acked."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"trace_id": "t1", "question": "q", "answer": "25.09.2026"}) + "\n")
    settings = load_settings(overrides={"source": str(src), "dlq": str(tmp_path / "dlq.jsonl")}, environ={})
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    results = ResultsFile(tmp_path / "out.jsonl")
    pipeline = make_pipeline(metrics, judge=CrashingJudge(), sample_all=True, sinks=[results])
    opened = open_source(settings)
    engine = make_engine(settings, pipeline, opened.source, opened.dead_letter)
    summary = asyncio.run(run_to_end(engine))
    results.close()
    record = json.loads((tmp_path / "out.jsonl").read_text())
    assert record["judge"]["error"].startswith("ValueError")
    assert summary.traces == 1 and summary.unhandled == 0 and not (tmp_path / "dlq.jsonl").exists()
    assert (
        registry.get_sample_value("ragmon_judge_requests_total", {"judge": "crashing", "outcome": "error"})
        == 1
    )


class FlakyStore:
    """A review store that is down for its first ``failures`` writes."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.cases: dict[str, list[str]] = {}

    def upsert_case(self, trace: dict[str, Any], result: dict[str, Any], reasons: list[str]) -> None:
        if self.failures:
            self.failures -= 1
            raise StoreError("connection refused")
        self.cases[trace["trace_id"]] = reasons

    add_reasons = upsert_case

    def pending_count(self) -> int:
        return len(self.cases)

    def list_cases(self, *args: Any, **filters: Any) -> list[Any]:
        return []


def test_review_store_outage_queues_cases_until_it_is_back() -> None:
    """Cases flagged while the store is down are written, in order, once it answers again."""
    store = FlakyStore(failures=2)
    sink = ReviewSink(store, Metrics(CollectorRegistry()), {"faithfulness": 0.8})  # type: ignore[arg-type]
    for i in range(3):
        trace = Trace(trace_id=f"t{i}", question="q", answer="a")
        sink.write(
            trace,
            {"trace_id": f"t{i}", "flags": [{"reason": "negative_feedback"}], "judge": None},
            True,
            False,
        )
        sink.wait_idle()
    assert list(store.cases) == ["t0", "t1", "t2"]


class FlakyDeadLetter:
    """A dead-letter sink that fails its first ``failures`` sends."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.sent: list[str] = []

    def send(self, message: Any, reason: str, detail: str) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError("disk full")
        self.sent.append(reason)

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


def test_a_failed_dead_letter_send_is_retried_not_dropped(tmp_path: Path) -> None:
    """A rejected message whose dead-letter write fails is kept and written at a later commit."""
    src = tmp_path / "in.jsonl"
    src.write_text(
        "{bad\n"
        + "".join(json.dumps({"trace_id": f"t{i}", "question": "q", "answer": "a"}) + "\n" for i in range(3))
    )
    settings = load_settings(overrides={"source": str(src), "kafka": {"commit_interval_s": 0.01}}, environ={})
    dead_letter = FlakyDeadLetter(failures=1)
    engine = make_engine(settings, make_pipeline(), open_source(settings).source, dead_letter)
    summary = asyncio.run(run_to_end(engine))
    assert dead_letter.sent == ["invalid_json"]
    assert summary.unhandled == 0 and summary.traces == 3


def test_an_oversized_message_is_dead_lettered_with_its_digest() -> None:
    """A too_large message keeps its first bytes, its size and a sha256, so the record fits Kafka."""
    import hashlib

    from monitor.dead_letter import MAX_KEPT_BYTES, dead_letter_record
    from monitor.sources.base import Message, Origin

    raw = b"x" * (MAX_KEPT_BYTES * 3)
    record = dead_letter_record(Message(raw, Origin(topic="t", partition=0, offset=7)), "too_large", "big")
    assert record["size"] == len(raw) and record["truncated"] is True
    assert record["sha256"] == hashlib.sha256(raw).hexdigest() and len(record["value"]) == MAX_KEPT_BYTES


def test_cached_verdicts_give_the_budget_back() -> None:
    """A judgement served from the verdict cache refunds what sampling spent on it."""
    from monitor.judge.base import Scores, Usage, Verdicts
    from monitor.sources.base import Origin

    class CachedJudge:
        name = "cached"
        prompt_version = "v0"

        async def judge(self, item: JudgeInput) -> JudgeResult:
            verdicts = Verdicts(claims=(), chunk_useful=(), reverse_questions=(), noncommittal=())
            return JudgeResult("cached", "v0", verdicts, Scores(None, None, None, None), Usage(), cached=True)

        async def aclose(self) -> None:
            return None

    pipeline = make_pipeline(judge=CachedJudge())
    budget = pipeline.sampler.policy.budget
    item = Item(
        Trace(trace_id="t", question="q", answer="a", feedback=Feedback(rating="negative")), Origin(path="x")
    )

    async def run() -> float | None:
        (assessment,) = await pipeline.assess([item])
        assert not isinstance(assessment, Exception) and assessment.to_judge
        spent = budget.levels()["traces"]
        await pipeline.judge(assessment)
        return spent

    spent = asyncio.run(run())
    assert spent is not None and budget.levels()["traces"] == pytest.approx(spent + 1, abs=0.01)


def test_a_judge_past_its_deadline_is_a_timeout_and_the_slots_are_given_back() -> None:
    """A judge slower than the per-trace deadline: the judgement is a timeout error, the judge's call is
    cancelled, and its concurrency slot is free again (a second trace is judged in time)."""
    from monitor.judge.base import Scores, Usage, Verdicts
    from monitor.sources.base import Origin

    cancelled: list[str] = []

    class SlowJudge:
        name = "slow"
        prompt_version = "v0"

        async def judge(self, item: JudgeInput) -> JudgeResult:
            if item.trace_id == "slow":
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    cancelled.append(item.trace_id)
                    raise
            verdicts = Verdicts(claims=(), chunk_useful=(), reverse_questions=(), noncommittal=())
            return JudgeResult("slow", "v0", verdicts, Scores(None, None, None, None), Usage())

        async def aclose(self) -> None:
            return None

    pipeline = make_pipeline(judge=SlowJudge(), sample_all=True, judge_concurrency=1, judge_deadline_s=0.05)

    def item(trace_id: str) -> Item:
        return Item(Trace(trace_id=trace_id, question="q", answer="a"), Origin(path="x"))

    async def run() -> list[Any]:
        assessed = await pipeline.assess([item("slow"), item("fast")])
        out = []
        for a in assessed:
            assert not isinstance(a, Exception) and a.to_judge
            out.append(await asyncio.wait_for(pipeline.judge(a), 5.0))
        return out

    slow, fast = asyncio.run(run())
    assert slow.outcome == "timeout" and slow.result is None and slow.error == "deadline of 0.05s exceeded"
    assert cancelled == ["slow"]
    assert fast.outcome == "ok" and fast.error is None and fast.result is not None


class PoisonSink:
    """Writes every trace but one: its write raises, as a sink bug on one trace's content would."""

    every_trace = True

    def __init__(self, poison: str) -> None:
        self.poison = poison
        self.written: list[str] = []

    def write(self, trace: Trace, record: dict[str, Any], flagged: bool, late: bool) -> None:
        if trace.trace_id == self.poison:
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        self.written.append(trace.trace_id)


def _engine_over(tmp_path: Path, count: int, **pipeline_args: Any) -> tuple[Any, Any, Path]:
    src = tmp_path / "in.jsonl"
    lines = [json.dumps({"trace_id": f"t{i}", "question": "q", "answer": "a"}) for i in range(count)]
    src.write_text("\n".join(lines) + "\n")
    dlq = tmp_path / "dlq.jsonl"
    settings = load_settings(overrides={"source": str(src), "dlq": str(dlq)}, environ={})
    pipeline = make_pipeline(**pipeline_args)
    opened = open_source(settings)
    return make_engine(settings, pipeline, opened.source, opened.dead_letter), pipeline, dlq


def test_one_trace_failing_in_a_batch_is_dead_lettered_and_the_rest_are_finished(tmp_path: Path) -> None:
    """The batch path isolates traces: a sink failing on one trace dead-letters that one only."""
    sink = PoisonSink("t3")
    engine, _, dlq = _engine_over(tmp_path, 8, sinks=[sink])
    summary = asyncio.run(run_to_end(engine))
    assert sink.written == [f"t{i}" for i in range(8) if i != 3]
    assert summary.traces == 7 and summary.invalid["processing_error"] == 1
    (dead,) = [json.loads(line) for line in dlq.read_text().splitlines()]
    assert "UnicodeEncodeError" in dead["detail"]


def test_a_metrics_failure_loses_no_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug recording the batch's metrics is logged; the traces, already written, are still finished."""
    sink = PoisonSink("none")
    engine, pipeline, dlq = _engine_over(tmp_path, 5, sinks=[sink])

    def broken(batch: Any) -> None:
        raise KeyError("labels")

    monkeypatch.setattr(pipeline.metrics, "record_assessments", broken)
    summary = asyncio.run(run_to_end(engine))
    assert summary.traces == 5 and not summary.invalid and not dlq.exists()
    assert sink.written == [f"t{i}" for i in range(5)]


def test_a_failing_batch_path_falls_back_to_one_trace_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should finish_many itself raise, each trace is finished on its own path and none is lost."""
    sink = PoisonSink("t1")
    engine, pipeline, dlq = _engine_over(tmp_path, 4, sinks=[sink])

    def broken(batch: Any) -> list[Any]:
        raise RuntimeError("batch path bug")

    monkeypatch.setattr(pipeline, "finish_many", broken)
    summary = asyncio.run(run_to_end(engine))
    assert sink.written == ["t0", "t2", "t3"]
    assert summary.traces == 3 and summary.invalid["processing_error"] == 1
    assert len(dlq.read_text().splitlines()) == 1
