"""The sandbox scenarios' fixture: ``world``, one started :class:`scenario.Scenario` per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scenario import Scenario, start


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Scenario]:
    """``octo/app`` on a fresh sandbox, run through the Action (``world.run``) or the effect backend
    (``world.apply``); see :mod:`scenario`."""
    with start(tmp_path) as scenario:
        yield scenario
