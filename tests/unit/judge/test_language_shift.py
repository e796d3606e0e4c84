"""The rules' `language_shift`: a constant on one language's logits, the others untouched."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from monitor.exceptions import ConfigError
from monitor.judge.local import LocalJudgeRules
from monitor.judge.support import FEATURES, SupportModel


def _section(**extra: Any) -> dict[str, Any]:
    zeros = dict.fromkeys(FEATURES, 0.0)
    return {
        "threshold": 0.5,
        "intercept": 0.0,
        "weights": zeros,
        "standardize": {"default": {"mean": zeros, "std": dict.fromkeys(FEATURES, 1.0)}},
        **extra,
    }


def test_a_shift_moves_only_its_language() -> None:
    model = SupportModel.from_rules(_section(language_shift={"ja": -1.75}))
    rows = np.zeros((1, len(FEATURES)))
    assert model.probability(rows, "en")[0] == pytest.approx(0.5)
    assert model.probability(rows, "ja")[0] == pytest.approx(1 / (1 + np.exp(1.75)))


def test_a_malformed_shift_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="invalid local judge model"):
        SupportModel.from_rules(_section(language_shift={"ja": "a lot"}))


def test_the_packaged_rules_shift_japanese_only() -> None:
    """Both models carry the shift (docs/local-judge.md: chosen on ja.dev, the others not applied)."""
    rules = LocalJudgeRules.load()
    assert rules.model.shifts == {"ja": -1.75}
    assert rules.similarity_model is not None and rules.similarity_model.shifts == {"ja": -1.75}


@pytest.mark.parametrize("shift", [{"ja": "nan"}, {"ja": float("inf")}, ["ja", -1.75]])
def test_a_shift_that_is_no_finite_number_per_language_is_refused(shift: Any) -> None:
    with pytest.raises(ConfigError, match="invalid local judge model"):
        SupportModel.from_rules(_section(language_shift=shift))


def test_a_shift_key_is_read_as_the_judge_names_languages() -> None:
    assert SupportModel.from_rules(_section(language_shift={"ja-JP": -1, "EN": 0.5})).shifts == {
        "ja": -1.0,
        "en": 0.5,
    }
