"""``ragmon eval judge`` on the dev splits of ``tests/data/judge_eval``: one JSON line per file and language.

Each line is the harness's report (``monitor.judge.evaluate``) with ``name: judge_eval``, the file and
its split: AUROC [bootstrap 95% CI] and balanced accuracy at the flag threshold of the local judge's
faithfulness and ranking score, beside word and character-bigram overlap, and ``vs_baseline``:
faithfulness AUROC minus the better baseline's with its paired bootstrap interval. Test splits are
not read here: they are for the figures reported once in docs/local-judge.md.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from monitor.cli import main

pytestmark = [pytest.mark.bench, pytest.mark.timeout(1800)]

DATA = Path(__file__).parents[1] / "data" / "judge_eval"
DEV = ["en.dev.jsonl", "zh.dev.jsonl", "ja.dev.jsonl", "nli/vi.dev.jsonl", "nli/en.dev.jsonl"]
DEV += ["nli/zh.dev.jsonl", "nli/ja.dev.jsonl"]


@pytest.mark.parametrize("name", DEV)
def test_bench_eval_judge_dev(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The harness's figures on one dev file, printed as JSON lines tagged with the split."""
    start = time.perf_counter()
    assert main(["eval", "judge", str(DATA / name), "--format", "jsonl", "--resamples", "1000"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    seconds = round(time.perf_counter() - start, 1)
    with capsys.disabled():
        for line in lines:
            line["file"] = name
            print("\n" + json.dumps({"name": "judge_eval", "split": "dev", **line, "seconds": seconds}))
    assert lines and all(0.0 <= line["faithfulness"]["auroc"] <= 1.0 for line in lines)
    for line in lines:  # the paired interval of the difference, against a named baseline
        low, high = line["vs_baseline"]["ci"]
        assert line["vs_baseline"]["baseline"] in {"word_overlap", "char_overlap"} and low <= high
