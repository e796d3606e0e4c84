"""Score the shipped matcher defaults (lexical alone, and the daemon's e5 blend) on the paraphrase splits.

Run: ``.venv/bin/python scripts/golden_match_defaults.py [--embed] [--test]``: JSON lines per mode,
variants (the train paraphrases added to their entries) and split, all domains pooled. Nothing is fitted
here. Without ``--test`` only dev is scored (develop on train and dev only).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from monitor.embeddings import Embedder, LocalE5Embedder  # noqa: E402
from monitor.golden import GoldenMatcher  # noqa: E402
from monitor.golden.fitting import (  # noqa: E402
    figures,
    load_domains,
    load_splits,
    outcomes,
    with_variants,
)

DATA = ROOT / "tests" / "data"
PARAPHRASES = DATA / "golden_match" / "paraphrases"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embed", action="store_true", help="also score the e5 blend (in-process e5)")
    parser.add_argument("--test", action="store_true", help="also score the test split")
    args = parser.parse_args()
    golden = load_domains(PARAPHRASES, DATA)
    splits = load_splits(PARAPHRASES)
    modes: list[tuple[str, Embedder | None]] = [("lexical", None)]
    if args.embed:
        modes.append(("blend", LocalE5Embedder()))
    for mode, embedder in modes:
        for variants in (False, True):
            sets = {d: with_variants(g, splits["train"], d) if variants else g for d, g in golden.items()}
            matchers = {d: GoldenMatcher(g, embedder) for d, g in sets.items()}
            some = next(iter(matchers.values()))
            for split in ("dev", "test") if args.test else ("dev",):
                found = figures(outcomes(matchers, splits[split]), some.threshold, some.margin)
                line = {"mode": mode, "variants": variants, "split": split, "threshold": some.threshold}
                print(json.dumps(line | {"margin": some.margin} | found.as_dict()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
