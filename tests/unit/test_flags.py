"""Flag rules: score bands at their edges, finding details, switches and config errors."""

from __future__ import annotations

import importlib.resources
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.exceptions import ConfigError
from monitor.flags import FLAG_REASONS, Flag, FlagInputs, FlagRules
from monitor.judge.base import Scores
from monitor.numeric.model import Quantity

DESIGN_REASONS = {
    "numeric_unsupported",
    "numeric_missing",
    "numeric_out_of_source",
    "golden_retrieval_miss",
    "should_abstain",
    "low_faithfulness",
    "low_answer_relevance",
    "low_context_relevance",
    "invalid_citation",
    "negative_feedback",
    "judge_error",
    "conflicting_context",
}


@pytest.fixture(scope="module")
def rules() -> FlagRules:
    return FlagRules.load()


def packaged() -> dict[str, Any]:
    data = yaml.safe_load((importlib.resources.files("monitor") / "rules" / "flags.yaml").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def load_with(tmp_path: Path, data: dict[str, Any]) -> FlagRules:
    path = tmp_path / "flags.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return FlagRules.load(path)


def scores(
    faithfulness: float | None = None, answer: float | None = None, context: float | None = None
) -> Scores:
    return Scores(faithfulness, answer, context, None)


def only(flags: list[Flag], reason: str) -> Flag | None:
    matching = [flag for flag in flags if flag.reason == reason]
    assert len(matching) <= 1
    return matching[0] if matching else None


def test_catalog_matches_design_and_the_packaged_pack(rules: FlagRules) -> None:
    """Every DESIGN flag reason is known, and only conflicting_context is off by default."""
    assert set(FLAG_REASONS) == DESIGN_REASONS
    assert set(packaged()["flags"]) == DESIGN_REASONS
    assert [r for r in FLAG_REASONS if not rules.enabled(r)] == ["conflicting_context"]


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1.0, None),
        (0.85, None),
        (0.80, None),
        (0.7999, ("warning", "faithfulness 0.7999 < 0.80")),
        (0.75, ("warning", "faithfulness 0.75 < 0.80")),
        (0.70, ("warning", "faithfulness 0.70 < 0.80")),
        (0.69, ("critical", "faithfulness 0.69 < 0.70")),
        (0.62, ("critical", "faithfulness 0.62 < 0.70")),
        (0.0, ("critical", "faithfulness 0.00 < 0.70")),
    ],
)
def test_faithfulness_bands_follow_seed_002(
    rules: FlagRules, score: float, expected: tuple[str, str] | None
) -> None:
    """0.80 is the production target (no flag); 0.70-0.80 is a warning; below 0.70 is critical."""
    flag = only(rules.evaluate(FlagInputs(scores=scores(faithfulness=score))), "low_faithfulness")
    assert (None if flag is None else (flag.severity, flag.detail)) == expected


def test_detail_never_rounds_onto_the_threshold(rules: FlagRules) -> None:
    """A score a hair under the bound prints enough digits to read as below it."""
    flag = only(rules.evaluate(FlagInputs(scores=scores(faithfulness=0.79999999))), "low_faithfulness")
    assert flag is not None and not flag.detail.startswith("faithfulness 0.80 ")


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (0.9, 0.6, set()),
        (0.79, 0.6, {("low_answer_relevance", "warning")}),
        (0.59, 0.6, {("low_answer_relevance", "critical")}),
        (0.9, 0.2, set()),
        (0.9, 0.19, {("low_context_relevance", "warning")}),
        (0.5, 0.0, {("low_answer_relevance", "critical"), ("low_context_relevance", "warning")}),
    ],
)
def test_relevance_defaults(
    rules: FlagRules, answer: float, context: float, expected: set[tuple[str, str]]
) -> None:
    """Answer relevance warns below 0.80 and is critical below 0.60; context relevance warns below 0.20."""
    flags = rules.evaluate(FlagInputs(scores=scores(faithfulness=1.0, answer=answer, context=context)))
    assert {(f.reason, f.severity) for f in flags} == expected


@pytest.mark.parametrize(
    "given", [None, Scores(None, None, None, None), Scores(float("nan"), float("nan"), float("nan"), None)]
)
def test_undefined_scores_never_flag(rules: FlagRules, given: Scores | None) -> None:
    """No scores, None scores and non-finite scores raise no low_* flag."""
    assert rules.evaluate(FlagInputs(scores=given)) == []


def test_honest_abstention_is_not_low_relevance(rules: FlagRules) -> None:
    """An abstaining answer is not flagged for answer or context relevance; faithfulness still counts."""
    inputs = FlagInputs(scores=scores(faithfulness=0.5, answer=0.0, context=0.0), abstained=True)
    assert [f.reason for f in rules.evaluate(inputs)] == ["low_faithfulness"]


def test_numeric_details_name_the_numbers(rules: FlagRules) -> None:
    """Seed 000's failure reads as the numbers the answer and the golden entry disagree on."""
    thirty = Quantity(Decimal(30), "ngày", "30 ngày")
    inputs = FlagInputs(
        numeric_unsupported=[thirty],
        numeric_missing=[Quantity(Decimal(7), "ngày", "7 ngày")],
        numeric_out_of_source=[thirty],
        golden_id="q01",
    )
    details = {f.reason: (f.detail, f.severity) for f in rules.evaluate(inputs)}
    assert details == {
        "numeric_unsupported": ("answer says 30 ngày; no retrieved chunk does", "critical"),
        "numeric_missing": ("golden q01 expects 7 ngày; the answer does not say it", "critical"),
        "numeric_out_of_source": ("answer says 30 ngày; the sections golden q01 expects do not", "critical"),
    }


