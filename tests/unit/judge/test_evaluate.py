"""The judge evaluation harness: statistics, baselines, labelled files and ``ragmon eval judge``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from monitor.cli import main
from monitor.exceptions import ConfigError
from monitor.judge import evaluate
from monitor.judge.base import JudgeChunk, JudgeInput

CHUNK = "The warranty lasts 12 months from delivery. Returns are accepted within 30 days with a receipt."


def _row(trace_id: str, answer: str, faithful: object, language: str = "en") -> dict[str, object]:
    return {
        "trace_id": trace_id,
        "question": "What is the warranty?",
        "answer": answer,
        "retrieved_chunks": [{"chunk_id": "c1", "text": CHUNK}],
        "language": language,
        "faithful": faithful,
    }


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_auroc_of_a_perfect_an_inverted_and_a_tied_ranking() -> None:
    """AUROC is 1.0 when every faithful trace scores higher, 0.0 when inverted, 0.5 for ties."""
    labels = [True, True, False, False]
    assert evaluate.auroc([0.9, 0.8, 0.2, 0.1], labels) == 1.0
    assert evaluate.auroc([0.1, 0.2, 0.8, 0.9], labels) == 0.0
    assert evaluate.auroc([0.5, 0.5, 0.5, 0.5], labels) == 0.5
    assert evaluate.auroc([0.9, 0.3, 0.5, 0.1], labels) == 0.75
    assert evaluate.auroc([0.9, 0.8], [True, True]) != evaluate.auroc([0.9, 0.8], [True, True])  # NaN


def test_bootstrap_interval_brackets_the_estimate_and_is_reproducible() -> None:
    """The 95% interval holds the point estimate and does not change with the same seed."""
    rng = np.random.default_rng(1)
    labels = rng.random(200) < 0.5
    scores = labels * 0.5 + rng.random(200)
    point = evaluate.auroc(scores, labels)
    low, high = evaluate.bootstrap(scores, labels, 300, seed=5)
    assert low < point < high
    assert 0.05 < high - low < 0.3
    assert evaluate.bootstrap(scores, labels, 300, seed=5) == (low, high)


def test_paired_interval_of_a_difference_is_narrower_than_the_separate_ones() -> None:
    """Two correlated scorers, one a little better: the paired interval of the difference excludes 0
    while the separate intervals overlap, and identical scorers give exactly 0."""
    rng = np.random.default_rng(3)
    labels = rng.random(300) < 0.5
    base = labels * 0.3 + rng.random(300)
    better = base + labels * 0.06  # the same noise, a slightly wider gap
    low, high = evaluate.paired_bootstrap(better, base, labels, 400, seed=7)
    delta = evaluate.auroc(better, labels) - evaluate.auroc(base, labels)
    assert 0.0 < low < delta < high
    separate_better = evaluate.bootstrap(better, labels, 400)
    separate_base = evaluate.bootstrap(base, labels, 400)
    assert separate_better[0] < separate_base[1]  # the separate intervals overlap
    assert high - low < (separate_better[1] - separate_better[0]) / 2
    assert evaluate.paired_bootstrap(base, base, labels, 50) == (0.0, 0.0)
    assert np.isnan(evaluate.paired_bootstrap(base, base, labels, 0)).all()


def test_report_compares_faithfulness_with_the_better_baseline() -> None:
    """``vs_baseline`` names the baseline with the higher AUROC and subtracts it from faithfulness."""
    case = evaluate.Labelled(JudgeInput("t", "", "x", ()), True, "en")
    rows = []
    for faithful, judge, word, char in [
        (True, 0.9, 0.2, 0.9),
        (True, 0.7, 0.8, 0.6),
        (False, 0.8, 0.5, 0.4),
        (False, 0.1, 0.6, 0.5),
    ]:
        labelled = evaluate.Labelled(case.item, faithful, "en")
        rows.append(evaluate.Scored(labelled, judge, judge, {"word_overlap": word, "char_overlap": char}))
    (r,) = evaluate.report(rows, 0.8, resamples=50)
    assert r.metrics["char_overlap"].auroc == 1.0 and r.metrics["word_overlap"].auroc == 0.5
    assert r.vs_baseline.baseline == "char_overlap"
    assert r.vs_baseline.delta == pytest.approx(0.75 - 1.0)
    low, high = r.vs_baseline.ci
    assert low <= r.vs_baseline.delta <= high <= 0.0
    assert r.as_dict()["vs_baseline"]["baseline"] == "char_overlap"


def test_balanced_accuracy_at_a_threshold_and_at_the_best_one() -> None:
    """Flagged = score below the threshold; the best threshold separates a separable set fully."""
    labels = np.array([True, True, False, False])
    scores = np.array([0.9, 0.75, 0.7, 0.1])
    assert evaluate.balanced_accuracy(scores < 0.8, labels) == 0.75
    assert evaluate.best_balanced_accuracy(scores, labels) == 1.0


def test_baselines_fold_diacritics_and_read_characters_without_spaces() -> None:
    """Word overlap ignores Vietnamese accents; character overlap sees CJK bigrams a word split cannot."""
    vi = JudgeInput("t", "", "phi van chuyen", (JudgeChunk("c", "Phí vận chuyển là 30.000 đồng"),))
    assert evaluate.word_overlap(vi) == 1.0
    zh = JudgeInput("t", "", "退货期限为三十天", (JudgeChunk("c", "本店退货期限为三十天。"),))
    assert evaluate.word_overlap(zh) == 0.0
    assert evaluate.char_overlap(zh) == 1.0
    half = JudgeInput("t", "", "退货一年", (JudgeChunk("c", "退货期限"),))
    assert evaluate.char_overlap(half) == pytest.approx(1 / 3)


def test_labelled_file_needs_a_boolean_label(tmp_path: Path) -> None:
    """A missing or non-boolean ``faithful`` field is refused with its line number."""
    path = _write(tmp_path / "bad.jsonl", [_row("a", "x", True), _row("b", "y", "yes")])
    with pytest.raises(ConfigError, match=r"bad.jsonl:2: `faithful` must be true or false"):
        evaluate.read_labelled(path)
    good = evaluate.read_labelled(_write(tmp_path / "good.jsonl", [_row("a", "x", False, "vi")]))
    assert [(c.faithful, c.language, c.item.chunks[0].chunk_id) for c in good] == [(False, "vi", "c1")]


def test_eval_judge_prints_one_json_line_per_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command runs the local judge on each trace and reports it beside both baselines."""
    rows = [
        _row("f1", "The warranty lasts 12 months from delivery.", True),
        _row("f2", "Returns are accepted within 30 days with a receipt.", True),
        _row("h1", "The warranty lasts 36 months and covers accidental water damage in Paris.", False),
        _row("h2", "Returns are accepted within 90 days, without a receipt, by Rosalind Kowalski.", False),
        _row("v1", "Bảo hành 12 tháng.", True, "vi"),
        _row("v2", "Bảo hành 24 tháng tại Hà Nội.", False, "vi"),
    ]
    path = _write(tmp_path / "tiny.jsonl", rows)
    assert main(["eval", "judge", str(path), "--format", "jsonl", "--resamples", "50"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["language"] for line in lines] == ["en", "vi"]
    en = lines[0]
    assert (en["traces"], en["faithful"], en["hallucinated"], en["threshold"]) == (4, 2, 2, 0.8)
    assert en["faithfulness"]["auroc"] == 1.0
    assert en["faithfulness"]["bacc"] == 1.0
    assert en["word_overlap"]["auroc"] == 1.0
    assert set(en) >= {"ranking", "char_overlap", "file", "judge"}
    assert len(en["ranking"]["ci"]) == 2
    assert en["vs_baseline"]["baseline"] in {"word_overlap", "char_overlap"}
    assert en["vs_baseline"]["delta"] == pytest.approx(0.0)  # both reach 1.0 here
    assert len(en["vs_baseline"]["ci"]) == 2


def test_eval_judge_table_on_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--format table`` prints a block per language with every scorer."""
    path = _write(
        tmp_path / "t.jsonl", [_row("f", CHUNK, True), _row("h", "Ships to Mars in 2 hours.", False)]
    )
    assert main(["eval", "judge", str(path), "--format", "table", "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "en: 2 traces, 1 faithful, 1 hallucinated" in out
    for name in ("faithfulness", "ranking", "word_overlap", "char_overlap"):
        assert f"  {name} " in out
    assert "Δ faithfulness" in out and "(paired bootstrap)" in out
