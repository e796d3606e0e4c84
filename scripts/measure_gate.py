"""How ``ragmon gate`` judges simulated runs of the golden questions: healthy index vs seed 000's bad deploy.

For each domain and split, ``--runs`` CI runs are simulated per index (``good``: the healthy index,
``bad``: the re-chunked one, from the first trace on): each run takes, for every golden entry, the first
trace the simulator generates for it (its answer right or wrong as the simulator drew it, with the
default error rates) and names the entry by ``golden_id``, as the harness does. Every run is gated
with the domain's golden set and sections, with ``numeric.parenthetical`` ``optional`` (the default)
and ``required``. Joined with the simulator's label (``simulation.correct``):

- run level: the share of runs the gate fails, per index (good: should be low, bad: should be 1);
- entry level: correct answers whose entry fails (false failures) and wrong answers whose entry passes
  (misses), over every entry of every run.

One JSON line per domain, split and configuration on stdout:

    .venv/bin/python scripts/measure_gate.py --split test --seed 5101

Splits (tests/data/simulate/FORMAT.md): ``train`` is the packaged domain file, ``dev`` and ``test`` its
variant files. Choose on ``dev``; report ``test`` from a seed you did not develop on.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from monitor.gate import GateConfig, Scorer, run_gate  # noqa: E402
from monitor.golden import AbstentionDetector, GoldenSet  # noqa: E402
from monitor.numeric import NumericRules  # noqa: E402
from monitor.simulate import SimConfig, generate, write_golden, write_sections  # noqa: E402

DOMAINS = ("banhang", "telecom", "insurer")
SIMULATE = ROOT / "tests" / "data" / "simulate"
CONFIGS = {
    "parenthetical_optional": GateConfig(numeric={"parenthetical": "optional"}),
    "parenthetical_required": GateConfig(numeric={"parenthetical": "required"}),
}
TRACES_PER_RUN = 400  # enough for every golden intent to come up (the rarest has weight 1 of ~15)


def variants(domain: str, split: str) -> Path | None:
    return None if split == "train" else SIMULATE / f"{domain}.{split}.json"


def one_run(domain: str, split: str, index: str, seed: int) -> list[dict[str, Any]]:
    """The first trace of every golden entry in a stretch of simulated traffic on one index."""
    config = SimConfig(
        count=TRACES_PER_RUN,
        seed=seed,
        domain=domain,
        variants=variants(domain, split),
        bad_deploy_at=0 if index == "bad" else None,
        late_feedback=0.0,
    )
    first: dict[str, dict[str, Any]] = {}
    for record in generate(config):
        golden = record.get("simulation", {}).get("golden")
        if golden and golden not in first:
            first[golden] = {**record, "golden_id": golden}
    return list(first.values())


def runs(
    domain: str, split: str, index: str, seed: int, count: int, out: Path
) -> Iterator[tuple[Path, dict[str, bool]]]:
    for n in range(count):
        records = one_run(domain, split, index, seed * 1000 + n)
        path = out / f"{domain}-{split}-{index}-{n}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        yield path, {r["trace_id"]: bool(r["simulation"]["correct"]) for r in records}


def measure(
    domain: str, split: str, seed: int, count: int, numeric: NumericRules, tmp: Path
) -> Iterator[dict[str, Any]]:
    write_golden(tmp / f"{domain}.golden.json", domain)  # variants re-word traffic, not the golden set
    write_sections(tmp / f"{domain}.sections.json", domain)
    golden = GoldenSet.load([tmp / f"{domain}.golden.json"], tmp / f"{domain}.sections.json")
    made = {index: list(runs(domain, split, index, seed, count, tmp)) for index in ("good", "bad")}
    for name, config in CONFIGS.items():
        scorer = Scorer(golden, config, numeric, AbstentionDetector.load(), _no_matcher)
        row: dict[str, Any] = {"domain": domain, "split": split, "seed": seed, "config": name, "runs": count}
        for index, made_runs in made.items():
            tally: Counter[str] = Counter()
            for path, correct in made_runs:
                result = run_gate(scorer, path)
                tally["failed_runs"] += not result.passed
                tally["floor_failed_runs"] += bool(result.failing_checks)
                for entry in result.run.entries:
                    right = correct.get(entry.trace_id or "", True)
                    tally["entries"] += 1
                    tally["wrong_answers"] += not right
                    tally["false_failures"] += right and not entry.passed
                    tally["misses"] += (not right) and entry.passed
                    for failure in entry.failures:
                        tally[f"reason:{_reason(failure)}"] += 1
            row[index] = dict(sorted(tally.items()))
        yield row


def _reason(failure: str) -> str:
    text = failure.split(": ", 1)[1]
    if text.startswith("unanswerable"):
        return "abstention"
    if text.startswith("no trace"):
        return "unanswered"
    return "numeric"


def _no_matcher() -> Any:
    raise AssertionError("every simulated trace names its golden entry")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("train", "dev", "test"), default="dev")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20, help="simulated CI runs per domain and index")
    parser.add_argument("--domain", action="append", choices=DOMAINS, help="default: all")
    args = parser.parse_args()
    numeric = NumericRules.load()
    with tempfile.TemporaryDirectory() as tmp:
        for domain in args.domain or DOMAINS:
            for row in measure(domain, args.split, args.seed, args.runs, numeric, Path(tmp)):
                print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
