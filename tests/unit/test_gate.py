"""The gate's scoring: seed 000's two configurations, pairing, scoring-only entries, abstention, config."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from monitor.gate import GateConfig, GateInputError, Scorer, load_config, run_gate
from monitor.gate.cli import _matcher
from monitor.gate.report import console_lines, junit, markdown
from monitor.gate.runs import Matcher
from monitor.golden import AbstentionDetector, GoldenSet
from monitor.numeric import NumericRules

DATA = Path(__file__).parents[1] / "data"
BANHANG = DATA / "banhang"
RUN_200 = DATA / "gate" / "run-chunk-200.jsonl"
RUN_800 = DATA / "gate" / "run-chunk-800.jsonl"


@pytest.fixture(scope="module")
def golden() -> GoldenSet:
    return GoldenSet.load([BANHANG / "golden.json"], BANHANG / "policy.json")


@pytest.fixture(scope="module")
def numeric() -> NumericRules:
    return NumericRules.load()


def no_matcher() -> Matcher:
    raise AssertionError("the golden matcher was built, but every trace names or asks its entry verbatim")


def scorer(
    golden: GoldenSet,
    numeric: NumericRules,
    config: GateConfig | None = None,
    matcher: Callable[[], Matcher] = no_matcher,
) -> Scorer:
    return Scorer(golden, config or GateConfig(), numeric, AbstentionDetector.load(), matcher)


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_rows(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (RUN_200, {"hit@1": 0.80, "hit@3": 1.00, "recall@3": 1.00, "mrr@5": 0.90}),
        (RUN_800, {"hit@1": 0.40, "hit@3": 1.00, "recall@3": 1.00, "mrr@5": 0.633}),
    ],
)
def test_seed_table(golden: GoldenSet, numeric: NumericRules, run: Path, expected: dict[str, float]) -> None:
    """The committed runs reproduce seed 000's table (chunk-200 vs chunk-800), paired without e5."""
    score = scorer(golden, numeric).score(run)
    assert {k: round(v or 0, 3) for k, v in score.tuning_means.items()} == expected
    assert [e.trace_id for e in score.entries] == [f"gate-{run.stem[4:]}-q0{i}" for i in range(1, 6)]


def test_fixtures_are_what_the_script_writes(tmp_path: Path) -> None:
    """The committed runs match make_runs.py over the current seed files (a golden edit shows here)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_runs", DATA / "gate" / "make_runs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path in module.write_runs(tmp_path):
        assert path.read_bytes() == (DATA / "gate" / path.name).read_bytes(), (
            f"rerun make_runs.py: {path.name}"
        )


def test_chunk_200_passes(golden: GoldenSet, numeric: NumericRules) -> None:
    """The configuration that ran well passes every floor and every entry's numeric rule."""
    result = run_gate(scorer(golden, numeric), RUN_200)
    assert result.passed
    assert [c.message for c in result.checks] == ["hit@3 1.00 >= 0.95", "MRR@5 0.90 >= 0.85"]
    assert all(e.numeric_checked for e in result.run.entries)


def test_chunk_800_fails_on_mrr_and_the_30_days(golden: GoldenSet, numeric: NumericRules) -> None:
    """The Friday deploy fails MRR@5 and q01's "30 ngày"; q03's calendar days fail too (seed section 5)."""
    result = run_gate(scorer(golden, numeric), RUN_800)
    assert not result.passed
    assert [c.message for c in result.failing_checks] == ["MRR@5 0.63 < 0.85"]
    assert [f for e in result.failing_entries for f in e.failures] == [
        "q01: answer says 30 ngày; expected 7 ngày",
        "q03: answer says 5 ngày; expected 5 ngày làm việc",
    ]
    lines = console_lines(result)
    assert lines[0].startswith("ragmon gate: FAILED (golden set sha256:")
    assert "index kb-2026-09-25-c800-m3" in lines[0]


