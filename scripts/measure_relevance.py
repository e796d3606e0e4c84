"""Answer relevance of the local judge by how much of the answer e5 reads (``relevance.answer_chars``).

Answer relevance is cosine(``query:`` question, ``passage:`` the answer's first N characters), and e5's
time grows with N. This measures, for several N side by side, how well the cosine ranks a question's own
answer above another question's answer, how many own answers fall under the ``low_answer_relevance``
bands with the packaged floor/ceiling map, and the CPU milliseconds of the passage embedding:

    .venv/bin/python scripts/measure_relevance.py --split dev

Pairs: the simulator's correct, non-abstaining answers (banhang, telecom, insurer; the split's wordings,
seed 5), the negative being a correct answer to another intent of the same domain in the same language;
and the English judge data's faithful rows (``tests/data/judge_eval/en.<split>.jsonl``), the negative
being another row's answer. One JSON line per source and N on stdout. Choose on ``dev``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from monitor.embeddings import LocalE5Embedder  # noqa: E402
from monitor.judge.evaluate import auroc  # noqa: E402
from monitor.judge.local import LocalJudge  # noqa: E402
from monitor.simulate import SimConfig, generate  # noqa: E402

Pair = tuple[str, str, bool]  # question, answer, the answer is the question's own
DATA = ROOT / "tests" / "data"
LENGTHS = (150, 200, 250, 300, 400, 2000)


def simulated(domain: str, split: str, seed: int, count: int) -> list[Pair]:
    """Own answers of correct traces, each beside another intent's answer in the same language."""
    variants = DATA / "simulate" / f"{domain}.{split}.json"
    config = SimConfig(count=count, seed=seed, domain=domain, variants=variants if split != "train" else None)
    rows = [
        (m["question"], m["answer"], m["simulation"]["intent"], m.get("language", ""))
        for m in generate(config)
        if "simulation" in m and m["simulation"]["correct"] and m["simulation"]["kind"] is None
    ]
    by_language: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for _, answer, intent, language in rows:
        by_language[language].append((intent, answer))
    rng = random.Random(seed)  # noqa: S311 (sampling pairs, not cryptography)
    pairs: list[Pair] = []
    for question, answer, intent, language in rows:
        others = [a for i, a in by_language[language] if i != intent]
        pairs.append((question, answer, True))
        if others:
            pairs.append((question, rng.choice(others), False))
    return pairs


def labelled(language: str, split: str) -> list[Pair]:
    """Faithful rows of the judge data, each beside another row's answer."""
    path = DATA / "judge_eval" / f"{language}.{split}.jsonl"
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("question") and r.get("faithful") is True]
    rng = random.Random(7)  # noqa: S311
    pairs: list[Pair] = []
    for row in rows:
        other = rng.choice(rows)
        pairs.append((row["question"], row["answer"], True))
        if other["question"] != row["question"]:
            pairs.append((row["question"], other["answer"], False))
    return pairs


def sources(split: str, seed: int, count: int) -> Iterator[tuple[str, list[Pair]]]:
    for domain in ("banhang", "telecom", "insurer"):
        yield f"sim-{domain}", simulated(domain, split, seed, count)
    # zh and ja rows ask the same thing of every document ("请根据这则新闻的开头续写下一句"): no pairs there.
    yield "judge-en", labelled("en", split)


def measure(name: str, pairs: list[Pair], judge: LocalJudge, embedder: LocalE5Embedder) -> None:
    """One line per N: AUROC of own vs other, own answers under each band, passage CPU ms."""
    readable = [p for p in pairs if not judge.rules.unreadable(p[0]) and not judge._phrases(p[1])[0]]
    floor, ceiling = judge.rules.relevance_floor, judge.rules.relevance_ceiling
    questions = embedder.embed([q for q, _, _ in readable], "query")
    labels = [own for _, _, own in readable]
    for chars in LENGTHS:
        texts = [a[:chars] for _, a, _ in readable]
        embedder._cache.clear()
        start = time.process_time()
        passages = embedder.embed(texts, "passage")
        cpu_ms = 1000 * (time.process_time() - start) / max(len(texts), 1)
        cos = np.einsum("ij,ij->i", questions, passages)
        score = np.clip((cos - floor) / (ceiling - floor), 0.0, 1.0)
        own = score[np.array(labels)]
        other = score[~np.array(labels)]
        print(
            json.dumps(
                {
                    "source": name,
                    "answer_chars": chars,
                    "pairs": len(readable),
                    "auroc": round(auroc(list(cos), labels), 3),
                    "own_below_0.8": round(float((own < 0.8).mean()), 3),
                    "own_below_0.6": round(float((own < 0.6).mean()), 3),
                    "other_below_0.6": round(float((other < 0.6).mean()), 3),
                    "mean_chars": round(float(np.mean([len(t) for t in texts])), 1),
                    "passage_cpu_ms": round(cpu_ms, 1),
                }
            ),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=("train", "dev", "test"))
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--count", type=int, default=400, help="simulated traces per domain")
    parser.add_argument("--limit", type=int, default=300, help="pairs per source at most")
    args = parser.parse_args()
    embedder = LocalE5Embedder(cache_size=100_000)
    judge = LocalJudge(embedder)
    for name, pairs in sources(args.split, args.seed, args.count):
        random.Random(1).shuffle(pairs)  # noqa: S311
        measure(name, pairs[: args.limit], judge, embedder)


if __name__ == "__main__":
    main()
