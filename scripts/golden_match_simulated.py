"""Score the shipped golden matcher on the simulator's held-out test wordings (nothing fitted here).

The simulator's domains (BanHang, telecom, insurer, and the clinic domain file) map each intent to the
golden entry that answers it (or none: those questions are the negatives), and its test wordings
(``tests/data/simulate/*.test.json``) were written by another writer from the section texts, for the
simulator, not for golden matching. Each question is matched against its domain's golden set.

Run: ``.venv/bin/python scripts/golden_match_simulated.py --split dev|test [--variants [--negatives]]
[--embed]``: JSON lines per mode and domain. ``--variants`` adds the domain's train wordings (the packaged
domain file) to their entries; ``--negatives`` then keeps the train wordings that matcher matches
wrongly (sibling intents, questions of no entry) on those entries as negatives, as review promotion
(``--as-negative``) would; ``--veto-only`` turns the per-entry bar over those negatives off.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from monitor.embeddings import Embedder, LocalE5Embedder  # noqa: E402
from monitor.golden import GoldenMatcher, GoldenSet  # noqa: E402
from monitor.golden.fitting import Paraphrase, figures, outcomes, with_negatives, with_variants  # noqa: E402
from monitor.golden.match import DEFAULT_NEGATIVE_BAR  # noqa: E402
from monitor.simulate import load_domain  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from measure_detection import DOMAINS  # noqa: E402

SIMULATE = ROOT / "tests" / "data" / "simulate"


def train_wordings(name: str, source: str) -> list[Paraphrase]:
    """The domain's train wordings (the packaged domain file), each with the entry it asks or None."""
    return [
        Paraphrase(name, i.golden, q)
        for i in load_domain(source).intents
        for w in i.questions.values()
        for q in w
    ]


def cases(
    name: str, source: str, split: str, variants: bool, negatives: bool = False
) -> tuple[GoldenSet, list[Paraphrase]]:
    """The domain's golden set (train wordings as variants, false matches as negatives) and the questions."""
    domain = load_domain(source, SIMULATE / f"{name}.{split}.json")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "golden.json"
        path.write_text(json.dumps(list(domain.golden), ensure_ascii=False), encoding="utf-8")
        golden = GoldenSet.load([path])
    if variants:
        golden = with_variants(golden, train_wordings(name, source), name)
        if negatives:
            golden = with_negatives(golden, train_wordings(name, source), name, GoldenMatcher(golden))
    questions = [
        Paraphrase(name, intent.golden, question)
        for intent in domain.intents
        for wordings in intent.questions.values()
        for question in wordings
    ]
    return golden, questions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embed", action="store_true", help="also score the e5 blend (in-process e5)")
    parser.add_argument("--split", choices=("dev", "test"), default="dev", help="the wordings scored")
    parser.add_argument("--variants", action="store_true", help="the domain's train wordings as variants")
    parser.add_argument(
        "--negatives", action="store_true", help="with --variants: train false matches as negatives"
    )
    parser.add_argument(
        "--veto-only", action="store_true", help="negatives veto nearby questions only (no per-entry bar)"
    )
    args = parser.parse_args()
    data = {
        name: cases(name, str(source), args.split, args.variants, args.negatives)
        for name, source in DOMAINS.items()
        if (SIMULATE / f"{name}.{args.split}.json").is_file()  # the clinic domain has no dev wordings
    }
    modes: list[tuple[str, Embedder | None]] = [("lexical", None)]
    if args.embed:
        modes.append(("blend", LocalE5Embedder()))
    for mode, embedder in modes:
        matchers = {
            name: GoldenMatcher(
                golden, embedder, negative_bar=None if args.veto_only else DEFAULT_NEGATIVE_BAR
            )
            for name, (golden, _) in data.items()
        }
        some = next(iter(matchers.values()))
        pooled = []
        for name, (_, questions) in data.items():
            results = outcomes(matchers, questions)
            pooled += results
            found = figures(results, some.threshold, some.margin).as_dict()
            line = {"mode": mode, "split": args.split, "variants": args.variants, "negatives": args.negatives}
            line["domain"] = name
            print(json.dumps(line | {"threshold": some.threshold} | found), flush=True)
        found = figures(pooled, some.threshold, some.margin).as_dict()
        line = {"mode": mode, "split": args.split, "variants": args.variants, "negatives": args.negatives}
        line["domain"] = "all"
        print(json.dumps(line | {"threshold": some.threshold} | found), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
