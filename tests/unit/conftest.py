"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules
from monitor.numeric import NumericRules


@pytest.fixture(scope="session")
def rules() -> ConditionalRules:
    """The packaged conditional and numeric packs, loaded once (modules with other rules override it)."""
    return ConditionalRules.load(NumericRules.load())
