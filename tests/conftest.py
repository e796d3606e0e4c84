"""Shared fixtures: every test starts with structlog's default configuration."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    """Keep logging configuration from leaking between tests."""
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()
