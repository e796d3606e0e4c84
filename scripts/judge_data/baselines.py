#!/usr/bin/env python3
"""Trivial-baseline AUROCs on the labelled traces in ``tests/data/judge_eval/``.

Two scores per trace, higher = more likely faithful; AUROC = P(score of a faithful trace > score of a
hallucinated one), ties counted half:

* word overlap: share of the answer's word tokens found anywhere in the chunks. Tokens are ``\\w+`` runs
  after lowercasing and folding diacritics (NFD, combining marks removed, đ -> d). CJK text has no
  spaces, so a "word" there is a whole run of characters: read the bigram column for zh/ja;
* character-bigram overlap: share of the answer's character bigrams (whitespace and punctuation
  removed, lowercased, no diacritic folding) found in the chunks (bigrams never span two chunks).

A 95% bootstrap interval (resampling traces, fixed seed) goes with each AUROC. A set where a baseline
already exceeds 0.97 is flagged as too easy to be informative.

    python3 scripts/judge_data/baselines.py [--splits dev test] [--by-source] [--resamples 500]

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "judge_eval"
_WORD = re.compile(r"\w+")
TOO_EASY = 0.97


def fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.replace("đ", "d")


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def _compact(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def bigrams(text: str) -> list[str]:
    s = _compact(text)
    return [s[i : i + 2] for i in range(len(s) - 1)] if len(s) > 1 else ([s] if s else [])


def share(units: list[str], vocabulary: set[str]) -> float:
    return sum(u in vocabulary for u in units) / len(units) if units else 0.0


def word_overlap(row: dict) -> float:
    vocab: set[str] = set()
    for c in row["retrieved_chunks"]:
        vocab.update(words(c["text"]))
    return share(words(row["answer"]), vocab)


def bigram_overlap(row: dict) -> float:
    vocab: set[str] = set()
    for c in row["retrieved_chunks"]:
        vocab.update(bigrams(c["text"]))
    return share(bigrams(row["answer"]), vocab)


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Mann-Whitney U / (n_pos * n_neg) with average ranks for ties."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        avg = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    n_pos = sum(labels)
    n_neg = len(labels) - n_pos
    if not n_pos or not n_neg:
        return float("nan")
    rank_sum = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def bootstrap(scores: list[float], labels: list[bool], resamples: int, seed: int = 13) -> tuple[float, float]:
    rng = random.Random(seed)  # noqa: S311 (resampling, not cryptography)
    n = len(scores)
    values = []
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        value = auroc([scores[i] for i in idx], [labels[i] for i in idx])
        if value == value:
            values.append(value)
    values.sort()
    return values[int(0.025 * len(values))], values[min(len(values) - 1, int(0.975 * len(values)))]


def evaluate(rows: list[dict], resamples: int) -> dict:
    labels = [bool(r["faithful"]) for r in rows]
    out = {"rows": len(rows), "faithful": sum(labels), "hallucinated": len(labels) - sum(labels)}
    for name, fn in (("word", word_overlap), ("bigram", bigram_overlap)):
        scores = [fn(r) for r in rows]
        out[name] = auroc(scores, labels)
        out[name + "_ci"] = (
            bootstrap(scores, labels, resamples) if resamples else (float("nan"), float("nan"))
        )
    return out


def fmt(res: dict, key: str) -> str:
    lo, hi = res[key + "_ci"]
    return f"{res[key]:.3f} [{lo:.3f}, {hi:.3f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--splits", nargs="+", default=["dev", "test"])
    parser.add_argument("--by-source", action="store_true", help="one line per source inside each file too")
    parser.add_argument("--resamples", type=int, default=500)
    args = parser.parse_args(argv)

    files = sorted(p for p in args.data.rglob("*.jsonl") if p.name.split(".")[1] in args.splits)
    header = (
        "| file | rows | faithful | hallucinated | word-overlap AUROC [95% CI] | char-bigram AUROC [95% CI] |"
    )
    print(header + " note |")
    print("|---|---:|---:|---:|---|---|---|")
    for path in files:
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
        groups = [(str(path.relative_to(args.data)), rows)]
        if args.by_source:
            for source in sorted({r["source"] for r in rows}):
                groups.append((f"  ↳ {source}", [r for r in rows if r["source"] == source]))
        for name, subset in groups:
            res = evaluate(subset, args.resamples)
            note = "too easy (> 0.97)" if max(res["word"], res["bigram"]) > TOO_EASY else ""
            print(
                f"| {name} | {res['rows']} | {res['faithful']} | {res['hallucinated']} | "
                f"{fmt(res, 'word')} | {fmt(res, 'bigram')} | {note} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
