"""Shared test fixtures: paths to the bundled real inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO_DATA = REPO / "src" / "gauntlet" / "demo" / "data"


@pytest.fixture
def demo_data() -> Path:
    """Real pytest logs and review findings bundled for the demo."""
    return DEMO_DATA