@pytest.mark.parametrize(
    ("entry_id", "answer", "failure"),
    [
        (
            "q04",
            "Có. Khách đổi ý chịu phí vận chuyển 30.000 đồng, tiền về trong 3 ngày.",
            "q04: answer says 3 ngày, not in DT-5 or the expected answer",
        ),
        (
            "q02",
            "Được đổi máy mới trong 7 ngày, sau đó bảo hành 24 tháng.",
            "q02: answer says 24 tháng; expected 12 tháng",
        ),
        (
            "q03",
            "Tiền sẽ về sớm sau khi kho nhận hàng trả.",
            "q03: answer gives no figure; expected 5 ngày làm việc",
        ),
    ],
)
def test_numeric_failure_sentences(
    tmp_path: Path, golden: GoldenSet, numeric: NumericRules, entry_id: str, answer: str, failure: str
) -> None:
    """Each way of breaking the numeric rule says what the answer says and what was expected."""
    records = rows(RUN_200)
    records[int(entry_id[1:]) - 1]["answer"] = answer
    result = run_gate(scorer(golden, numeric), write_rows(tmp_path / "run.jsonl", records))
    assert [f for e in result.failing_entries for f in e.failures] == [failure]


def test_without_section_texts(numeric: NumericRules) -> None:
    """With no sections file only the expected answer's figures are required (and the gap noted):
    q05's true "12 tháng" is not in its short expected answer, and must not fail it."""
    bare = GoldenSet.load([BANHANG / "golden.json"])
    assert run_gate(scorer(bare, numeric), RUN_200).passed
    result = run_gate(scorer(bare, numeric), RUN_800)
    assert [f for e in result.failing_entries for f in e.failures] == [
        "q01: answer says 30 ngày; expected 7 ngày",
        "q03: answer says 5 ngày; expected 5 ngày làm việc",
    ]
    assert result.notes[-1].startswith("answer figures of q01, q02, q03, q04, q05 were not checked against")


def test_baseline_drop_fails(golden: GoldenSet, numeric: NumericRules) -> None:
    """Against chunk-200, chunk-800 drops hit@1 by 0.40 and MRR@5 by 0.27: both fail the 0.05 tolerance."""
    config = GateConfig(floors={"mrr@5": 0.5}, numeric={"enabled": False})
    result = run_gate(scorer(golden, numeric, config), RUN_800, RUN_200)
    assert not result.failing_entries
    assert [c.message for c in result.failing_checks] == [
        "hit@1 0.40 vs baseline 0.80: dropped 0.40 > 0.05",
        "MRR@5 0.63 vs baseline 0.90: dropped 0.27 > 0.05",
    ]
    report = markdown(result)
    assert "| `q01` | ✅ | 3 (1) ↓ |" in report  # the rank drop per entry, baseline in brackets
    assert "| `q04` | ✅ | 2 (2) |" in report
    assert result.rank_drops == (("q01", 1, 3), ("q03", 1, 3))  # seed 000: q01 1 -> 3, q03 1 -> 3
    assert "  down q01: first hit rank 1 -> 3 (baseline -> run)" in console_lines(result)
    assert "kb-2026-09-c200-e5small" in report and "kb-2026-09-25-c800-m3" in report


def test_baseline_tolerance_per_metric(golden: GoldenSet, numeric: NumericRules) -> None:
    """A per-metric tolerance wider than the drop lets it pass; the same run as baseline never drops."""
    config = GateConfig(
        floors={"mrr@5": 0.5},
        numeric={"enabled": False},
        baseline={"tolerances": {"MRR@5": 0.3, "hit@1": 0.4}},
    )
    assert run_gate(scorer(golden, numeric, config), RUN_800, RUN_200).passed
    assert run_gate(scorer(golden, numeric), RUN_200, RUN_200).passed


def test_baseline_of_another_golden_version(tmp_path: Path, golden: GoldenSet, numeric: NumericRules) -> None:
    """A baseline run on another golden-set version is not compared (skip) or fails the gate (fail)."""
    records = rows(RUN_200)
    for record in records:
        record["metadata"]["golden_version"] = "2026-08"
    old = write_rows(tmp_path / "old.jsonl", records)
    skipped = run_gate(scorer(golden, numeric), RUN_800, old)
    drops = [c for c in skipped.checks if c.kind == "baseline"]
    assert drops and all(
        c.passed and ": not compared: the baseline ran golden set 2026-08," in c.message for c in drops
    )
    assert all(c.skipped for c in drops) and b'<skipped message="hit@1: not compared: the baseline' in junit(
        skipped
    )
    assert "⏭️ MRR@5: not compared" in markdown(skipped) and "  skip hit@1: not compared" in "\n".join(
        console_lines(skipped)
    )
    strict = GateConfig(baseline={"on_version_mismatch": "fail"})
    assert all(not c.passed for c in run_gate(scorer(golden, numeric, strict), RUN_800, old).checks[2:])


