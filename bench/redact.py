"""What redaction costs on ``bench/ingest.py``'s log, and what Yelp's detect-secrets would cost instead.

Usage::

    .venv/bin/python bench/redact.py [--size-mb 200] [--runs 3] [--sample-lines 2000] [--baseline SRC]

    # the scan before redaction was added, to compare with (any commit before it):
    mkdir -p /tmp/base && git archive 820dcb2 src | tar -x -C /tmp/base
    .venv/bin/python bench/redact.py --baseline /tmp/base/src

Redaction happens on what ingest keeps, never on every line: a log's ``::add-mask::`` lines are
one more anchor of the scanner's prefilter (so they cost no pass of their own), and each finding's
text fields are redacted (by the analyser as it builds a finding, and once more by ``ingest_file``).
The bench times the scan (what ``bench/ingest.py`` times), the whole ``ingest_file`` and
``redact_finding`` alone, and prints the share redaction adds (budget: 5%); the prefilter anchor's
share is measured by running ``bench/ingest.py`` on a checkout without it (``docs/security.md``).
It also times the :class:`~gauntlet.ingest.redact.MaskWatch` that structured files pass through
(one ``bytes.find`` per read), and, when detect-secrets is installed (``pip install
detect-secrets``), its ``scan_line`` on the same findings' text and on a sample of log lines.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import INGEST, write_log

from gauntlet.ingest import ingest_file
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import read_log
from gauntlet.ingest.redact import MaskWatch, redact_finding
from gauntlet.models import Finding
from gauntlet.untrusted import redact

_TEXT_FIELDS = ("tool", "path", "test_id", "rule", "message", "excerpt", "job", "category", "rule_learned")


def best(runs: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of ``runs`` timed calls, and what the last returned."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def scan_only(log: Path) -> list[Finding]:
    with log.open("rb") as stream:
        return list(read_log(stream, str(log), DEFAULT_LIMITS))


def watch_only(log: Path) -> int:
    with log.open("rb") as stream:
        watch = MaskWatch(stream)
        while watch.read(4 << 20):
            pass
        watch.finish()
        return len(watch.masks.values)


def read_only(log: Path) -> int:
    with log.open("rb") as stream:
        size = 0
        while block := stream.read(4 << 20):
            size += len(block)
        return size


def texts(findings: list[Finding]) -> list[str]:
    return [value for f in findings for name in _TEXT_FIELDS if (value := getattr(f, name))]


def detect_secrets_time(lines: list[str]) -> float | None:
    """Seconds detect-secrets' default plugins take over ``lines``, or None when it is not installed."""
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    with default_settings():
        start = time.perf_counter()
        for line in lines:
            list(scan_line(line))
        return time.perf_counter() - start


def against_baseline(log: Path, baseline: Path, runs: int) -> None:
    """Run bench/ingest.py's scan on ``log`` with ``baseline`` (a ``src`` folder) and with this checkout.

    Runs alternate and the least CPU time of each side is kept: on a shared machine CPU time
    moves far less than wall time.
    """
    sides = {"baseline": {**os.environ, "PYTHONPATH": str(baseline)}, "this checkout": dict(os.environ)}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(runs):
        for name, env in sides.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [sys.executable, "-c", INGEST, "ingest", "--json", str(log)], check=True, env=env, capture_output=True
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    base, ours = min(cpu["baseline"]), min(cpu["this checkout"])
    print(f"gauntlet ingest process, CPU seconds (least of {runs}): baseline {base:.3f}, this checkout {ours:.3f}")
    print(f"                {100 * (ours - base) / base:+.2f}% (budget +5%)")


def main() -> int:
    """Write the log, time each part, print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sample-lines", type=int, default=2000, help="log lines to time detect-secrets on")
    parser.add_argument("--baseline", type=Path, help="a src folder without the redaction, to compare the scan with")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gauntlet-bench-redact-"))
    log = folder / "job.log"
    write_log(log, args.size_mb)
    size_mb = log.stat().st_size / 1_000_000
    try:
        scan_s, findings = best(args.runs, lambda: scan_only(log))
        whole_s, _ = best(args.runs, lambda: list(ingest_file(log, "log")))
        read_s, _ = best(args.runs, lambda: read_only(log))
        watch_s, _ = best(args.runs, lambda: watch_only(log))
        fields = texts(findings)
        redact_s, _ = best(args.runs, lambda: [redact_finding(f) for f in findings])
        with log.open(encoding="utf-8", errors="replace") as stream:
            sample = [line for _, line in zip(range(args.sample_lines), stream, strict=False)]
        ours_lines_s, _ = best(args.runs, lambda: [redact(line) for line in sample])
        theirs_fields_s = detect_secrets_time(fields)
        theirs_lines_s = detect_secrets_time(sample)
        if args.baseline is not None:
            against_baseline(log, args.baseline, max(args.runs, 5))
    finally:
        log.unlink()
        folder.rmdir()
    # ingest_file redacts all fields after the scan; the analyser redacted message and excerpt inside it,
    # which one more redact_finding bounds.
    added = max(whole_s - scan_s, 0.0) + redact_s
    chars = sum(map(len, fields))
    sample_mb = sum(len(line.encode()) for line in sample) / 1_000_000
    print(f"log:            {size_mb:.0f} MB, {len(findings)} findings ({chars} characters of text fields)")
    print(f"scan alone:     {scan_s:.2f} s ({size_mb / scan_s:.0f} MB/s; what bench/ingest.py times)")
    print(f"ingest_file:    {whole_s:.2f} s (scan + redact_finding of every finding)")
    print(f"redact_finding: {redact_s * 1000:.2f} ms for all findings")
    watch_extra = max(watch_s - read_s, 1e-9)
    watch_rate = size_mb / watch_extra
    print(f"MaskWatch:      {watch_extra * 1000:.1f} ms over a plain read ({watch_rate:.0f} MB/s; structured files)")
    print(f"redaction adds: {added * 1000:.1f} ms = {100 * added / scan_s:.2f}% of the scan (budget 5%)")
    print(f"ours per line:  {ours_lines_s / len(sample) * 1e6:.1f} us ({sample_mb / ours_lines_s:.1f} MB/s)")
    if theirs_fields_s is None or theirs_lines_s is None:
        print("detect-secrets: not installed (pip install detect-secrets to compare)")
        return 0
    share = 100 * theirs_fields_s / scan_s
    per_line_us = theirs_lines_s / len(sample) * 1e6
    every_line_min = size_mb * theirs_lines_s / sample_mb / 60
    print(f"detect-secrets: {theirs_fields_s * 1000:.0f} ms on the same findings ({share:.1f}% of the scan)")
    print(f"                {per_line_us:.0f} us per log line ({sample_mb / theirs_lines_s:.3f} MB/s)")
    print(f"                {every_line_min:.0f} min to scan every line of the log")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
