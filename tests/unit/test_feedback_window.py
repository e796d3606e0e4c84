"""Late feedback memory: a bounded LRU of recent traces and what a late thumbs-down does."""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from monitor.feedback_window import FeedbackWindow, approx_bytes, handle_late_feedback
from monitor.sampling import SAMPLE_ALL, SamplingPolicy
from monitor.trace import Chunk, FeedbackEvent, Trace


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def trace(trace_id: str, text: str = "Khách hàng được đổi trả trong 7 ngày.", chunks: int = 3) -> Trace:
    retrieved = tuple(Chunk(chunk_id=f"c{i}", text=text * 4) for i in range(chunks))
    return Trace(trace_id=trace_id, question="Đổi trả mấy ngày?", answer=text, retrieved_chunks=retrieved)


def feedback(trace_id: str, rating: str = "negative") -> FeedbackEvent:
    return FeedbackEvent.model_validate(
        {"type": "feedback", "trace_id": trace_id, "rating": rating, "reason": "wrong"}
    )


def policy(tmp_path: Path, sample_all: bool = False, **overrides: Any) -> SamplingPolicy:
    text = (importlib.resources.files("monitor") / "rules" / "sampling.yaml").read_text("utf-8")
    data = {**yaml.safe_load(text), **overrides}
    path = tmp_path / "sampling.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return SamplingPolicy.from_file(path, sample_all=sample_all, clock=FakeClock())


def _raw(t: Trace) -> bytes:
    return msgspec.json.encode(t)


def test_the_window_keeps_message_bytes_and_parses_them_back() -> None:
    """An entry is the message's bytes (few objects for the garbage collector); its trace parses back."""
    window = FeedbackWindow(max_traces=10, max_bytes=10**6)
    raw = b'\xef\xbb\xbf{"trace_id": "a", "question": "q\\ud800", "answer": "7 ng\xc3\xa0y"}'
    window.remember(trace("a"), judged=False, raw=raw)
    entry = window.get("a")
    assert entry is not None and entry.raw is raw
    assert entry.trace.question == "q\ufffd" and entry.trace.answer == "7 ngày"


def test_remember_get_and_mark_judged() -> None:
    """A remembered trace comes back with its judged flag, which mark_judged sets."""
    window = FeedbackWindow(max_traces=10, max_bytes=10**6)
    assert window.remember(trace("a"), judged=False)
    entry = window.get("a")
    assert entry is not None and entry.trace.trace_id == "a" and not entry.judged
    window.mark_judged("a")
    again = window.get("a")
    assert again is not None and again.judged
    assert window.get("nope") is None and len(window) == 1


@pytest.mark.parametrize("max_traces", [1, 7, 100])
def test_count_cap_keeps_the_newest(max_traces: int) -> None:
    """Pushing 10x the cap leaves exactly the newest max_traces entries."""
    window = FeedbackWindow(max_traces=max_traces, max_bytes=10**9)
    ids = [f"t{i}" for i in range(10 * max_traces)]
    for trace_id in ids:
        window.remember(trace(trace_id), judged=False)
    assert len(window) == max_traces
    assert all(window.get(i) is not None for i in ids[-max_traces:])
    assert window.get(ids[-max_traces - 1]) is None


def test_byte_cap_bounds_memory() -> None:
    """Pushing ten times what fits keeps the approximate size under the byte cap, with fewer entries."""
    one = approx_bytes(_raw(trace("x")))
    max_bytes = 20 * one
    window = FeedbackWindow(max_traces=1000, max_bytes=max_bytes)
    for i in range(200):
        window.remember(trace(f"t{i}"), judged=False)
    assert window.nbytes <= max_bytes
    assert 0 < len(window) <= 20
    assert window.nbytes == sum(e.nbytes for e in (window.get(f"t{i}") for i in range(200)) if e)


def test_get_refreshes_recency() -> None:
    """A trace read by get survives the eviction that takes its untouched neighbours."""
    window = FeedbackWindow(max_traces=3, max_bytes=10**9)
    for trace_id in ("a", "b", "c"):
        window.remember(trace(trace_id), judged=False)
    assert window.get("a") is not None
    window.remember(trace("d"), judged=False)
    assert window.get("a") is not None and window.get("b") is None


def test_remembering_again_replaces_without_double_counting() -> None:
    """A redelivered trace replaces its entry; size and count stay those of one entry."""
    window = FeedbackWindow(max_traces=5, max_bytes=10**9)
    window.remember(trace("a"), judged=False)
    size = window.nbytes
    window.remember(trace("a"), judged=True)
    entry = window.get("a")
    assert len(window) == 1 and window.nbytes == size and entry is not None and entry.judged


def test_a_trace_bigger_than_the_cap_is_not_kept() -> None:
    """A single trace over the byte cap is refused instead of flushing the window."""
    window = FeedbackWindow(max_traces=5, max_bytes=approx_bytes(_raw(trace("small"))) * 3)
    window.remember(trace("small"), judged=False)
    assert not window.remember(trace("huge", text="x" * 100_000), judged=False)
    assert window.get("small") is not None and window.get("huge") is None


def test_zero_traces_switches_the_window_off() -> None:
    """max_traces=0 remembers nothing."""
    window = FeedbackWindow(max_traces=0, max_bytes=10**9)
    assert not window.remember(trace("a"), judged=False)
    assert len(window) == 0