def test_pairing_by_question_and_matcher(tmp_path: Path, golden: GoldenSet, numeric: NumericRules) -> None:
    """Without an id, a verbatim question pairs by its words; other words go to the golden matcher."""
    records = rows(RUN_200)
    for record in records:
        record.pop("golden_id", None)
        record["metadata"].pop("golden_id", None)
    records[0]["question"] = "MUA ÁO mặc không vừa, thì được trả trong mấy ngày"  # same words
    records[1]["question"] = "laptop mới nhận bị sọc màn hình thì đổi thế nào ạ"
    asked: list[str] = []

    def matcher() -> Matcher:
        def match(question: str) -> Any:
            asked.append(question)
            return golden.get("q02")

        return match

    score = scorer(golden, numeric, matcher=matcher).score(write_rows(tmp_path / "run.jsonl", records))
    assert asked == [records[1]["question"]]
    assert all(e.trace_id for e in score.entries)


def test_paraphrase_with_the_real_matcher(tmp_path: Path, golden: GoldenSet, numeric: NumericRules) -> None:
    """The CLI's matcher (e5) pairs an unaccented chat-style paraphrase of q01 and leaves an off-topic one."""
    records = rows(RUN_200)[:1]
    records[0].pop("golden_id")
    records[0]["question"] = "mua ao mac ko vua thi dc tra trong may ngay"
    records.append({**records[0], "trace_id": "off-topic", "question": "cửa hàng mở cửa lúc mấy giờ?"})
    config = GateConfig()
    score = scorer(golden, numeric, config, _matcher(golden, config)).score(
        write_rows(tmp_path / "run.jsonl", records)
    )
    assert score.entry("q01") is not None and score.entry("q01").trace_id == "gate-chunk-200-q01"  # type: ignore[union-attr]
    assert score.notes == ("trace off-topic: its question matches no golden entry",)


def test_unanswered_entry_fails_and_unknown_id_is_noted(
    tmp_path: Path, golden: GoldenSet, numeric: NumericRules
) -> None:
    """A golden entry no trace answers fails; a trace naming an id outside the set is a note."""
    records = rows(RUN_200)
    records[4]["golden_id"] = "q99"
    result = run_gate(scorer(golden, numeric), write_rows(tmp_path / "run.jsonl", records))
    assert [f for e in result.failing_entries for f in e.failures] == ["q05: no trace in the run answers it"]
    assert "trace gate-chunk-200-q05: golden_id 'q99' is not in the golden set" in result.notes


def extended_golden(tmp_path: Path) -> GoldenSet:
    """Seed 000's five entries, one unanswerable entry, and two scoring-only entries (two spellings)."""
    entries = json.loads((BANHANG / "golden.json").read_text(encoding="utf-8"))
    entries += [
        {"id": "q06", "cau_hoi": "Shop có bán vé máy bay không?", "answerable": False},
        {"id": "h01", "muc_ky_vong": ["VC-2"], "tags": ["holdout"],
         "cau_hoi": "don bao nhieu thi duoc free ship?",
         "tra_loi_ky_vong": "Đơn từ 300.000 đồng được miễn phí vận chuyển."},
        {"id": "h02", "muc_ky_vong": ["DT-6"], "scoring_only": True,
         "cau_hoi": "Thẻ quà tặng có trả lại được không?",
         "tra_loi_ky_vong": "Không. Thẻ quà tặng không được đổi trả."},
    ]  # fmt: skip
    path = tmp_path / "golden.json"
    path.write_text(json.dumps({"version": "2026-09.2", "entries": entries}, ensure_ascii=False), "utf-8")
    return GoldenSet.load([path], BANHANG / "policy.json")


