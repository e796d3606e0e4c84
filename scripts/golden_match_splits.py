"""Score the shipped lexical matcher on each paraphrase split apart: train, dev, dev2, dev3.

Run: ``.venv/bin/python scripts/golden_match_splits.py [--misses] [--test-file PATH ...]``. Prints JSON
lines per split, golden (``none``: the questions alone; ``train``: train paraphrases as variants;
``train+negatives``: and the train cases the ``train`` matcher matches wrongly as negatives) and
domain. Nothing is fitted here. Test splits are scored only when named with ``--test-file`` (score
each once, at a final commit); each is also reported without its cases that repeat a train or dev
case word for word (``NAME-unique``). ``--misses`` also prints every miss and false match of the dev splits
with the variants (what development looks at); it never prints a test split's cases.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from monitor.golden import GoldenMatcher, GoldenSet  # noqa: E402
from monitor.golden.fitting import (  # noqa: E402
    Outcome,
    Paraphrase,
    figures,
    load_domains,
    load_paraphrases,
    outcomes,
    with_negatives,
    with_variants,
)

DATA = ROOT / "tests" / "data"
PARAPHRASES = DATA / "golden_match" / "paraphrases"
DEV_SPLITS = ("train", "dev", "dev2", "dev3")


def golden_sets(
    golden: Mapping[str, GoldenSet], train: Sequence[Paraphrase]
) -> dict[str, dict[str, GoldenSet]]:
    """The three ways the golden sets are scored: questions alone, train variants, and negatives too."""
    grown = {d: with_variants(g, train, d) for d, g in golden.items()}
    negatives = {d: with_negatives(g, train, d, GoldenMatcher(g)) for d, g in grown.items()}
    return {"none": dict(golden), "train": grown, "train+negatives": negatives}


def report(results: Sequence[Outcome], matcher: GoldenMatcher, **labels: str) -> None:
    for domain in ("all", *sorted({r.case.domain for r in results})):
        subset = [r for r in results if domain == "all" or r.case.domain == domain]
        found = figures(subset, matcher.threshold, matcher.margin).as_dict()
        print(json.dumps({**labels, "domain": domain, "threshold": matcher.threshold} | found), flush=True)


def print_misses(results: Sequence[Outcome], matcher: GoldenMatcher, split: str) -> None:
    for r in results:
        got = r.predicted(matcher.threshold, matcher.margin)
        if got != r.case.expect:
            kind = "false" if got is not None else "miss"
            line = {"split": split, "kind": kind, "domain": r.case.domain, "expect": r.case.expect}
            print(
                json.dumps(
                    line | {"best": r.best, "score": round(r.score, 3), "text": r.case.text},
                    ensure_ascii=False,
                )
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--misses", action="store_true", help="print the dev splits' misses (variants: train)"
    )
    parser.add_argument(
        "--test-file", type=Path, action="append", default=[], help="also score this test split"
    )
    args = parser.parse_args(argv)
    golden = load_domains(PARAPHRASES, DATA)
    splits = {name: load_paraphrases(PARAPHRASES / f"{name}.yaml") for name in DEV_SPLITS}
    seen = {(c.domain, c.text) for name in DEV_SPLITS for c in splits[name]}
    for path in args.test_file:
        splits[path.stem] = load_paraphrases(path)
        # A test case written word for word like a train or dev case is no unseen wording.
        splits[f"{path.stem}-unique"] = [c for c in splits[path.stem] if (c.domain, c.text) not in seen]
    for variants, sets in golden_sets(golden, splits["train"]).items():
        matchers = {d: GoldenMatcher(g) for d, g in sets.items()}
        some = next(iter(matchers.values()))
        for name, cases in splits.items():
            if name == "train" and variants != "none":
                continue  # train's own cases are its variants there
            results = outcomes(matchers, cases)
            report(results, some, split=name, variants=variants)
            if args.misses and variants == "train" and name in DEV_SPLITS:
                print_misses(results, some, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
