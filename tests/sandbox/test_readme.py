"""The sandbox documentation's in-process example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "docs" / "sandbox.md"


def test_in_process_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "the README lost its Python example"
    exec(compile(blocks[-1], str(README), "exec"), {})