def extended_run(tmp_path: Path, q06: str, h01: str) -> Path:
    records = rows(RUN_200)
    base = records[0]
    chunk = {
        "chunk_id": "c06",
        "sections": ["DT-6"],
        "text": "Thực phẩm, đồ lót và thẻ quà tặng không được đổi trả.",
    }
    miss = {"chunk_id": "c07", "sections": ["VC-1"], "text": "Đơn nội thành được giao trong 2 ngày."}
    records += [
        {**base, "trace_id": "t-q06", "golden_id": "q06", "answer": q06, "retrieved_chunks": [miss]},
        {**base, "trace_id": "t-h01", "golden_id": "h01", "answer": h01, "retrieved_chunks": [miss]},
        {**base, "trace_id": "t-h02", "golden_id": "h02", "answer": "Không, thẻ quà tặng không được đổi trả.",
         "retrieved_chunks": [chunk]},
    ]  # fmt: skip
    return write_rows(tmp_path / "run.jsonl", records)


def test_scoring_only_entries_are_apart(tmp_path: Path, numeric: NumericRules) -> None:
    """Scoring-only entries get their own means and report sections; the floors see tuning entries only."""
    golden = extended_golden(tmp_path)
    run = extended_run(
        tmp_path, "Tài liệu không nói về vé máy bay.", "Đơn từ 300.000 đồng được miễn phí ship."
    )
    result = run_gate(scorer(golden, numeric), run)
    assert result.passed, console_lines(result)
    assert result.run.tuning_means["mrr@5"] == pytest.approx(0.90)  # h01's miss is not in it
    assert result.run.scoring_only_means == {"hit@1": 0.5, "hit@3": 0.5, "recall@3": 0.5, "mrr@5": 0.5}
    assert [e.id for e in result.run.entries if e.scoring_only] == ["h01", "h02"]
    report = markdown(result)
    assert "### Scoring only (2 entries, never used to choose thresholds)" in report
    assert report.index("| `h01` |") > report.index("### Scoring only")
    assert b'<testsuite name="scoring-only entries" tests="2" failures="0"' in junit(result)


def test_scoring_only_entry_still_obeys_the_numeric_rule(tmp_path: Path, numeric: NumericRules) -> None:
    """A wrong money figure fails a scoring-only entry too: the rule without tolerance has no split."""
    golden = extended_golden(tmp_path)
    run = extended_run(
        tmp_path, "Tài liệu không nói về vé máy bay.", "Đơn từ 500.000 đồng được miễn phí ship."
    )
    result = run_gate(scorer(golden, numeric), run)
    assert [f for e in result.failing_entries for f in e.failures] == [
        "h01: answer says 500.000 đồng; expected 300.000 đồng"
    ]
    assert not result.failing_checks


def test_unanswerable_entry_must_abstain(tmp_path: Path, numeric: NumericRules) -> None:
    """An answer to an out-of-scope question fails its entry unless abstention checks are switched off."""
    golden = extended_golden(tmp_path)
    run = extended_run(
        tmp_path, "Có, shop bán vé máy bay nội địa.", "Đơn từ 300.000 đồng được miễn phí ship."
    )
    result = run_gate(scorer(golden, numeric), run)
    assert [f for e in result.failing_entries for f in e.failures] == [
        "q06: unanswerable, but the answer does not abstain"
    ]
    assert run_gate(scorer(golden, numeric, GateConfig(abstention=False)), run).passed


def test_numeric_units_limit_the_rule(golden: GoldenSet, numeric: NumericRules) -> None:
    """``numeric.units: [VND]`` keeps money findings only: chunk-800's day findings no longer fail."""
    config = GateConfig(numeric={"units": ["VND"]}, floors={"mrr@5": 0.6})
    assert run_gate(scorer(golden, numeric, config), RUN_800).passed


