"""Measure the conditional-value check on the case splits of tests/data/conditional.

Prints one JSON line per split: cases, recall of the condition-bound values stated as general (cases
expecting critical or warning that raise any finding), severity agreement on them, and the false-flag
rate on the hard negatives (cases expecting none that raise one). ``--errors`` lists the cases the check
gets wrong; use it on train, train_more, train3, train4 and dev only (test, test3 and test4 are for the
reported figures).

    .venv/bin/python scripts/measure_conditional.py train dev test
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from monitor.conditional import ConditionalRules
from monitor.numeric import NumericRules

CASES = Path(__file__).resolve().parents[1] / "tests" / "data" / "conditional"


def load_cases(split: str) -> list[dict[str, Any]]:
    """The cases of one split (train, dev, test)."""
    data = yaml.safe_load((CASES / f"{split}.yaml").read_text(encoding="utf-8"))
    return list(data["cases"])


def verdict(rules: ConditionalRules, case: dict[str, Any]) -> str:
    """What the check says of one case: critical, warning or none."""
    report = rules.check(case["question"], case["answer"], case["chunks"])
    return report.severity or "none"


def measure(rules: ConditionalRules, cases: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """The figures of one split, and one line per wrong case."""
    bound = [c for c in cases if c["expect"] != "none"]
    negatives = [c for c in cases if c["expect"] == "none"]
    said = {c["id"]: verdict(rules, c) for c in cases}
    caught = [c for c in bound if said[c["id"]] != "none"]
    figures = {
        "cases": len(cases),
        "bound": len(bound),
        "recall": round(len(caught) / len(bound), 4) if bound else None,
        "severity_agreement": round(sum(said[c["id"]] == c["expect"] for c in caught) / len(caught), 4)
        if caught
        else None,
        "negatives": len(negatives),
        "false_flag_rate": round(sum(said[c["id"]] != "none" for c in negatives) / len(negatives), 4)
        if negatives
        else None,
    }
    errors = [
        f"{c['id']}: expected {c['expect']}, got {said[c['id']]}"
        for c in cases
        if said[c["id"]] != c["expect"]
    ]
    return figures, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("splits", nargs="*", default=["train", "dev", "test"])
    parser.add_argument("--errors", action="store_true", help="list the cases the check gets wrong")
    args = parser.parse_args(argv)
    rules = ConditionalRules.load(NumericRules.load())
    for split in args.splits:
        cases = load_cases(split)
        figures, errors = measure(rules, cases)
        for language in sorted({c["language"] for c in cases}):
            figures[language] = measure(rules, [c for c in cases if c["language"] == language])[0]
        print(json.dumps({"split": split, **figures}, ensure_ascii=False))
        if args.errors:
            for line in errors:
                print("  " + line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
