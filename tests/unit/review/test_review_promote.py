"""Promotion at the file level: seed-000 array converted, entries appended, version bumped, refusals."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from monitor.exceptions import ConfigError
from monitor.review import CaseNotFound, ReviewStore, Status
from monitor.review.promote import PromotionRefused, load_golden, normalize_question, promote

SEED_GOLDEN = Path(__file__).parents[2] / "data" / "review" / "golden_seed000.json"
ENTRY_KEYS = {
    "id",
    "question",
    "reference_answer",
    "relevant_document_ids",
    "relevant_chunk_ids",
    "reference_contexts",
    "category",
    "language",
    "answerable",
    "expected_behavior",
    "expected_sections",
    "source",
}
NEW_QUESTION = "Áo khoác mua online có được trả sau 10 ngày không?"


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    path = tmp_path / "golden.json"
    shutil.copy(SEED_GOLDEN, path)
    return path


@pytest.fixture
def confirmed(store: ReviewStore, add_case: Callable[..., str]) -> str:
    add_case("t-new", question=NEW_QUESTION)
    store.label(
        "t-new", "bad", expected_answer="Không. Chỉ trong 7 ngày kể từ ngày nhận hàng.", sections=["DT-1"]
    )
    return "t-new"


def _read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_promote_converts_seed_array(store: ReviewStore, golden: Path, confirmed: str) -> None:
    """A bare array becomes {version, entries}: old entries verbatim, version 1 -> 2, new entry appended."""
    before = json.loads(golden.read_text(encoding="utf-8"))
    done = promote(store, [confirmed], golden)
    data = _read(golden)
    assert done.version == data["version"] == 2
    assert data["entries"][: len(before)] == before
    entry = data["entries"][-1]
    assert ENTRY_KEYS <= set(entry)
    assert entry["question"] == NEW_QUESTION
    assert entry["reference_answer"] == "Không. Chỉ trong 7 ngày kể từ ngày nhận hàng."
    assert entry["expected_sections"] == ["DT-1"]
    assert entry["source"] == confirmed
    assert entry["relevant_chunk_ids"] == ["L1"] and entry["relevant_document_ids"] == ["doi-tra"]
    assert entry["reference_contexts"][0].startswith("Khách được đổi hoặc trả hàng trong 7 ngày")
    assert (entry["language"], entry["category"], entry["answerable"]) == ("vi", "returns", True)
    case = store.get(confirmed)
    assert case is not None and case.status is Status.PROMOTED
    assert case.promotion is not None and case.promotion.golden_version == 2
    assert not [p for p in golden.parent.iterdir() if p.name.endswith(".tmp")]


def test_incident_source_tag_and_second_version(
    store: ReviewStore, golden: Path, confirmed: str, add_case: Callable[..., str]
) -> None:
    """--source tags the entry; a second promotion bumps the object form's version again."""
    promote(store, [confirmed], golden, source="su-co-2026-09-28")
    add_case("t-two", question="Tai nghe lỗi thì đổi trong bao lâu?")
    store.label("t-two", "bad", expected_answer="Đổi máy mới trong 7 ngày.", sections=["DT-2"])
    done = promote(store, ["t-two"], golden)
    data = _read(golden)
    assert done.version == data["version"] == 3
    assert [e["source"] for e in data["entries"][-2:]] == ["su-co-2026-09-28", "t-two"]


def test_missing_file_starts_at_version_one(store: ReviewStore, tmp_path: Path, confirmed: str) -> None:
    """Promoting into a file that does not exist yet creates it as version 1."""
    path = tmp_path / "new-golden.json"
    promote(store, [confirmed], path)
    data = _read(path)
    assert data["version"] == 1 and len(data["entries"]) == 1


def test_refuses_unconfirmed(store: ReviewStore, golden: Path, add_case: Callable[..., str]) -> None:
    """A case with no label, or labelled without an expected answer, is refused and nothing is written."""
    add_case("t-pending", question="Câu chưa ai chấm?")
    add_case("t-noanswer", question="Câu chấm mà chưa có đáp án?")
    store.label("t-noanswer", "bad")
    before = golden.read_bytes()
    with pytest.raises(PromotionRefused) as info:
        promote(store, ["t-pending", "t-noanswer"], golden)
    assert set(info.value.reasons) == {"t-pending", "t-noanswer"}
    assert "expected answer" in info.value.reasons["t-pending"]
    assert golden.read_bytes() == before


def test_refuses_duplicate_trace(store: ReviewStore, golden: Path, confirmed: str) -> None:
    """Promoting the same trace twice is refused; the file keeps one entry for it."""
    promote(store, [confirmed], golden)
    with pytest.raises(PromotionRefused, match="already promoted"):
        promote(store, [confirmed], golden)
    data = _read(golden)
    assert data["version"] == 2
    assert sum(e.get("trace_id") == confirmed for e in data["entries"]) == 1


def test_refuses_same_normalized_question(
    store: ReviewStore, golden: Path, add_case: Callable[..., str]
) -> None:
    """A question equal to a golden one up to case, accents and punctuation is a duplicate (q01)."""
    add_case("t-q01", question="mua ao mac khong vua thi duoc tra trong may ngay")
    store.label("t-q01", "bad", expected_answer="7 ngày")
    with pytest.raises(PromotionRefused, match="same question"):
        promote(store, ["t-q01"], golden)
    case = store.get("t-q01")
    assert case is not None and case.status is Status.CONFIRMED


def test_all_or_nothing(
    store: ReviewStore, golden: Path, confirmed: str, add_case: Callable[..., str]
) -> None:
    """One refused case blocks the whole batch: the good case is neither written nor marked."""
    add_case("t-bad")
    before = golden.read_bytes()
    with pytest.raises(PromotionRefused):
        promote(store, [confirmed, "t-bad"], golden)
    assert golden.read_bytes() == before
    case = store.get(confirmed)
    assert case is not None and case.status is Status.CONFIRMED


def test_unknown_case(store: ReviewStore, golden: Path) -> None:
    """Promoting a trace id the store does not hold names it."""
    with pytest.raises(CaseNotFound, match="ghost"):
        promote(store, ["ghost"], golden)


@pytest.mark.parametrize("text", ["{not json", '{"entries": 3}', '{"version": -1, "entries": []}', "[1, 2]"])
def test_bad_golden_file(tmp_path: Path, text: str) -> None:
    """A golden file that is not one of the two forms is a ConfigError."""
    path = tmp_path / "golden.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        load_golden(path)


def test_normalize_question() -> None:
    """Case, Vietnamese accents (đ too), punctuation and spacing are folded."""
    assert normalize_question("  Đổi ý không lấy nữa thì có mất phí SHIP không?? ") == normalize_question(
        "doi y khong lay nua thi co mat phi ship khong"
    )
    assert normalize_question("Trả hàng rồi bao lâu?") != normalize_question("Trả hàng rồi bao nhiêu tiền?")
