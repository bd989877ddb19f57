"""Time, passed in: the only clock the Action path reads, built once by :mod:`gauntlet.cli`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

__all__ = ["Clock"]


@dataclass(frozen=True)
class Clock:
    """Time, passed in: the run's ``now``, and sleeping and a monotonic clock for the commit retries.

    :param throttle: space writes and honour GitHub's waits (off in tests).
    """

    now: datetime
    sleep: Callable[[float], None]
    monotonic: Callable[[], float]
    throttle: bool = True