def test_findings_as_strings_or_bare_quantities_and_long_lists(rules: FlagRules) -> None:
    """Strings work, a quantity without text reads as value and unit, and lists stop at three."""
    items: list[object] = ["5 ngày", Quantity(Decimal(2), "tuần"), "10%", "3 giờ", "x" * 500]
    flag = only(rules.evaluate(FlagInputs(numeric_unsupported=items)), "numeric_unsupported")
    assert flag is not None
    assert flag.detail == "answer says 5 ngày, 2 tuần, 10% and 2 more; no retrieved chunk does"


def test_other_findings_and_their_details(rules: FlagRules) -> None:
    """Citations, feedback, golden checks and judge errors each raise their flag with a readable detail."""
    inputs = FlagInputs(
        invalid_citations=["c09", "c11"],
        negative_feedback=True,
        negative_feedback_reason="wrong_info",
        golden_retrieval_miss=True,
        golden_retrieval_miss_detail="DT-1 not in the top 5",
        should_abstain=True,
        judge_error="JudgeTimeout: no answer in 10 s",
    )
    details = {f.reason: f.detail for f in rules.evaluate(inputs)}
    assert details == {
        "invalid_citation": "cites c09, c11; not among the retrieved chunks",
        "negative_feedback": "user rated the answer negative: wrong_info",
        "golden_retrieval_miss": "DT-1 not in the top 5",
        "should_abstain": "the golden entry is unanswerable; the answer does not abstain",
        "judge_error": "judge failed: JudgeTimeout: no answer in 10 s",
    }


def test_flags_are_listed_most_severe_first(rules: FlagRules) -> None:
    """Critical flags come before warnings, warnings before info."""
    inputs = FlagInputs(judge_error="boom", negative_feedback=True, numeric_unsupported=["30 ngày"])
    assert [(f.severity, f.reason) for f in rules.evaluate(inputs)] == [
        ("critical", "numeric_unsupported"),
        ("warning", "negative_feedback"),
        ("info", "judge_error"),
    ]


def test_conflicting_context_only_when_enabled(rules: FlagRules, tmp_path: Path) -> None:
    """Conflicting context is a risk signal by default and a flag once the YAML enables it."""
    inputs = FlagInputs(conflicting_context=2)
    assert rules.evaluate(inputs) == []
    data = packaged()
    data["flags"]["conflicting_context"]["enabled"] = True
    flags = load_with(tmp_path, data).evaluate(inputs)
    assert [f.as_dict() for f in flags] == [
        {
            "reason": "conflicting_context",
            "detail": "retrieved chunks disagree on 2 numbers",
            "severity": "warning",
        }
    ]


def test_disabled_reasons_stay_silent(tmp_path: Path) -> None:
    """A reason switched off in YAML is never raised; the others still are."""
    data = packaged()
    data["flags"]["low_faithfulness"]["enabled"] = False
    data["flags"]["numeric_unsupported"]["enabled"] = False
    custom = load_with(tmp_path, data)
    inputs = FlagInputs(scores=scores(faithfulness=0.1, answer=0.1), numeric_unsupported=["30 ngày"])
    assert [f.reason for f in custom.evaluate(inputs)] == ["low_answer_relevance"]


def test_custom_bands_and_severities(tmp_path: Path) -> None:
    """Bands may be given in any order and severities changed; the lowest matching band wins."""
    data = packaged()
    data["flags"]["low_faithfulness"]["bands"] = [
        {"below": 0.9, "severity": "info"},
        {"below": 0.5, "severity": "critical"},
    ]
    custom = load_with(tmp_path, data)
    severities = [
        only(custom.evaluate(FlagInputs(scores=scores(faithfulness=s))), "low_faithfulness")
        for s in (0.95, 0.8, 0.4)
    ]
    assert [None if f is None else f.severity for f in severities] == [None, "info", "critical"]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d["flags"].pop("judge_error"), "flags.judge_error"),
        (lambda d: d["flags"].update(low_faithfulnes={"enabled": True}), "flags.low_faithfulnes"),
        (
            lambda d: d["flags"]["negative_feedback"].update(severity="urgent"),
            "flags.negative_feedback.severity",
        ),
        (lambda d: d["flags"]["low_faithfulness"].update(bands=[]), "flags.low_faithfulness.bands"),
        (
            lambda d: d["flags"]["low_faithfulness"].update(
                bands=[{"below": 0.7, "severity": "warning"}, {"below": 0.7, "severity": "critical"}]
            ),
            "flags.low_faithfulness.bands",
        ),
        (
            lambda d: d["flags"]["low_context_relevance"]["bands"][0].update(below=1.5),
            "flags.low_context_relevance.bands.0.below",
        ),
    ],
)
def test_bad_rules_name_file_and_field(tmp_path: Path, mutate: Any, field: str) -> None:
    """A bad flags.yaml raises ConfigError naming the file and the offending field."""
    data = packaged()
    mutate(data)
    with pytest.raises(ConfigError, match=rf"flags.yaml: {field}"):
        load_with(tmp_path, data)
