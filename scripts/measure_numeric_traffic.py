"""The numeric check alone on simulated traffic: correct answers with a number no chunk supports, and
wrong numbers and units found, per domain (tests/data/simulate/FORMAT.md splits). One JSON line per
domain and a last line summing them:

    .venv/bin/python scripts/measure_numeric_traffic.py --split train --seed 9090 --count 1200

Only the check's own verdict counts (``NumericRules.check``: an unsupported quantity); no judge, no
other flag. scripts/measure_detection.py gives the whole pipeline's figures.
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

from monitor.numeric import NumericRules  # noqa: E402
from monitor.simulate import generate  # noqa: E402

WRONG = frozenset({"wrong_number", "wrong_unit"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "dev", "test"), default="train")
    parser.add_argument("--seed", type=int, default=9090)
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--domain", action="append", choices=sorted(DOMAINS), help="default: all")
    args = parser.parse_args(argv)
    rules = NumericRules.load()
    total = dict.fromkeys(("correct", "correct_unsupported", "wrong", "wrong_found"), 0)
    for domain in DOMAINS:
        if args.domain and domain not in args.domain:
            continue
        config = traffic_config(domain, args.split, args.seed, args.count)
        if config is None:
            continue
        counts = dict.fromkeys(total, 0)
        for message in generate(config):
            if "simulation" not in message:
                continue
            kind = message["simulation"]["kind"]
            if kind is not None and kind not in WRONG:
                continue
            chunks = [chunk["text"] for chunk in message.get("retrieved_chunks", [])]
            found = bool(rules.check(message["answer"], chunks).unsupported)
            if kind is None:
                counts["correct"] += 1
                counts["correct_unsupported"] += found
            else:
                counts["wrong"] += 1
                counts["wrong_found"] += found
        print(json.dumps({"domain": domain, "split": args.split, "seed": args.seed, **counts}))
        total = {name: total[name] + counts[name] for name in total}
    print(json.dumps({"domain": "all", "split": args.split, "seed": args.seed, **total}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
