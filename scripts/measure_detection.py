"""End-to-end detection on simulated traffic: which wrong answers the default pipeline flags, and how
many correct ones it flags too (issue 11's figures).

For each domain and split it generates traffic with ``ragmon simulate``'s generator (a healthy index,
then seed 000's bad deploy from the middle on), replays it through ``ragmon replay`` with the domain's
golden set and sections and the default configuration (local judge, default sampling), and joins each
result record with the simulator's label (``simulation.kind``: ``None`` for a correct answer). One JSON
line per domain and split on stdout:

    .venv/bin/python scripts/measure_detection.py --split test --seed 9173

Splits (tests/data/simulate/FORMAT.md): ``train`` is the packaged domain file, ``dev`` and ``test`` its
variant files. Report ``test`` figures only from a seed you did not develop on; choose on ``dev``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from monitor.cli import main as ragmon  # noqa: E402
from monitor.simulate import SimConfig, generate, write_golden, write_sections  # noqa: E402

JUDGE_REASONS = frozenset(
    {
        "low_faithfulness",
        "low_answer_relevance",
        "low_context_relevance",
        "low_context_precision",
        "judge_error",
    }
)
FEEDBACK_REASONS = frozenset({"negative_feedback"})  # the customer's own complaint, not a detector's
# Real defects the simulator plants in correct answers: a citation of a chunk that was not retrieved
# (monitor/simulate/traffic.py, 1% of answers). Flagging them is right; they are no false flag.
PLANTED_REASONS = frozenset({"invalid_citation"})
DATA = ROOT / "tests" / "data" / "simulate"
DOMAINS: dict[str, str | Path] = {
    "banhang": "banhang",
    "telecom": "telecom",
    "insurer": "insurer",
    "clinic": DATA / "clinic.domain.json",
    "isp": DATA / "isp.domain.json",
    "bank": DATA / "bank.domain.json",
    "airline": DATA / "airline.domain.json",
    "gym": DATA / "gym.domain.json",
    "appliance": DATA / "appliance.domain.json",
    "vet": DATA / "vet.domain.json",
    "carrental": DATA / "carrental.domain.json",
    "streaming": DATA / "streaming.domain.json",
    "pharmacy": DATA / "pharmacy.domain.json",
    "school": DATA / "school.domain.json",
    "hotel": DATA / "hotel.domain.json",
    "courier": DATA / "courier.domain.json",
    "utility": DATA / "utility.domain.json",
    "dental": DATA / "dental.domain.json",
    "tuition": DATA / "tuition.domain.json",
    "cinema": DATA / "cinema.domain.json",
    "coworking": DATA / "coworking.domain.json",
    "furniture": DATA / "furniture.domain.json",
    "bookshop": DATA / "bookshop.domain.json",
    "mobilevn": DATA / "mobilevn.domain.json",
    "travelins": DATA / "travelins.domain.json",
    "ebike": DATA / "ebike.domain.json",
    "carinsure": DATA / "carinsure.domain.json",
    "petshop": DATA / "petshop.domain.json",
    "groceries": DATA / "groceries.domain.json",
    "hotpot": DATA / "hotpot.domain.json",
    "airportpark": DATA / "airportpark.domain.json",
    "phonerepair": DATA / "phonerepair.domain.json",
    "busvn": DATA / "busvn.domain.json",
    "laundry": DATA / "laundry.domain.json",
    "evcharge": DATA / "evcharge.domain.json",
    "spa": DATA / "spa.domain.json",
    "daycare": DATA / "daycare.domain.json",
    "optician": DATA / "optician.domain.json",
    "petinsure": DATA / "petinsure.domain.json",
    "housekeep": DATA / "housekeep.domain.json",
    "healthins": DATA / "healthins.domain.json",
    "travelagency": DATA / "travelagency.domain.json",
}


def variants(domain: str, split: str) -> Path | None:
    """The split's variant file, None for train (the domain file's own wordings)."""
    if split == "train":
        return None
    path = DATA / f"{domain}.{split}.json"
    return path if path.exists() else None


def traffic_config(domain: str, split: str, seed: int, count: int) -> SimConfig | None:
    """The simulated traffic of a domain's split: a healthy index, then seed 000's bad deploy from the
    middle on; None when the domain has no such split."""
    variant = variants(domain, split)
    if split != "train" and variant is None:
        return None
    return SimConfig(
        count=count, seed=seed, domain=DOMAINS[domain], variants=variant, bad_deploy_at=count // 2
    )


def measure(domain: str, split: str, seed: int, count: int, work: Path) -> dict[str, Any] | None:
    config = traffic_config(domain, split, seed, count)
    if config is None:
        return None
    source = DOMAINS[domain]
    traces = work / f"{domain}.{split}.jsonl"
    labels: dict[str, dict[str, Any]] = {}
    with traces.open("w", encoding="utf-8") as out:
        for message in generate(config):
            if "simulation" in message:
                labels[message["trace_id"]] = message["simulation"]
            out.write(json.dumps(message, ensure_ascii=False) + "\n")
    golden, sections, results = (
        work / f"{domain}.golden.json",
        work / f"{domain}.sections.json",
        work / "r.jsonl",
    )
    write_golden(golden, source)
    write_sections(sections, source)
    with contextlib.redirect_stdout(io.StringIO()):  # the replay's own summary
        code = ragmon(
        [
            "replay", str(traces), "--log-level", "error", "--golden", str(golden), "--golden-sections",
            str(sections), "--results", str(results), "--store", str(work / f"{domain}.{split}.db"),
            "--dlq", str(work / "dlq.jsonl"), "--format", "json",
        ]
    )  # fmt: skip
    if code != 0:
        raise SystemExit(f"replay of {traces} exited {code}")
    by_kind: dict[str, list[bool]] = defaultdict(list)
    detectors: dict[str, list[bool]] = defaultdict(list)  # without feedback and judge flags
    false_reasons: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for record in records:
        label = labels.get(record["trace_id"])
        if label is None:
            continue
        reasons = {flag["reason"] for flag in record["flags"]}
        kind = label["kind"] or "correct"
        by_kind[kind].append(bool(reasons))
        detectors[kind].append(bool(reasons - JUDGE_REASONS - FEEDBACK_REASONS))
        if kind == "correct":
            false_reasons.update(reasons)
        elif not reasons:
            missed[kind] += 1

    def share(values: list[bool]) -> float | None:
        return round(sum(values) / len(values), 3) if values else None

    wrong = [v for kind, values in by_kind.items() if kind != "correct" for v in values]
    return {
        "domain": domain,
        "split": split,
        "seed": seed,
        "traces": sum(len(v) for v in by_kind.values()),
        "conditional_as_general_flagged": share(by_kind.get("conditional_as_general", [])),
        "wrong_flagged": share(wrong),
        "correct_flagged": share(by_kind.get("correct", [])),
        "correct_flagged_without_feedback": share(
            [bool(r) for r in _reasons_without(records, labels, FEEDBACK_REASONS)]
        ),
        "correct_flagged_wrongly": share(
            [bool(r) for r in _reasons_without(records, labels, FEEDBACK_REASONS | PLANTED_REASONS)]
        ),
        "correct_flagged_by_cheap_detectors": share(detectors.get("correct", [])),
        "wrong_flagged_by_cheap_detectors": share(
            [v for kind, values in detectors.items() if kind != "correct" for v in values]
        ),
        "by_kind": {k: {"n": len(v), "flagged": share(v)} for k, v in sorted(by_kind.items())},
        "false_flag_reasons": _by_count(false_reasons),
        "missed_by_kind": _by_count(missed),
    }


def _by_count(counts: Counter[str]) -> dict[str, int]:
    """Most common first, ties by name: ``most_common`` keeps first-seen order, which a set of reasons
    per record (and the replay's record order) leaves to chance."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _reasons_without(
    records: list[dict[str, Any]], labels: dict[str, dict[str, Any]], left_out: frozenset[str]
) -> list[set[str]]:
    """The flag reasons of each correct answer, some reasons left out."""
    return [
        {flag["reason"] for flag in r["flags"]} - left_out
        for r in records
        if r["trace_id"] in labels and labels[r["trace_id"]]["kind"] is None
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "dev", "test"), default="dev")
    parser.add_argument("--domain", action="append", choices=sorted(DOMAINS), help="default: all")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--keep", type=Path, help="keep the traces and result records in this folder")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ragmon-detect-") as tmp:
        for domain in args.domain or sorted(DOMAINS):
            work = args.keep / domain if args.keep else Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            line = measure(domain, args.split, args.seed, args.count, work)
            if line is not None:
                print(json.dumps(line, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
