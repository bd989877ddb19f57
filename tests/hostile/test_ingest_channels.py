"""Every findings format and a job log, carrying the whole attack, through ``gauntlet ingest --json`` in-process.

Each run must end with exit 0 (or 2 with a one-line error), never a traceback, and print
findings in which no secret, masked value, lone surrogate or NUL survives, every position is
a plausible line number or null, and every path is repository-relative or null.
"""

from __future__ import annotations

import json
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest
from channels import DOCUMENTS, OUTSIDE_PATHS, WORKSPACE_PATHS
from secrets_kit import leaked, make_secrets

from gauntlet.cli import main
from gauntlet.ingest.values import MAX_POSITION


def ingest(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["ingest", "--json", *args, str(path)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def check_finding(finding: dict[str, Any], secrets: dict[str, str]) -> None:
    text = json.dumps(finding, ensure_ascii=False)
    assert leaked(text, secrets) == [], finding
    assert "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    for field in ("line", "end_line", "column"):
        assert finding[field] is None or 0 < finding[field] <= MAX_POSITION
    path = finding["path"]
    if path is not None:
        assert not path.startswith(("/", "\\", "~")) and ":" not in path[:3], path
        assert ".." not in path.split("/") and "\\" not in path, path
        assert path not in OUTSIDE_PATHS


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_each_format_carrying_the_attack_leaks_nothing(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secrets = make_secrets(zlib.crc32(name.encode()))
    path = tmp_path / name
    path.write_bytes(DOCUMENTS[name](secrets))

    tracemalloc.start()
    started = time.monotonic()
    code, findings, err = ingest(path, capsys)
    elapsed = time.monotonic() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        assert err.startswith("gauntlet: error: ") and err.count("\n") == 1, err
    else:
        assert findings, f"{name}: the attack itself is a finding and must be reported"
    for finding in findings:
        check_finding(finding, secrets)
    assert elapsed < 5 and peak < 64 * 1024 * 1024, (elapsed, peak)


def test_paths_inside_the_workspace_are_made_relative_and_the_rest_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "junit.xml"
    path.write_bytes(DOCUMENTS["junit.xml"](make_secrets(3)))

    code, findings, _ = ingest(path, capsys)

    assert code == 0
    by_test = {f["test_id"]: f["path"] for f in findings if f["test_id"] and "test_path_" in f["test_id"]}
    inside = [p for t, p in by_test.items() if int(t.rsplit("_", 1)[1]) >= len(OUTSIDE_PATHS)]
    outside = [p for t, p in by_test.items() if int(t.rsplit("_", 1)[1]) < len(OUTSIDE_PATHS)]
    assert len(by_test) == len(OUTSIDE_PATHS) + len(WORKSPACE_PATHS)
    assert set(inside) == set(WORKSPACE_PATHS.values())
    assert all(p is None or p.startswith("tests") for p in outside), outside  # the classname fallback at most


def test_a_masked_value_vanishes_from_every_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secrets = make_secrets(11)
    mask = secrets["masked value"]
    path = tmp_path / "job.log"
    path.write_bytes(DOCUMENTS["job.log"](secrets))

    code, findings, _ = ingest(path, capsys, "--format", "log")

    assert code == 0 and len(findings) >= 3
    assert all(mask not in json.dumps(f) for f in findings)
    assert any("[REDACTED]" in (f["test_id"] or "") for f in findings), "the test id named the masked value"
    assert any("[REDACTED]" in (f["path"] or "") for f in findings), "a path named the masked value"


def test_a_value_masked_after_the_finding_is_hidden_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    value = make_secrets(12)["masked value"]
    stamp = "2026-11-29T12:00:00.0000000Z "
    lines = [
        f"src/app.c:3:1: error: cannot open {value}",
        "##[error]Process completed with exit code 1.",
        f"::add-mask::{value}",
    ]
    path = tmp_path / "job.log"
    path.write_text("".join(stamp + line + "\n" for line in lines))

    code, findings, _ = ingest(path, capsys)

    assert code == 0 and findings
    assert value not in json.dumps(findings)