def test_json_array_run(tmp_path: Path, golden: GoldenSet, numeric: NumericRules) -> None:
    """A run written as one JSON array (Ragas/DeepEval style files) reads like JSONL."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps(rows(RUN_800), ensure_ascii=False, indent=2), encoding="utf-8")
    assert (
        run_gate(scorer(golden, numeric), path).run.tuning_means
        == run_gate(scorer(golden, numeric), RUN_800).run.tuning_means
    )


def test_ragas_record_without_sections(tmp_path: Path, golden: GoldenSet, numeric: NumericRules) -> None:
    """A Ragas record pairs by its question; with no section labels its retrieval is not measured."""
    record = {
        "user_input": "Mua áo mặc không vừa thì được trả trong mấy ngày?",
        "response": "Bạn có 30 ngày để đổi trả áo.",
        "retrieved_contexts": ["Thành viên BanHang Plus được đổi trả hàng thời trang trong 30 ngày."],
    }
    path = write_rows(tmp_path / "ragas.jsonl", [record])
    score = scorer(golden, numeric).score(path)
    q01 = score.entry("q01")
    assert q01 is not None and not q01.measured
    assert q01.failures == ("q01: answer says 30 ngày; expected 7 ngày",)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"trace_id": "t1", "question": "q"}', "line 2: missing_answer: field 'answer' is required"),
        ("{not json", "line 2: invalid_json"),
        ('{"type": "feedback", "trace_id": "t1", "rating": "up"}', "line 2: a feedback event, not a trace"),
    ],
)
def test_invalid_run_line(
    tmp_path: Path, golden: GoldenSet, numeric: NumericRules, line: str, message: str
) -> None:
    """A line that is not a trace is an input error naming the file and line, not a skipped trace."""
    path = tmp_path / "run.jsonl"
    path.write_text(RUN_200.read_text(encoding="utf-8").splitlines()[0] + "\n" + line + "\n", "utf-8")
    with pytest.raises(GateInputError) as caught:
        scorer(golden, numeric).score(path)
    assert str(caught.value).startswith(f"{path}: {message}")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("floorz: {}", "floorz: unknown setting"),
        ("floors: {mrr5: 0.8}", "floors: unknown metric 'mrr5'; use hit@K, recall@K, mrr@K, ndcg@K or"),
        ("floors: {MRR@5: 1.5}", "floors: floor of mrr@5 must be between 0 and 1"),
        ("baseline: {tolerance: -1}", "baseline.tolerance: Input should be greater than or equal to 0"),
        ("numeric: {enabled: maybe}", "numeric.enabled: Input should be a valid boolean"),
        ("- a list", "expected a mapping of settings"),
        ("floors: [", "cannot read the gate config:"),
        ("floors: {faithfulness: 0.8}", "floors: faithfulness needs a judge (judge: local)"),
        ("judge: openai", "judge: Input should be 'local'"),
    ],
)
def test_config_errors(tmp_path: Path, text: str, message: str) -> None:
    """A bad gate.yaml is one line naming the setting."""
    path = tmp_path / "gate.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GateInputError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: {message}")
    assert "\n" not in str(caught.value)


def test_local_judge_faithfulness(golden: GoldenSet, numeric: NumericRules) -> None:
    """With ``judge: local`` faithfulness is scored and floored. Whatever the judge makes of q01's
    "30 ngày" (faithful to the Plus chunk it came from, but without its condition), the gate fails it
    on the numeric rule against the expected sections (seed 000), not on a judge score."""
    from monitor.gate.cli import _local_faithfulness

    config = GateConfig(judge="local", floors={"mrr@5": 0.5, "faithfulness": 0.5})
    judged = Scorer(
        golden, config, numeric, AbstentionDetector.load(), no_matcher, _local_faithfulness(numeric)
    )
    result = run_gate(judged, RUN_800)
    q01 = result.run.entry("q01")
    assert q01 is not None and 0.0 <= q01.metrics["faithfulness"] <= 1.0 and not q01.passed
    assert q01.failures == ("q01: answer says 30 ngày; expected 7 ngày",)
    floor = next(c for c in result.checks if c.metric.key == "faithfulness")
    assert floor.passed and floor.measured == 5 and floor.message.startswith("faithfulness ")
    assert [m.key for m in config.all_metrics][-1] == "faithfulness"


def test_config_overrides(tmp_path: Path) -> None:
    """Floors in gate.yaml replace the seed's; names are case-insensitive; metrics add columns."""
    path = tmp_path / "gate.yaml"
    path.write_text("floors: {MRR@5: 0.8, ndcg@5: 0.7}\nmetrics: [hit@1]\n", encoding="utf-8")
    config = load_config(path)
    assert config.floors == {"mrr@5": 0.8, "ndcg@5": 0.7}
    assert [m.key for m in config.all_metrics] == ["hit@1", "mrr@5", "ndcg@5"]
    assert load_config(None).floors == {"hit@3": 0.95, "mrr@5": 0.85}


