"""Numeric-rule benchmark: reference-free check per trace (answer + 5 chunks of 1000 characters).

Prints one JSON line. ``traces_per_s`` is NumericRules.check with the per-chunk cache off (every
chunk text new), ``cached_traces_per_s`` the same traces again with the cache warm (production
chunks recur), ``baseline_traces_per_s`` a bare ``re.findall`` of seed 000's SO_LIEU regex over the
same six texts, and ``ratio`` = traces_per_s / baseline_traces_per_s. Rates are CPU time (process
time), so they hold on a shared machine; ``wall_us_per_trace`` is the wall-clock view.
"""

from __future__ import annotations

import json
import random
import re
import resource
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from monitor.numeric import NumericRules

pytestmark = [pytest.mark.bench, pytest.mark.timeout(300)]

POLICY = json.loads(
    (Path(__file__).parents[1] / "data" / "banhang" / "policy.json").read_text(encoding="utf-8")
)
SO_LIEU = re.compile(r"(\d+(?:\.\d{3})*)\s*(ngày làm việc|ngày|tháng|đồng)")  # seed 000 section 5
TRACES = 300
CHUNKS = 5
CHUNK_CHARS = 1000
FABRICATED_SHARE = 0.1
REPEATS = 3
_NUMBER = re.compile(r"\d+(?:\.\d{3})*")

Trace = tuple[str, list[str]]


def _chunk(rng: random.Random) -> str:
    """About 1000 characters of policy text with fresh numbers, so no two chunks are alike."""
    sections = list(POLICY["sections"].values())
    rng.shuffle(sections)
    text = " ".join(sections * 2)[:CHUNK_CHARS]
    return _NUMBER.sub(
        lambda match: str(rng.randint(1, 60)) if "." not in match.group() else match.group(), text
    )


def _traces(rules: NumericRules) -> list[Trace]:
    """Answers quoting two of their chunks' quantities; a tenth also states a fabricated one."""
    rng = random.Random(20260925)
    traces = []
    for index in range(TRACES):
        chunks = [_chunk(rng) for _ in range(CHUNKS)]
        quoted = rng.sample(rules.extract(chunks[0]), 2)
        answer = f"Theo chính sách, bạn có {quoted[0].text}, và lưu ý {quoted[1].text} kể từ ngày nhận hàng."
        if index < TRACES * FABRICATED_SHARE:
            answer += " Ngoài ra phí xử lý là 99.000đ."
        traces.append((answer, chunks))
    return traces


def _rate(work: Callable[[Trace], object], traces: list[Trace]) -> tuple[float, float]:
    """Best of REPEATS passes: (traces per CPU second, wall microseconds per trace)."""
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(REPEATS):
        cpu, wall = time.process_time(), time.perf_counter()
        for trace in traces:
            work(trace)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return len(traces) / best_cpu, best_wall / len(traces) * 1e6


def test_bench_numeric_check() -> None:
    """Measure check() per trace against the seed's bare regex, side by side in one run."""
    uncached, cached = NumericRules.load(context_cache=0), NumericRules.load()
    traces = _traces(uncached)
    flagged = sum(bool(uncached.check(answer, chunks).unsupported) for answer, chunks in traces)
    assert flagged == TRACES * FABRICATED_SHARE  # the data is what it claims: only fabricated answers flag

    ours, wall_us = _rate(lambda trace: uncached.check(*trace), traces)
    baseline, _ = _rate(lambda trace: [SO_LIEU.findall(text) for text in (trace[0], *trace[1])], traces)
    warm, _ = _rate(lambda trace: cached.check(*trace), traces)
    print(
        json.dumps(
            {
                "name": "numeric_check",
                "traces_per_s": round(ours),
                "baseline_traces_per_s": round(baseline),
                "ratio": round(ours / baseline, 3),
                "us_per_trace": round(1e6 / ours, 1),
                "wall_us_per_trace": round(wall_us, 1),
                "cached_traces_per_s": round(warm),
                "chunks": CHUNKS,
                "chunk_chars": CHUNK_CHARS,
                "fabricated_share": FABRICATED_SHARE,
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
    )


def test_bench_conditional_check() -> None:
    """The conditional-value check per trace on the same traces, side by side with the numeric check:
    ``ratio`` = its traces per CPU second / the numeric check's, every chunk new (cache off), and
    ``cached_traces_per_s`` with the per-chunk cache warm (production chunks recur)."""
    from monitor.conditional import ConditionalRules

    numeric = NumericRules.load(context_cache=0)
    traces = _traces(numeric)[:60]
    uncached = ConditionalRules.load(numeric)
    uncached._statements = uncached._analyse  # noqa: SLF001 - every chunk read afresh
    cached = ConditionalRules.load(NumericRules.load())
    question = "Đổi trả trong bao lâu?"
    ours, wall_us = _rate(lambda trace: uncached.check(question, *trace), traces)
    numeric_rate, _ = _rate(lambda trace: numeric.check(*trace), traces)
    warm, _ = _rate(lambda trace: cached.check(question, *trace), traces)
    print(
        json.dumps(
            {
                "name": "conditional_check",
                "traces_per_s": round(ours),
                "numeric_traces_per_s": round(numeric_rate),
                "ratio": round(ours / numeric_rate, 3),
                "us_per_trace": round(1e6 / ours, 1),
                "wall_us_per_trace": round(wall_us, 1),
                "cached_traces_per_s": round(warm),
                "chunks": CHUNKS,
                "chunk_chars": CHUNK_CHARS,
            }
        )
    )
