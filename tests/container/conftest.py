"""One private Docker engine and one image build for the container tests of a session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from docker_engine import Engine, EngineUnavailable, Image, build_image, start_engine, stop_engine


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    """A private dockerd, stopped by its PID afterwards; the tests skip, saying why, where none can start."""
    try:
        running = start_engine()
    except EngineUnavailable as exc:
        pytest.skip(f"no Docker engine can run here: {exc}")
    try:
        yield running
    finally:
        stop_engine(running.home)


@pytest.fixture(scope="session")
def image(engine: Engine) -> Image:
    """The repository's Dockerfile built on the stand-in base."""
    return build_image(engine)
