"""Local judge benchmarks: latency per realistic trace.

``local_judge_latency`` judges traces of a question, a ~150-token answer and 5 chunks of ~200 tokens,
every text new (the embedding cache never helps), each with the cheap path's conditional verdict as
the pipeline hands it (``JudgeInput.told_to_everyone``; ``ragmon eval judge`` runs the check in the
judge), and prints p50/p95 wall milliseconds per trace,
``traces_per_s``, ``baseline_traces_per_s`` (word overlap of answer and chunks, the harness's trivial
baseline, on the same traces), ``ratio`` = traces_per_s / baseline_traces_per_s and the process's peak RSS.
``local_judge_latency_recurring_chunks`` judges new answers over the same traces' chunks again, as in
production where popular chunks recur. ``local_judge_latency_one_claim`` judges one-sentence answers
over new chunks: the answers whose support reads e5 (``answer_similarity``: the best chunk sentence is
embedded, the answer's opening is the one answer relevance embeds).
``local_judge_latency_no_relevance`` judges the same traces with answer relevance off: the support
model alone, lexical and numeric (e5 embeds the question and the answer's opening for answer
relevance, and a chunk sentence for a one-claim answer's ``answer_similarity``).

The AUROC figures on human-labelled data are ``tests/bench/test_bench_eval_judge.py`` (``ragmon eval
judge`` on the dev splits).
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import statistics
import time
from dataclasses import replace

import pytest

from monitor.conditional import ConditionalRules
from monitor.embeddings import LocalE5Embedder
from monitor.judge.base import JudgeChunk, JudgeInput
from monitor.judge.evaluate import word_overlap
from monitor.judge.local import LocalJudge
from monitor.numeric import NumericRules

pytestmark = [pytest.mark.bench, pytest.mark.timeout(900)]

TRACES = 12
WORDS = (
    "order refund return policy customer warranty shipping delivery invoice receipt product store "
    "payment card account support replacement damage package address courier exchange voucher "
    "discount member points service center repair battery screen charger manual box label"
).split()


def _sentence(rng: random.Random, words: int) -> str:
    body = " ".join(rng.choice(WORDS) for _ in range(words - 3))
    return f"The {body} takes {rng.randint(1, 90)} days."


def _text(rng: random.Random, tokens: int) -> str:
    out: list[str] = []
    while sum(len(s.split()) for s in out) < tokens:
        out.append(_sentence(rng, rng.randint(12, 22)))
    return " ".join(out)


def _traces() -> list[JudgeInput]:
    """Fresh random policy-like texts: a question, a 150-token answer, 5 chunks of 200 tokens."""
    rng = random.Random(20260925)
    return [
        JudgeInput(
            f"bench-{i}",
            f"How many days does the {rng.choice(WORDS)} {rng.choice(WORDS)} take?",
            _text(rng, 150),
            tuple(JudgeChunk(f"c{k}", _text(rng, 200)) for k in range(5)),
            "en",
        )
        for i in range(TRACES)
    ]


def _overlap(item: JudgeInput) -> float:
    """Word overlap as ``ragmon eval judge`` computes it: uncached, unlike the judge's unit caches."""
    return word_overlap(item)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _answers_only(traces: list[JudgeInput]) -> list[JudgeInput]:
    """New answers over the same chunks: what a popular document looks like in production."""
    rng = random.Random(7)
    return [replace(item, trace_id=f"{item.trace_id}-again", answer=_text(rng, 150)) for item in traces]


def _one_claim(traces: list[JudgeInput]) -> list[JudgeInput]:
    """One-sentence answers over fresh chunks (another seed, so no chunk sentence is cached yet): a chunk
    sentence with its words shuffled, so its number is the chunk's and the claim is not capped."""
    rng = random.Random(20261201)
    out = []
    for item in traces:
        chunks = tuple(JudgeChunk(f"c{k}", _text(rng, 200)) for k in range(5))
        words = chunks[2].text.split(". ")[1].split()
        middle = words[1:-3]
        rng.shuffle(middle)
        answer = " ".join([words[0], *middle, *words[-3:]]).rstrip(".") + "."
        out.append(replace(item, trace_id=f"{item.trace_id}-short", answer=answer, chunks=chunks))
    return out


def _as_the_pipeline_hands_them(traces: list[JudgeInput]) -> list[JudgeInput]:
    """With the cheap path's conditional verdict, as the pipeline passes it (that check runs on every
    trace; its cost is the cheap path's, measured by ``test_bench_core``)."""
    conditional = ConditionalRules.load(NumericRules.load())
    return [
        replace(
            item,
            told_to_everyone=conditional.check(
                item.question, item.answer, [c.text for c in item.chunks]
            ).told_to_everyone(),
        )
        for item in traces
    ]


def _measure(name: str, judge: LocalJudge, traces: list[JudgeInput]) -> dict[str, object]:
    """Judge each trace alone, then time token overlap on the same traces, side by side."""
    latencies = []
    for item in _as_the_pipeline_hands_them(traces):
        start = time.perf_counter()
        result = asyncio.run(judge.judge(item))
        latencies.append(time.perf_counter() - start)
        assert result.scores.faithfulness is not None
    start = time.perf_counter()
    for _ in range(100):
        for item in traces:
            _overlap(item)
    baseline = 100 * len(traces) / (time.perf_counter() - start)
    rate = len(traces) / sum(latencies)
    return {
        "name": name,
        "traces": len(traces),
        "traces_per_s": round(rate, 2),
        "baseline_traces_per_s": round(baseline, 1),
        "ratio": round(rate / baseline, 5),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 1),
        "p95_ms": round(1000 * _percentile(latencies, 0.95), 1),
    }


def test_bench_local_judge_latency() -> None:
    """Per-trace latency of the local judge on realistic traces, side by side with token overlap."""
    judge = LocalJudge(LocalE5Embedder())
    asyncio.run(judge.judge(JudgeInput("warm", "q?", "Warm up.", (JudgeChunk("c", "Warm up."),))))
    traces = _traces()
    print("\n" + json.dumps(_measure("local_judge_latency", judge, traces)))  # after pytest's dots
    print(json.dumps(_measure("local_judge_latency_recurring_chunks", judge, _answers_only(traces))))
    print(json.dumps(_measure("local_judge_latency_one_claim", judge, _one_claim(traces))))
    # The support model alone (no e5: answer relevance off), what `ragmon eval judge` runs.
    support = LocalJudge(LocalE5Embedder(), answer_relevance=False)
    print(json.dumps(_measure("local_judge_latency_no_relevance", support, traces)))
