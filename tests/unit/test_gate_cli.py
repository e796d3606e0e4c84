"""``ragmon gate`` as CI runs it: the console script in a subprocess, its exit code and both reports."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET  # noqa: S405 - parses only the files this test's gate just wrote
from pathlib import Path

import pytest

from tests.support.daemon import ragmon_executable

DATA = Path(__file__).parents[1] / "data"
GOLDEN = DATA / "banhang" / "golden.json"
POLICY = DATA / "banhang" / "policy.json"
RUN_200 = DATA / "gate" / "run-chunk-200.jsonl"
RUN_800 = DATA / "gate" / "run-chunk-800.jsonl"

pytestmark = pytest.mark.timeout(120)


def gate(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ragmon_executable(), "gate", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=cwd,
        check=False,
    )


def gate_with_reports(run: Path, tmp_path: Path, *extra: str | Path) -> tuple[int, str, str, ET.Element]:
    report, xml = tmp_path / "gate.md", tmp_path / "gate.xml"
    done = gate(
        run,
        "--golden",
        GOLDEN,
        "--golden-sections",
        POLICY,
        "--report",
        report,
        "--junit",
        xml,
        *extra,
        cwd=tmp_path,
    )
    assert "Traceback" not in done.stderr, done.stderr
    root = ET.parse(xml).getroot()  # noqa: S314 - our own output
    return done.returncode, done.stdout, report.read_text(encoding="utf-8"), root


def failures(root: ET.Element) -> dict[str, str]:
    """testcase name -> failure message, for every failing testcase."""
    return {
        case.get("name", ""): failure.get("message", "")
        for case in root.iter("testcase")
        if (failure := case.find("failure")) is not None
    }


def test_chunk_200_passes(tmp_path: Path) -> None:
    """The configuration that ran well exits 0; its JUnit file has 5 entries and 2 floors, none failing."""
    code, stdout, report, root = gate_with_reports(RUN_200, tmp_path)
    assert code == 0, stdout
    assert stdout.startswith("ragmon gate: passed")
    assert report.startswith("## ragmon gate: ✅ passed")
    assert root.get("tests") == "7" and root.get("failures") == "0" and failures(root) == {}
    assert len(list(root.iter("testcase"))) == 7


def test_chunk_800_fails_naming_mrr_and_the_30_days(tmp_path: Path) -> None:
    """The Friday deploy exits 1; stdout, Markdown and JUnit all name MRR@5 and q01's 30 ngày."""
    code, stdout, report, root = gate_with_reports(RUN_800, tmp_path)
    assert code == 1
    for text in ("MRR@5 0.63 < 0.85", "q01: answer says 30 ngày; expected 7 ngày"):
        assert text in stdout
    assert "| MRR@5 | 0.63 | >= 0.85 | ❌ MRR@5 0.63 &lt; 0.85 |" in report
    entries = report[report.index("### Entries") :]
    assert "answer says 30 ngày; expected 7 ngày" in entries
    assert entries.index("`q01`") < entries.index("`q03`") < entries.index("`q02`")  # failing first
    assert "Golden set `sha256:" in report and "kb-2026-09-25-c800-m3" in report
    assert failures(root) == {
        "q01": "q01: answer says 30 ngày; expected 7 ngày",
        "q03": "q03: answer says 5 ngày; expected 5 ngày làm việc",
        "MRR@5 >= 0.85": "MRR@5 0.63 < 0.85",
    }
    assert root.get("failures") == "3" and root.get("tests") == "7"
    suites = {s.get("name"): (s.get("tests"), s.get("failures")) for s in root.iter("testsuite")}
    assert suites == {"golden entries": ("5", "2"), "checks": ("2", "1")}
    props = {p.get("name"): p.get("value") for p in root.find("testsuite").iter("property")}  # type: ignore[union-attr]
    assert props["run.index_version"] == "kb-2026-09-25-c800-m3"
    assert props["golden_version"].startswith("sha256:")


