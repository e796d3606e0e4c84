"""``ragmon review ...`` through the argparse entry point, on a temporary SQLite store."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from monitor.golden import GoldenMatcher, GoldenSet
from monitor.review import ReviewStore, Status
from monitor.review.cli import main, parse_since

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(store_url: str, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run ``ragmon review <args>`` against the test store; return (exit code, stdout, stderr)."""

    def call(*args: str) -> tuple[int, str, str]:
        code = main(["review", "--store", store_url, *args])
        out, err = capsys.readouterr()
        return code, out, err

    return call


@pytest.fixture
def cases(store: ReviewStore, add_case: Callable[..., str]) -> list[str]:
    add_case("t-1", reasons=("numeric_unsupported",))
    add_case(
        "t-2",
        reasons=("negative_feedback",),
        question="Trả hàng rồi bao lâu thì nhận lại tiền?",
        index_version="kb-2026-07-26",
    )
    add_case("t-3", reasons=("low_faithfulness",), question="Thẻ quà tặng có trả được không?")
    return ["t-1", "t-2", "t-3"]


def _json(out: str) -> Any:
    return json.loads(out)


def test_list_json(run: Run, cases: list[str]) -> None:
    """--format json prints a JSON array of cases, each with its trace_id."""
    code, out, _ = run("list", "--format", "json")
    data = _json(out)
    assert code == 0
    assert isinstance(data, list) and sorted(c["trace_id"] for c in data) == cases


def test_list_filters(run: Run, cases: list[str]) -> None:
    """--reason, --status, --version and --since narrow the list; the table shows the ids."""
    assert [
        c["trace_id"] for c in _json(run("list", "--reason", "negative_feedback", "--format", "json")[1])
    ] == ["t-2"]
    assert [
        c["trace_id"] for c in _json(run("list", "--version", "kb-2026-07-26", "--format", "json")[1])
    ] == ["t-2"]
    assert _json(run("list", "--status", "confirmed", "--format", "json")[1]) == []
    # The fake clock stored every case on 2026-09-28, long before "24h ago" of the real clock.
    assert _json(run("list", "--since", "24h", "--format", "json")[1]) == []
    assert len(_json(run("list", "--since", "2026-09-27", "--format", "json")[1])) == 3
    code, out, _ = run("list")
    assert code == 0 and all(tid in out for tid in cases) and "TRACE" in out


