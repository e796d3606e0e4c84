"""Shared fixtures: every test starts with structlog's default configuration."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog

from monitor.logging import THROTTLE


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    """Keep logging configuration (and the log throttle's windows) from leaking between tests."""
    structlog.reset_defaults()
    THROTTLE.reset()
    yield
    structlog.reset_defaults()