def test_baseline_drop_fails(tmp_path: Path) -> None:
    """With floors the candidate clears and the numeric rule off, the drop from the baseline alone fails."""
    config = tmp_path / "gate.yaml"
    config.write_text("floors: {mrr@5: 0.6}\nnumeric: {enabled: false}\n", encoding="utf-8")
    code, stdout, report, root = gate_with_reports(
        RUN_800, tmp_path, "--baseline", RUN_200, "--config", config
    )
    assert code == 1
    assert "FAIL MRR@5 0.63 vs baseline 0.90: dropped 0.27 > 0.05" in stdout
    assert "baseline `" in report and "kb-2026-09-c200-e5small" in report
    assert set(failures(root)) == {"hit@1 drop <= 0.05 vs baseline", "MRR@5 drop <= 0.05 vs baseline"}
    same = gate(RUN_200, "--golden", GOLDEN, "--baseline", RUN_200, cwd=tmp_path)
    assert same.returncode == 0, same.stdout


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("missing.jsonl", "--golden", GOLDEN), "ragmon: missing.jsonl: run file not found"),
        ((RUN_200, "--golden", "nope.json"), "ragmon: nope.json: golden file not found"),
        ((RUN_200, "--golden", GOLDEN, "--baseline", "base.jsonl"), "ragmon: base.jsonl: run file not found"),
        ((RUN_200, "--golden", GOLDEN, "--config", "gate.yaml"), "ragmon: gate.yaml: gate config not found"),
        ((RUN_200, "--golden", GOLDEN, "--golden-sections", "p.json"), "ragmon: p.json: file not found"),
    ],
)
def test_missing_file_exits_2(tmp_path: Path, args: tuple[str | Path, ...], message: str) -> None:
    """Every missing input file is one line on stderr and exit code 2."""
    done = gate(*args, cwd=tmp_path)
    assert done.returncode == 2 and one_line(done) == message
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[{", "cannot parse"),
        ('[{"id": "q01"}]', "entry 0 (q01): field 'question' is required"),
        ('[{"id": "q01", "cau_hoi": "a"}, {"id": "q01", "cau_hoi": "b"}]', "duplicate golden id 'q01'"),
        ('{"entries": {}}', "expected a JSON array of entries"),
        ("[]", "the golden set has no entries"),
        (
            '[{"id": "q01", "cau_hoi": "a", "scoring_only": "yes"}]',
            "field 'scoring_only' must be true or false",
        ),
        (
            '[{"id": "q01", "cau_hoi": "a", "tags": "holdout"}]',
            "field 'tags' must be a list of non-empty strings",
        ),
    ],
)
def test_malformed_golden_set_exits_2(tmp_path: Path, content: str, message: str) -> None:
    """A malformed golden set is one line naming the file and what is wrong, exit code 2."""
    path = tmp_path / "golden.json"
    path.write_text(content, encoding="utf-8")
    done = gate(RUN_200, "--golden", path, cwd=tmp_path)
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith(f"ragmon: {path}") and message in line


def test_malformed_run_and_config_exit_2(tmp_path: Path) -> None:
    """An invalid trace line and an unknown gate setting are input errors too."""
    run = tmp_path / "run.jsonl"
    run.write_text('{"trace_id": "t1", "question": "q"}\n', encoding="utf-8")
    done = gate(run, "--golden", GOLDEN, cwd=tmp_path)
    assert done.returncode == 2 and one_line(done) == (
        f"ragmon: {run}: line 1: missing_answer: field 'answer' is required"
    )
    config = tmp_path / "gate.yaml"
    config.write_text("floors: {hit@3: 0.9}\ntolerance: 0.1\n", encoding="utf-8")
    done = gate(RUN_200, "--golden", GOLDEN, "--config", config, cwd=tmp_path)
    assert done.returncode == 2 and one_line(done) == f"ragmon: {config}: tolerance: unknown setting"
    done = gate(RUN_200, "--golden", GOLDEN, "--report", tmp_path / "no" / "dir.md", cwd=tmp_path)
    assert done.returncode == 2 and one_line(done).endswith("dir.md: cannot write: No such file or directory")


def test_run_from_stdin(tmp_path: Path) -> None:
    """``ragmon gate -`` reads the run from a pipe; a bad line there is named as stdin's."""
    command = [ragmon_executable(), "gate", "-", "--golden", str(GOLDEN), "--golden-sections", str(POLICY)]
    done = subprocess.run(
        command,
        input=RUN_800.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 1 and "FAIL MRR@5 0.63 < 0.85" in done.stdout, done.stderr
    bad = subprocess.run(command, input="{}\n", capture_output=True, text=True, timeout=90, check=False)
    assert bad.returncode == 2 and one_line(bad).startswith("ragmon: stdin: line 1: missing_question")


def test_usage_error_exits_2(tmp_path: Path) -> None:
    """No --golden is argparse's usage error, exit code 2."""
    done = gate(RUN_200, cwd=tmp_path)
    assert done.returncode == 2 and "--golden" in done.stderr and "Traceback" not in done.stderr