def test_markdown_cells_are_escaped(tmp_path: Path, golden: GoldenSet, numeric: NumericRules) -> None:
    """Pipes, newlines and HTML in what a run carries cannot break the PR comment's tables."""
    records = rows(RUN_200)
    records.append({**records[0], "trace_id": "x|<b>y</b>\nz", "golden_id": "q42"})
    report = markdown(run_gate(scorer(golden, numeric), write_rows(tmp_path / "run.jsonl", records)))
    assert "trace x\\|&lt;b&gt;y&lt;/b&gt; z: golden_id 'q42'" in report


def test_the_documented_gate_yaml_and_ci_jobs_load() -> None:
    """docs/ci-gate.md's gate.yaml loads as written; its GitHub Actions and GitLab CI jobs are YAML."""
    import re

    import yaml

    text = (Path(__file__).parents[2] / "docs" / "ci-gate.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    gate_yaml = next(b for b in blocks if b.startswith("floors:"))
    config = GateConfig.model_validate(yaml.safe_load(gate_yaml))
    assert (
        config.floors == {"hit@3": 0.95, "mrr@5": 0.85}
        and config.baseline.tolerance_of(config.all_metrics[-1]) == 0.02
    )
    jobs = [yaml.safe_load(b) for b in blocks if b is not gate_yaml]
    assert "gate" in jobs[0]["jobs"] and "ragmon gate" in " ".join(jobs[1]["rag-gate"]["script"])


@pytest.mark.parametrize(
    ("parenthetical", "answer", "failures"),
    [
        ("optional", "Bạn được trả trong 7 ngày kể từ ngày nhận hàng.", []),
        (
            "required",
            "Bạn được trả trong 7 ngày kể từ ngày nhận hàng.",
            ["p01: answer says 7 ngày; expected 30 ngày"],
        ),
        ("optional", "7 ngày; thành viên Plus được 30 ngày cho hàng thời trang.", []),
        ("optional", "Bạn có 30 ngày để đổi trả áo.", ["p01: answer says 30 ngày; expected 7 ngày"]),
    ],
)
def test_parenthetical_figures(
    tmp_path: Path, numeric: NumericRules, parenthetical: str, answer: str, failures: list[str]
) -> None:
    """A figure in parentheses of the expected answer is a side note by default: allowed, not required;
    it never stands in for the figure outside them."""
    path = tmp_path / "golden.json"
    entry = {
        "id": "p01",
        "question": "Mua áo không vừa thì trả trong mấy ngày?",
        "expected_sections": ["DT-1"],
        "reference_answer": "Trong 7 ngày kể từ ngày nhận hàng. (Thành viên Plus: 30 ngày cho thời trang.)",
    }
    path.write_text(json.dumps([entry], ensure_ascii=False), encoding="utf-8")
    golden = GoldenSet.load([path], BANHANG / "policy.json")
    run = write_rows(
        tmp_path / "run.jsonl", [{"trace_id": "t", "golden_id": "p01", "question": "?", "answer": answer}]
    )
    config = GateConfig(numeric={"parenthetical": parenthetical}, floors={})
    result = run_gate(scorer(golden, numeric, config), run)
    assert [f for e in result.failing_entries for f in e.failures] == failures


def test_abstention_phrases_from_gate_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An assistant's own refusal wording, listed in gate.yaml, counts as abstaining (accents ignored)."""
    from monitor.cli import main

    extended_golden(tmp_path)
    refusal = "Xin lỗi, câu này nằm ngoài chính sách đổi trả của shop."
    run = extended_run(tmp_path, refusal, "Đơn từ 300.000 đồng được miễn phí ship.")
    args = [
        str(run),
        "--golden",
        str(tmp_path / "golden.json"),
        "--golden-sections",
        str(BANHANG / "policy.json"),
    ]
    assert main(["gate", *args]) == 1
    assert "q06: unanswerable, but the answer does not abstain" in capsys.readouterr().out
    config = tmp_path / "gate.yaml"
    config.write_text("abstention_phrases: ['nam ngoai chinh sach doi tra']\n", encoding="utf-8")
    assert main(["gate", *args, "--config", str(config)]) == 0, capsys.readouterr().out
