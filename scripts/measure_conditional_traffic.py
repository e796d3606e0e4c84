"""The conditional-value check alone on simulated traffic: conditional-as-general answers flagged, and
correct answers flagged, per domain (tests/data/simulate/FORMAT.md splits: train is the packaged domain
file, dev and test its variant files). One JSON line per domain:

    .venv/bin/python scripts/measure_conditional_traffic.py --split test --seed 7321
    .venv/bin/python scripts/measure_conditional_traffic.py --split train --e5 --domain streaming

``--e5`` gives the check the local multilingual e5, as the daemon does (answers in another writing
than the policy are matched by meaning); a last line sums the domains.

Only the check's own verdict counts here (no judge, no other flag); scripts/measure_detection.py gives
the whole pipeline's figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from measure_detection import DOMAINS, traffic_config  # noqa: E402

from monitor.conditional import ConditionalRules  # noqa: E402
from monitor.embeddings import LocalE5Embedder  # noqa: E402
from monitor.numeric import NumericRules  # noqa: E402
from monitor.simulate import generate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "dev", "test"), default="dev")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--domain", action="append", choices=sorted(DOMAINS), help="default: all")
    parser.add_argument("--e5", action="store_true", help="with the local e5 embedder, as the daemon")
    args = parser.parse_args(argv)
    rules = ConditionalRules.load(NumericRules.load(), embedder=LocalE5Embedder() if args.e5 else None)
    total = dict.fromkeys(("correct", "correct_flagged", "conditional_as_general", "conditional_flagged"), 0)
    for domain in DOMAINS:
        if args.domain and domain not in args.domain:
            continue
        config = traffic_config(domain, args.split, args.seed, args.count)
        if config is None:
            continue
        counts = {"correct": 0, "correct_flagged": 0, "conditional_as_general": 0, "conditional_flagged": 0}
        for message in generate(config):
            kind = message.get("simulation", {}).get("kind", "") if "simulation" in message else ""
            if kind not in (None, "conditional_as_general"):
                continue
            chunks = [chunk["text"] for chunk in message.get("retrieved_chunks", [])]
            flagged = bool(rules.check(message["question"], message["answer"], chunks).findings)
            key = "correct" if kind is None else "conditional_as_general"
            counts[key] += 1
            counts["correct_flagged" if kind is None else "conditional_flagged"] += flagged
        head = {"domain": domain, "split": args.split, "seed": args.seed}
        print(json.dumps({**head, **counts, **_rates(counts)}))
        total = {key: total[key] + counts[key] for key in total}
    print(json.dumps({"domain": "all", "split": args.split, "seed": args.seed, **total, **_rates(total)}))
    return 0


def _rates(counts: dict[str, int]) -> dict[str, float]:
    """Conditional answers flagged, and correct answers flagged, as shares."""
    wrong = max(counts["conditional_as_general"], 1)
    return {
        "conditional_recall": round(counts["conditional_flagged"] / wrong, 4),
        "correct_flagged_rate": round(counts["correct_flagged"] / max(counts["correct"], 1), 4),
    }


if __name__ == "__main__":
    raise SystemExit(main())
