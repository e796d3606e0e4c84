"""A replay flags seed 000's "30 ngày" as unqualified_condition, and a Plus member's question passes."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from monitor.app import replay
from monitor.cli import main
from monitor.config import load_settings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

RULES = Path(__file__).parents[2] / "rules"
PLUS = "DT-3. Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
GENERAL = "DT-1. Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm."
TRACES = {
    "incident": ("Áo mua về không vừa thì đổi trả trong bao lâu?", "Bạn có 30 ngày để đổi trả áo."),
    "plus-member": ("Mình là thành viên Plus, áo không vừa thì trả trong bao lâu?", "Bạn có 30 ngày."),
    "general": ("Áo mua về không vừa thì đổi trả trong bao lâu?", "Bạn có 7 ngày để đổi trả."),
    "states-the-condition": (
        "Mua áo mặc không vừa thì được trả trong mấy ngày?",
        "Hạn đổi trả là 7 ngày. Riêng hàng thời trang do thành viên BanHang Plus mua thì được 30 ngày.",
    ),
}
BANHANG = Path(__file__).parents[2] / "tests" / "data" / "banhang"


def _replay(tmp_path: Path, *extra: str) -> dict[str, dict[str, Any]]:
    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {
                    "trace_id": tid,
                    "question": question,
                    "answer": answer,
                    "retrieved_chunks": [
                        {"chunk_id": "L2", "text": PLUS},
                        {"chunk_id": "L1", "text": GENERAL},
                    ],
                    "citations": ["L2"],
                },
                ensure_ascii=False,
            )
            + "\n"
            for tid, (question, answer) in TRACES.items()
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    store, dlq = str(tmp_path / "r.db"), str(tmp_path / "d")
    assert main(["replay", str(src), "--results", str(out), "--store", store, "--dlq", dlq, *extra]) == 0
    return {r["trace_id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def test_replay_flags_the_incident_only(tmp_path: Path) -> None:
    """The incident gets a critical unqualified_condition naming 30 ngày and 7 ngày; the others pass."""
    records = _replay(tmp_path)
    incident = records["incident"]
    flags = [f for f in incident["flags"] if f["reason"] == "unqualified_condition"]
    assert [f["severity"] for f in flags] == ["critical"]
    assert "30 ngày" in flags[0]["detail"] and "7 ngày" in flags[0]["detail"]
    assert incident["conditional"][0]["general"][0]["text"] == "7 ngày"
    assert "numeric_finding" in incident["sampled"]
    for tid in ("plus-member", "general", "states-the-condition"):
        assert records[tid]["conditional"] == []
        assert not [f for f in records[tid]["flags"] if f["reason"] == "unqualified_condition"]


def test_rules_dir_can_turn_it_off(tmp_path: Path) -> None:
    """A --rules-dir whose flags.yaml disables the reason skips the check: no flag, no record block."""
    root = tmp_path / "rules"
    shutil.copytree(RULES, root)
    (root / "flags.yaml").write_text("flags:\n  unqualified_condition: {enabled: false}\n", encoding="utf-8")
    records = _replay(tmp_path, "--rules-dir", str(root))
    assert records["incident"]["conditional"] is None
    assert not [f for f in records["incident"]["flags"] if f["reason"] == "unqualified_condition"]


def test_a_value_stated_with_its_condition_is_not_out_of_the_golden_sections(tmp_path: Path) -> None:
    """With seed 000's golden set, q01 expects DT-1 (7 ngày). An answer that adds "Plus members get 30
    days" names the condition of the value DT-3 binds: not numeric_out_of_source. The incident's bare
    "30 ngày" still is, and is numeric_missing (it says another duration than 7 ngày)."""
    golden = ["--golden", str(BANHANG / "golden.json"), "--golden-sections", str(BANHANG / "policy.json")]
    records = _replay(tmp_path, *golden)
    stated = {f["reason"] for f in records["states-the-condition"]["flags"]}
    assert records["states-the-condition"]["golden"]["id"] == "q01"
    assert not stated & {"numeric_out_of_source", "numeric_missing", "unqualified_condition"}
    incident = {f["reason"] for f in records["incident"]["flags"]}
    assert {"numeric_out_of_source", "numeric_missing", "unqualified_condition"} <= incident


def test_a_reviewer_mutes_and_unmutes_the_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`review mute` on the flagged case: the next replay reports the finding apart and flags nothing;
    `review unmute` brings the flag back. The metric counts the muted finding."""
    store = str(tmp_path / "r.db")
    assert _replay(tmp_path)["incident"]["conditional"]
    assert main(["review", "mute", "incident", "--store", store, "--reviewer", "lan"]) == 0
    assert "muted: 30 day bound to" in capsys.readouterr().out
    assert main(["review", "mutes", "--store", store, "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(m["value"], m["unit"], m["trace_id"], m["reviewer"]) for m in listed] == [
        ("30", "day", "incident", "lan")
    ]
    muted = _replay(tmp_path)["incident"]
    assert muted["conditional"] == [] and muted["conditional_muted"][0]["text"] == "30 ngày"
    assert not [f for f in muted["flags"] if f["reason"] == "unqualified_condition"]
    registry = CollectorRegistry()
    settings = load_settings(
        overrides={"source": str(tmp_path / "in.jsonl"), "dlq": str(tmp_path / "d2"), "store": store},
        environ={},
    )
    summary = asyncio.run(replay(settings, registry))
    assert registry.get_sample_value("ragmon_conditional_muted_total", {"unit": "day"}) == 1
    assert "unqualified_condition" not in summary.flagged
    assert main(["review", "unmute", "incident", "--store", store]) == 0
    again = _replay(tmp_path)["incident"]
    assert "conditional_muted" not in again
    assert [f["severity"] for f in again["flags"] if f["reason"] == "unqualified_condition"] == ["critical"]


def test_muting_what_a_confirmed_case_raised_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A false alarm cannot mute the finding that caught a confirmed wrong answer: one line, exit 1."""
    store = str(tmp_path / "r.db")
    _replay(tmp_path)
    assert main(["review", "label", "incident", "bad", "--store", store]) == 0
    capsys.readouterr()
    assert main(["review", "mute", "incident", "--store", store]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "confirmed case 'incident' raised the same finding" in err[0]
    assert main(["review", "mute", "incident", "--store", store, "--force"]) == 0


def test_a_time_of_day_no_chunk_states_is_a_numeric_finding(tmp_path: Path) -> None:
    """A wrong check-out time ("15:30" over the policy's "16:00") is flagged numeric_unsupported end to
    end, with unit clock_time in the record; the policy's own time, on the other clock, passes."""
    policy = "ST-2. Standard check-out is 12:00; Jade members may check out as late as 16:00."
    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {
                    "trace_id": tid,
                    "question": "Jade member late check-out?",
                    "answer": answer,
                    "retrieved_chunks": [{"chunk_id": "ST-2", "text": policy}],
                    "citations": ["ST-2"],
                }
            )
            + "\n"
            for tid, answer in (("wrong", "Jade members until 15:30."), ("right", "Jade members until 4 pm."))
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    store, dlq = str(tmp_path / "r.db"), str(tmp_path / "d")
    assert main(["replay", str(src), "--results", str(out), "--store", store, "--dlq", dlq]) == 0
    records = {r["trace_id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    wrong = records["wrong"]
    assert [q["unit"] for q in wrong["numeric"]["unsupported"]] == ["clock_time"]
    assert "numeric_unsupported" in [f["reason"] for f in wrong["flags"]]
    assert records["right"]["numeric"]["unsupported"] == []
    assert "numeric_unsupported" not in [f["reason"] for f in records["right"]["flags"]]