def test_size_estimate_grows_with_text_and_chunks() -> None:
    """Longer text and more chunks make a bigger estimate; CJK text costs more per character."""
    assert approx_bytes(_raw(trace("a", chunks=5))) > approx_bytes(_raw(trace("a", chunks=1)))
    assert approx_bytes(_raw(trace("a", text="y" * 2000))) > approx_bytes(_raw(trace("a", text="y" * 200)))
    assert approx_bytes(_raw(trace("a", text="退" * 500))) > approx_bytes(_raw(trace("a", text="t" * 500)))


def test_unknown_trace_feedback_is_an_outcome_not_an_error(tmp_path: Path) -> None:
    """Feedback for a trace the window never saw reports outcome unknown."""
    result = handle_late_feedback(FeedbackWindow(10, 10**6), policy(tmp_path), feedback("ghost"))
    assert result.outcome == "unknown" and result.trace is None and not result.admission.judged


def test_late_negative_feedback_samples_once(tmp_path: Path) -> None:
    """A late thumbs-down samples a remembered unjudged trace once, with the feedback attached."""
    window = FeedbackWindow(10, 10**6)
    window.remember(trace("t1"), judged=False)
    result = handle_late_feedback(window, policy(tmp_path), feedback("t1"))
    assert result.outcome == "sampled"
    assert result.admission.judged and result.admission.primary == "negative_feedback"
    assert result.trace is not None and result.trace.feedback is not None
    assert result.trace.feedback.rating == "negative"
    assert handle_late_feedback(window, policy(tmp_path), feedback("t1")).outcome == "already_judged"


def test_late_positive_feedback_does_not_sample(tmp_path: Path) -> None:
    """A late thumbs-up on a remembered trace triggers no judging."""
    window = FeedbackWindow(10, 10**6)
    window.remember(trace("t1"), judged=False)
    result = handle_late_feedback(window, policy(tmp_path), feedback("t1", rating="thumbs_up"))
    assert result.outcome == "not_negative" and not result.admission.judged


def test_late_negative_feedback_over_budget_is_skipped(tmp_path: Path) -> None:
    """With the budget and the overflow exhausted negative feedback is skipped, and stays unjudged."""
    budget = {"traces_per_minute": 1, "tokens_per_hour": None, "reserve": 0.0}
    pol = policy(tmp_path, budget={**budget, "negative_feedback_overflow_per_minute": None})
    assert pol.admit(trace("other"), ["random"]).judged
    window = FeedbackWindow(10, 10**6)
    window.remember(trace("t1"), judged=False)
    result = handle_late_feedback(window, pol, feedback("t1"))
    assert result.outcome == "skipped" and result.admission.skipped_reason == "negative_feedback"
    entry = window.get("t1")
    assert entry is not None and not entry.judged


def test_late_negative_feedback_past_the_shared_budget_spends_the_overflow(tmp_path: Path) -> None:
    """Shared budget spent: late negative feedback is judged from the overflow until that is empty too."""
    budget = {"traces_per_minute": 1, "tokens_per_hour": None, "reserve": 0.0}
    pol = policy(tmp_path, budget={**budget, "negative_feedback_overflow_per_minute": 2})
    assert pol.admit(trace("other"), ["no_citation"]).judged
    window = FeedbackWindow(10, 10**6)
    for i in range(3):
        window.remember(trace(f"t{i}"), judged=False)
    results = [handle_late_feedback(window, pol, feedback(f"t{i}")) for i in range(3)]
    assert [r.outcome for r in results] == ["sampled", "sampled", "skipped"]
    assert [r.admission.lane for r in results[:2]] == ["negative_feedback_overflow"] * 2
    assert results[2].admission.skipped_reason == "negative_feedback"


def test_late_negative_feedback_respects_a_zero_probability(tmp_path: Path) -> None:
    """A pack that turns negative-feedback sampling off leaves late feedback unpicked."""
    text = (importlib.resources.files("monitor") / "rules" / "sampling.yaml").read_text("utf-8")
    reasons = yaml.safe_load(text)["reasons"]
    reasons["negative_feedback"] = {"probability": 0.0, "priority": 100}
    window = FeedbackWindow(10, 10**6)
    window.remember(trace("t1"), judged=False)
    assert (
        handle_late_feedback(window, policy(tmp_path, reasons=reasons), feedback("t1")).outcome
        == "not_picked"
    )


def test_late_feedback_in_sample_all_mode(tmp_path: Path) -> None:
    """In sample_all mode an unjudged remembered trace is judged under sample_all."""
    window = FeedbackWindow(10, 10**6)
    window.remember(trace("t1"), judged=False)
    result = handle_late_feedback(window, policy(tmp_path, sample_all=True), feedback("t1"))
    assert result.outcome == "sampled" and result.admission.primary == SAMPLE_ALL
    assert "negative_feedback" in result.admission.reasons


def test_size_estimate_is_the_bytes_object_and_the_entry_overhead() -> None:
    """An entry costs what ``sys.getsizeof`` says its bytes take, plus the fixed overhead of an entry."""
    import sys

    from monitor.feedback_window import _ENTRY_OVERHEAD

    for raw in (b"", b"x", _raw(trace("a")), "退".encode() * 700):
        assert approx_bytes(raw) == sys.getsizeof(raw) + _ENTRY_OVERHEAD
