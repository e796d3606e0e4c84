"""Loading golden sets: seed 000 and seed 001 shapes, promoted files, versions, merging, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from monitor.exceptions import ConfigError
from monitor.golden import GoldenSet, load_sections

DATA = Path(__file__).parents[1] / "data" / "banhang"
GOLDEN = DATA / "golden.json"
POLICY = DATA / "policy.json"


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def seed001(entry_id: str = "faq-001", **extra: Any) -> dict[str, Any]:
    return {
        "id": entry_id,
        "question": "Thẻ quà tặng có đổi trả được không?",
        "reference_answer": "Không. Thẻ quà tặng không được đổi trả.",
        "relevant_document_ids": ["doc-returns"],
        "reference_contexts": ["Thực phẩm, đồ lót và thẻ quà tặng không được đổi trả."],
        "category": "returns",
        "difficulty": "easy",
        "language": "vi",
        "answerable": True,
        **extra,
    }


def test_seed000_file_with_policy_sections() -> None:
    """The seed's golden.json loads five entries; expected sections' text comes from policy.json."""
    golden = GoldenSet.load([GOLDEN], sections_path=POLICY)
    assert [e.id for e in golden] == ["q01", "q02", "q03", "q04", "q05"]
    q05 = golden.get("q05")
    assert q05 is not None
    assert q05.expected_sections == ("DT-2", "DT-3")
    assert q05.question.startswith("Điện thoại có được trả trong 30 ngày")
    assert q05.expected_answer is not None and "7 ngày" in q05.expected_answer
    assert len(q05.expected_sources_text) == 2 and "30 ngày" in q05.expected_sources_text[1]
    assert golden.get("q01").source == "su-co-2026-09-28"  # type: ignore[union-attr]
    assert all(e.answerable for e in golden)


def test_bare_array_version_is_content_hash(tmp_path: Path) -> None:
    """A bare array's version is sha256 of its bytes: same content, same version; edited, another."""
    version = GoldenSet.load([GOLDEN]).version
    assert version.startswith("sha256:") and len(version) == len("sha256:") + 12
    copy = tmp_path / "golden.json"
    copy.write_bytes(GOLDEN.read_bytes())
    assert GoldenSet.load([copy]).version == version
    copy.write_bytes(GOLDEN.read_bytes().replace(b"7 ng", b"10 ng"))
    assert GoldenSet.load([copy]).version != version


def test_seed001_shape_without_sections_file(tmp_path: Path) -> None:
    """Seed 001's fields map onto the entry; reference_contexts become the source text."""
    golden = GoldenSet.load([write(tmp_path / "g.json", [seed001()])])
    entry = golden.entries[0]
    assert entry.expected_answer == "Không. Thẻ quà tặng không được đổi trả."
    assert entry.expected_sections == ()
    assert entry.expected_sources_text == ("Thực phẩm, đồ lót và thẻ quà tặng không được đổi trả.",)
    assert (entry.language, entry.category, entry.answerable) == ("vi", "returns", True)


def test_promoted_object_form_keeps_its_version(tmp_path: Path) -> None:
    """Promotion's {"version", "entries"} form: the declared version is used, sections and source read."""
    promoted = seed001("p-1", expected_sections=["DT-6"], source="trace-042")
    path = write(tmp_path / "promoted.json", {"version": 3, "entries": [promoted]})
    golden = GoldenSet.load([path], sections_path=POLICY)
    assert golden.version == "3"
    entry = golden.entries[0]
    assert entry.source == "trace-042"
    assert entry.expected_sections == ("DT-6",)
    assert entry.expected_sources_text[0].startswith("Thực phẩm, đồ lót")


def test_jsonl_and_several_files_merge(tmp_path: Path) -> None:
    """JSONL is read line by line; several files merge in order and their versions join with '+'."""
    lines = "\n".join(json.dumps(seed001(f"l-{i}")) for i in range(2)) + "\n\n"
    jsonl = tmp_path / "extra.jsonl"
    jsonl.write_text(lines, encoding="utf-8")
    obj = write(tmp_path / "v.json", {"version": "2026-10", "entries": [seed001("o-1")]})
    golden = GoldenSet.load([GOLDEN, jsonl, obj])
    assert [e.id for e in golden][-3:] == ["l-0", "l-1", "o-1"]
    assert len(golden) == 8
    assert golden.version.endswith("+2026-10") and golden.version.count("+") == 2


