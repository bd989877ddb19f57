"""The hostile suite drives the action through the scenarios' ``Scenario`` (``scenario.py``, a plain module
beside those tests)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scenarios"))
