"""The conditional check with reviewers' mutes, on simulated traffic: what muting the false alarms of the
first traces does to the rest. One JSON line per domain, a last line summing them:

    .venv/bin/python scripts/measure_mutes.py --split train --seed 9090 --e5 --domain hotpot

Each domain's traffic goes through the check as the daemon runs it; its flagged traces go to a real
review store (SQLite, in a temporary folder). A simulated reviewer reads the flagged cases among the
first ``--window`` traces, at most ``--budget`` of them: a wrong answer is labelled bad (confirmed), a
correct one ok and then muted with ``ReviewStore.mute`` (which refuses a finding a confirmed case
raised). The check reloads the mutes after each review. The figures are the rest of the traffic's:
conditional-as-general answers flagged and correct answers flagged, without mutes and with them.

Two reviewers: ``naive`` mutes every false alarm the store lets it; ``careful`` mutes only a finding
the domain's wrong answers never raise (an oracle for a reviewer who reads the policy sentence and
sees it does not bind the value; a reviewer who sees that the customer asked about the condition
labels the case ok and does not mute). Simulated traffic and simulated reviewers: a measure of the
mechanism, not of a real team.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from measure_detection import DOMAINS, traffic_config  # noqa: E402

from monitor.conditional import ConditionalReport, ConditionalRules, Mute  # noqa: E402
from monitor.embeddings import LocalE5Embedder  # noqa: E402
from monitor.numeric import NumericRules  # noqa: E402
from monitor.review import ReviewStore, open_store  # noqa: E402
from monitor.review.models import ReviewError  # noqa: E402
from monitor.simulate import generate  # noqa: E402

REASON = "unqualified_condition"


def _traffic(domain: str, split: str, seed: int, count: int) -> list[dict[str, Any]]:
    """The domain's conditional-as-general and correct traces, in traffic order."""
    config = traffic_config(domain, split, seed, count)
    if config is None:
        return []
    out = []
    for message in generate(config):
        kind = message.get("simulation", {}).get("kind", "") if "simulation" in message else ""
        if kind in (None, "conditional_as_general"):
            out.append(message)
    return out


def _review(store: ReviewStore, message: dict[str, Any], report: ConditionalReport, wrong: bool) -> str:
    """Store the flagged case, label it as the simulator knows it, and mute a false alarm."""
    trace_id = message["trace_id"]
    record = {"trace_id": trace_id, "conditional": report.as_dict(), "flags": [{"reason": REASON}]}
    store.upsert_case(message, record, [REASON])
    store.label(trace_id, "bad" if wrong else "ok", reviewer="simulated")
    if wrong:
        return "confirmed"
    try:
        store.mute(trace_id, reviewer="simulated")
    except ReviewError:
        return "refused"
    return "muted"


def measure(
    rules: ConditionalRules, traffic: list[dict[str, Any]], window: int, budget: int, careful: bool
) -> dict[str, Any]:
    chunks = [[c["text"] for c in m.get("retrieved_chunks", [])] for m in traffic]
    rules.mutes.replace(())
    plain = [rules.check(m["question"], m["answer"], c) for m, c in zip(traffic, chunks, strict=True)]
    wrong = [r for m, r in zip(traffic, plain, strict=True) if m["simulation"]["kind"]]
    real = {Mute.of(f) for r in wrong for f in r.findings}  # the bindings wrong answers raise
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as folder, open_store(str(Path(folder) / "review.db")) as store:
        rules.mutes.store_as(store.stored_text)  # as the daemon compares them
        for message, context in zip(traffic[:window], chunks, strict=False):
            report = rules.check(message["question"], message["answer"], context)
            if not report.findings or counts["reviewed"] >= budget:
                continue
            bad = message["simulation"]["kind"] is not None
            counts["reviewed"] += 1
            if careful and not bad and any(Mute.of(f) in real for f in report.findings):
                store.upsert_case(message, {"trace_id": message["trace_id"]}, [REASON])
                store.label(message["trace_id"], "ok", reviewer="simulated")
                counts["labelled_only"] += 1
                continue
            counts[_review(store, message, report, bad)] += 1
            rules.mutes.replace(m.mute for m in store.mutes())
        mutes = len(rules.mutes)
        for message, context, before in zip(traffic[window:], chunks[window:], plain[window:], strict=True):
            after = rules.check(message["question"], message["answer"], context)
            key = "wrong" if message["simulation"]["kind"] else "correct"
            counts[key] += 1
            counts[f"{key}_flagged"] += bool(before.findings)
            counts[f"{key}_flagged_muted"] += bool(after.findings)
    rules.mutes.replace(())
    rules.mutes.store_as(str)
    return {**counts, "mutes": mutes}


def _rates(counts: dict[str, Any]) -> dict[str, Any]:
    def share(part: str, whole: str) -> float:
        return round(counts.get(part, 0) / counts[whole], 4) if counts.get(whole) else 0.0

    return {
        "recall": share("wrong_flagged", "wrong"),
        "recall_muted": share("wrong_flagged_muted", "wrong"),
        "false_flags": share("correct_flagged", "correct"),
        "false_flags_muted": share("correct_flagged_muted", "correct"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "dev", "test"), default="train")
    parser.add_argument("--seed", type=int, default=9090)
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--window", type=int, default=300, help="the traces whose flagged cases are reviewed")
    parser.add_argument("--budget", type=int, default=50, help="at most this many reviews per domain")
    parser.add_argument("--reviewer", choices=("careful", "naive"), default="careful")
    parser.add_argument("--domain", action="append", choices=sorted(DOMAINS), help="default: all")
    parser.add_argument("--e5", action="store_true", help="with the local e5 embedder, as the daemon")
    args = parser.parse_args(argv)
    rules = ConditionalRules.load(NumericRules.load(), embedder=LocalE5Embedder() if args.e5 else None)
    total: Counter[str] = Counter()
    for domain in args.domain or sorted(DOMAINS):
        traffic = _traffic(domain, args.split, args.seed, args.count)
        if not traffic:
            continue
        counts = measure(rules, traffic, args.window, args.budget, args.reviewer == "careful")
        total.update(counts)
        head = {"domain": domain, "split": args.split, "seed": args.seed, "reviewer": args.reviewer}
        print(json.dumps({**head, **counts, **_rates(counts)}), flush=True)
    print(json.dumps({"domain": "all", "reviewer": args.reviewer, **total, **_rates(total)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