@pytest.mark.parametrize(
    ("extra", "answerable"),
    [
        ({"answerable": False}, False),
        ({"expected_behavior": "abstain"}, False),
        ({"expected_behavior": "answer"}, True),
    ],
)
def test_unanswerable_entries(tmp_path: Path, extra: dict[str, Any], answerable: bool) -> None:
    """answerable=false or expected_behavior="abstain" marks an entry that expects an abstention."""
    golden = GoldenSet.load([write(tmp_path / "g.json", [seed001(**extra)])])
    assert golden.entries[0].answerable is answerable


def test_duplicate_id_across_files_names_file_and_id(tmp_path: Path) -> None:
    """An id repeated in a second file is a ConfigError naming that file and the id."""
    second = write(tmp_path / "second.json", [seed001("q03")])
    with pytest.raises(ConfigError, match=r"second\.json: entry 0.*duplicate golden id 'q03'"):
        GoldenSet.load([GOLDEN, second])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([{"question": "x"}], r"entry 0: field 'id'"),
        ([{"id": "a"}], r"entry 0 \(a\): field 'question' is required"),
        ([{"id": "a", "question": "  "}], r"entry 0 \(a\): field 'question' must be a non-empty string"),
        ([{"id": "a", "cau_hoi": "x", "muc_ky_vong": "DT-1"}], r"field 'muc_ky_vong' must be a list"),
        ([{"id": "a", "question": "x", "answerable": "no"}], r"field 'answerable' must be true or false"),
        ([{"id": "a", "question": "x"}, "oops"], r"entry 1: expected an object"),
        ({"version": True, "entries": []}, r"field 'version'"),
        ({"entries": {}}, r"expected a JSON array"),
    ],
)
def test_invalid_files_name_the_field(tmp_path: Path, content: Any, message: str) -> None:
    """Every invalid entry or file raises ConfigError naming file, entry and field."""
    path = write(tmp_path / "bad.json", content)
    with pytest.raises(ConfigError, match=message) as info:
        GoldenSet.load([path])
    assert "bad.json" in str(info.value)


def test_unknown_expected_section_is_an_error(tmp_path: Path) -> None:
    """An expected section the sections file lacks is a ConfigError: the numeric check needs its text."""
    path = write(tmp_path / "g.json", [{"id": "a", "cau_hoi": "x", "muc_ky_vong": ["DT-99"]}])
    with pytest.raises(
        ConfigError, match=r"\(a\): field 'muc_ky_vong' names sections not in the sections file: \['DT-99'\]"
    ):
        GoldenSet.load([path], sections_path=POLICY)


def test_unreadable_inputs(tmp_path: Path) -> None:
    """A missing file, broken JSON, a bad JSONL line or no file at all are ConfigErrors."""
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    bad_line = tmp_path / "bad.jsonl"
    bad_line.write_text('{"id": "a", "question": "x"}\n{nope\n', encoding="utf-8")
    for paths, message in (
        ([tmp_path / "absent.json"], "not found"),
        ([broken], "cannot parse"),
        ([bad_line], "line 2: invalid JSON"),
        ([], "no golden file"),
    ):
        with pytest.raises(ConfigError, match=message):
            GoldenSet.load(paths)


def test_sections_file_forms(tmp_path: Path) -> None:
    """Sections come from policy.json's 'sections' map, a bare JSON map or YAML; anything else is an error."""
    assert load_sections(POLICY)["DT-4"].startswith("Tiền hoàn")
    assert load_sections(write(tmp_path / "s.json", {"X-1": "text"})) == {"X-1": "text"}
    yaml_file = tmp_path / "s.yaml"
    yaml_file.write_text("X-2: other text\n", encoding="utf-8")
    assert load_sections(yaml_file) == {"X-2": "other text"}
    with pytest.raises(ConfigError, match="map of section id to text"):
        load_sections(write(tmp_path / "bad.json", {"X-1": 3}))


def test_variants_are_loaded_and_optional(tmp_path: Path) -> None:
    """``variants`` become the entry's extra wordings; entries without them have the question alone."""
    with_variants = seed001("v-1", variants=["the qua tang tra dc ko", "thẻ quà tặng đổi được không"])
    path = write(tmp_path / "g.json", [with_variants, seed001("v-2", question="Đổi size áo?")])
    first, second = GoldenSet.load([path]).entries
    assert first.questions == (with_variants["question"], *with_variants["variants"])
    assert second.variants == () and second.questions == ("Đổi size áo?",)
    bad = write(tmp_path / "bad.json", [seed001("v-3", variants="one string")])
    with pytest.raises(ConfigError, match="field 'variants' must be a list"):
        GoldenSet.load([bad])