def test_store_flag_after_subcommand(
    store_url: str, cases: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """--store works after the sub-command too."""
    assert main(["review", "list", "--store", store_url, "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3


def test_show(run: Run, cases: list[str]) -> None:
    """show prints the question, chunks with sections and scores, answer, claims, numeric findings, golden."""
    code, out, _ = run("show", "t-1")
    assert code == 0
    for needle in (
        "Mua áo mặc không vừa",
        "sections=DT-3",
        "retrieval=0.84",
        "Bạn được trả hàng trong 30 ngày",
        "[UNSUPPORTED] Trả hàng trong 30 ngày",
        "id=q01",
        "numeric_unsupported",
    ):
        assert needle in out
    numeric = next(line for line in out.splitlines() if line.startswith("  unsupported:"))
    assert "value=30" in numeric and "unit=ngày" in numeric  # JSONB may reorder a finding's keys
    code, out, _ = run("show", "t-1", "--format", "json")
    assert _json(out)["trace_id"] == "t-1"


def test_show_unknown(run: Run, cases: list[str]) -> None:
    """show of an unknown id exits 1 with a message on stderr."""
    code, out, err = run("show", "nope")
    assert code == 1 and out == "" and "nope" in err


def test_label(run: Run, store: ReviewStore, cases: list[str]) -> None:
    """label bad -> confirmed with the expected answer and sections; ok -> false_alarm."""
    code, out, _ = run(
        "label",
        "t-1",
        "--verdict",
        "bad",
        "--expected-answer",
        "Trong 7 ngày.",
        "--sections",
        "DT-1",
        "DT-3",
        "--note",
        "sai số",
        "--reviewer",
        "lan",
    )
    assert code == 0 and "confirmed" in out
    assert run("label", "t-2", "--verdict", "ok")[0] == 0
    one, two = store.get("t-1"), store.get("t-2")
    assert one is not None and two is not None
    assert one.status is Status.CONFIRMED and two.status is Status.FALSE_ALARM
    assert one.label is not None and one.label.sections == ("DT-1", "DT-3")


def test_label_rejects_unknown_verdict(run: Run, cases: list[str]) -> None:
    """argparse refuses a verdict other than ok or bad."""
    with pytest.raises(SystemExit) as info:
        run("label", "t-1", "--verdict", "meh")
    assert info.value.code == 2


def test_promote_round_trip(run: Run, tmp_path: Path, cases: list[str]) -> None:
    """promote writes the entry and bumps the version; promoting it again is refused with exit 1."""
    golden = tmp_path / "golden.json"
    golden.write_text(
        '[{"id": "q01", "cau_hoi": "Mua áo?", "tra_loi_ky_vong": "7 ngày", "muc_ky_vong": ["DT-1"]}]',
        encoding="utf-8",
    )
    run(
        "label",
        "t-3",
        "--verdict",
        "bad",
        "--expected-answer",
        "Không, thẻ quà tặng không được đổi trả.",
        "--sections",
        "DT-6",
    )
    code, out, _ = run("promote", "t-3", "--golden", str(golden), "--source", "su-co-2026-09-28")
    assert code == 0 and "version 2" in out
    data = json.loads(golden.read_text(encoding="utf-8"))
    assert data["version"] == 2 and data["entries"][-1]["source"] == "su-co-2026-09-28"
    code, _, err = run("promote", "t-3", "--golden", str(golden))
    assert code == 1 and "already promoted" in err
    code, _, err = run("promote", "t-1", "--golden", str(golden))
    assert code == 1 and "expected answer" in err


def test_agreement_json(run: Run, cases: list[str]) -> None:
    """agreement --format json reports each metric with its costs."""
    run("label", "t-1", "--verdict", "bad")
    run("label", "t-2", "--verdict", "ok")
    code, out, _ = run(
        "agreement",
        "--cost-false-pass",
        "5",
        "--cost-false-fail",
        "1",
        "--threshold",
        "faithfulness=0.4",
        "--format",
        "json",
    )
    data = _json(out)
    assert code == 0 and data["labelled"] == 2 and data["cost_false_pass"] == 5
    faith = next(m for m in data["metrics"] if m["metric"] == "faithfulness")
    # Both cases score 0.5: at 0.4 both pass, so the bad one is a false pass; 0.5+ fails both.
    assert faith["threshold"] == 0.4 and faith["false_pass_rate"] == 1.0 and faith["cost"] == 5
    assert faith["best_threshold"] > 0.5 and faith["best_cost"] == 1
    code, out, _ = run("agreement")
    assert code == 0 and "faithfulness" in out and "KAPPA" in out


def test_sample_is_reproducible(run: Run, store: ReviewStore, add_case: Callable[..., str]) -> None:
    """Same seed, same data -> same picks; every negative_feedback case is included."""
    for i in range(20):
        add_case(f"s-{i:02d}", reasons=("negative_feedback",) if i % 5 == 0 else ("low_faithfulness",))
    args = (
        "sample",
        "--random",
        "5",
        "--include",
        "negative_feedback",
        "--since",
        "2026-09-01",
        "--format",
        "json",
    )
    first = _json(run(*args, "--seed", "42", "--batch", "w1")[1])
    again = _json(run(*args, "--seed", "42", "--batch", "w2")[1])
    other = _json(run(*args, "--seed", "7", "--batch", "w3")[1])
    assert first["picks"] == again["picks"]
    assert first["picks"] != other["picks"]
    negatives = {f"s-{i:02d}" for i in range(0, 20, 5)}
    assert {tid for tid, why in first["picks"].items() if why == "negative_feedback"} == negatives
    assert sum(why == "random" for why in first["picks"].values()) == 5
    marked = {c.trace_id for c in store.list_cases(sample="w1")}
    assert marked == set(first["picks"])


def test_bad_store_url_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    """An unsupported store URL exits 1 with the accepted forms on stderr."""
    assert main(["review", "--store", "mysql://db/x", "list"]) == 1
    assert "postgresql://" in capsys.readouterr().err


def test_parse_since() -> None:
    """Relative spans count back from now; ISO dates without a zone are UTC."""
    now = datetime(2026, 9, 28, 12, tzinfo=UTC)
    assert parse_since("24h", now) == now - timedelta(hours=24)
    assert parse_since("7d", now) == now - timedelta(days=7)
    assert parse_since("2026-09-25") == datetime(2026, 9, 25, tzinfo=UTC)
    with pytest.raises(argparse.ArgumentTypeError):
        parse_since("last week")


def test_promote_as_variant(
    run: Run, store: ReviewStore, add_case: Callable[..., str], tmp_path: Path
) -> None:
    """--as-variant adds the scrubbed question to the entry's variants, bumps the version, refuses repeats."""
    golden = tmp_path / "golden.json"
    golden.write_text(
        '[{"id": "q01", "cau_hoi": "Mua áo mặc không vừa thì được trả trong mấy ngày?",'
        ' "tra_loi_ky_vong": "7 ngày", "muc_ky_vong": ["DT-1"]},'
        ' {"id": "q03", "cau_hoi": "Trả hàng rồi bao lâu thì nhận lại tiền?"}]',
        encoding="utf-8",
    )
    add_case("v-1", question="ao mac ko vua tra may hom, sdt em 0912 345 678")
    add_case("v-2", question="ao mac ko vua tra may hom, sdt em 0912 345 678 ")
    add_case("v-3", question="tra hang roi, bao lau thi nhan lai tien")
    add_case("v-4", question="Mua áo mặc không vừa thì được trả trong mấy ngày")
    for trace_id in ("v-1", "v-2", "v-3", "v-4"):
        assert run("label", trace_id, "bad")[0] == 0

    code, out, err = run("promote", "v-1", "--golden", str(golden), "--as-variant", "q01")
    assert code == 0, err
    data = json.loads(golden.read_text(encoding="utf-8"))
    q01 = data["entries"][0]
    assert data["version"] == 2 and "version 2" in out
    assert len(q01["variants"]) == 1 and "[PHONE]" in q01["variants"][0] and "0912" not in out
    assert q01["variant_trace_ids"] == ["v-1"] and q01["tra_loi_ky_vong"] == "7 ngày"
    promoted = store.get("v-1")
    assert promoted is not None and promoted.status is Status.PROMOTED

    refusals = {
        "v-2": "already a question or variant of q01",  # the same question, modulo spacing
        "v-4": "already a question or variant of q01",  # the entry's own question, modulo punctuation
        "v-1": "already promoted",
    }
    for trace_id, why in refusals.items():
        code, _, err = run("promote", trace_id, "--golden", str(golden), "--as-variant", "q01")
        assert code == 1 and why in err
    code, _, err = run("promote", "v-3", "--golden", str(golden), "--as-variant", "q01")
    assert code == 1 and "another entry, q03" in err
    code, _, err = run("promote", "v-2", "--golden", str(golden), "--as-variant", "q99")
    assert code == 2 and "no entry with id 'q99'" in err and len(err.strip().splitlines()) == 1
    assert json.loads(golden.read_text(encoding="utf-8"))["version"] == 2  # refusals wrote nothing


def test_promote_as_variant_needs_a_review(run: Run, add_case: Callable[..., str], tmp_path: Path) -> None:
    """An unreviewed case is refused and nothing is written."""
    golden = tmp_path / "golden.json"
    golden.write_text('{"version": 4, "entries": [{"id": "q01", "question": "Mua áo?"}]}', encoding="utf-8")
    add_case("u-1", question="ao ko vua tra dc ko")
    code, _, err = run("promote", "u-1", "--golden", str(golden), "--as-variant", "q01")
    assert code == 1 and "not reviewed" in err
    assert json.loads(golden.read_text(encoding="utf-8"))["version"] == 4


def test_promote_as_negative(
    run: Run, store: ReviewStore, add_case: Callable[..., str], tmp_path: Path
) -> None:
    """--as-negative keeps a reviewed false match on the entry as "not this"; the matcher then vetoes it."""
    golden = tmp_path / "golden.json"
    golden.write_text(
        '[{"id": "q01", "cau_hoi": "Mua áo mặc không vừa thì được trả trong mấy ngày?",'
        ' "variants": ["ao ko vua tra may ngay"]}]',
        encoding="utf-8",
    )
    add_case("n-1", question="thanh vien plus mua ao khong vua tra may ngay")
    add_case("n-2", question="Mua áo mặc không vừa thì được trả trong mấy ngày")
    add_case("n-3", question="the qua tang tra duoc khong")
    for trace_id in ("n-1", "n-2"):
        assert run("label", trace_id, "bad")[0] == 0

    code, out, err = run("promote", "n-1", "--golden", str(golden), "--as-negative", "q01")
    assert code == 0, err
    data = json.loads(golden.read_text(encoding="utf-8"))
    q01 = data["entries"][0]
    assert data["version"] == 2 and "1 negatives added" in out
    assert q01["negatives"] == ["thanh vien plus mua ao khong vua tra may ngay"]
    assert q01["negative_trace_ids"] == ["n-1"] and q01["variants"] == ["ao ko vua tra may ngay"]
    matcher = GoldenMatcher(GoldenSet.load([golden]), qualifier_penalty=1.0)
    assert matcher.match("thanh vien plus mua ao khong vua tra may ngay a") is None
    assert matcher.match("ao mac khong vua tra trong may ngay") is not None

    refusals = {
        "n-1": "already promoted",
        "n-2": "already a question or variant of q01",
        "n-3": "not reviewed",
    }
    for trace_id, why in refusals.items():
        code, _, err = run("promote", trace_id, "--golden", str(golden), "--as-negative", "q01")
        assert code == 1 and why in err
    code, _, err = run(
        "promote", "n-2", "--golden", str(golden), "--as-negative", "q01", "--as-variant", "q01"
    )
    assert code == 2 and "exclude each other" in err
    assert json.loads(golden.read_text(encoding="utf-8"))["version"] == 2  # refusals wrote nothing
