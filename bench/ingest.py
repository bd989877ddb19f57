"""Benchmark log ingestion against ``grep -c -E`` on the same realistic log; prints throughput, ratio, peak RSS.

Usage::

    .venv/bin/python bench/ingest.py [--size-mb 200] [--log PATH] [--keep]

The log is written once (streamed, in GitHub's job-log format) from templates of
what passing CI output looks like (pip, compilers, pytest -v, npm, docker
BuildKit, cargo), including the lines that trip naive matchers
(``test_error_handling PASSED``, ``-Werror``, ``0 failed``), plus a few real
failures. grep gets the same anchors as the prefilter, so both find the same
candidate lines; the scanner also parses them. Each side runs in its own
process so the peak RSS printed is the scanner's alone.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gauntlet.ingest.log.prefilter import grep_pattern

# Lines with an anchor that are not failures ("-Werror", "test_error_handling PASSED") are drawn with
# ANCHORED_SHARE probability: about what a Python/C/JS job log shows. Both grep and the scanner pay for them.
ANCHORED_SHARE = 0.03
ANCHORED = [
    "gcc -O2 -Wall -Werror -fPIC -Iinclude -c src/module_{n}.c -o build/module_{n}.o",
    "g++ -std=c++17 -O2 -c src/error_reporter_{n}.cpp -o build/error_reporter_{n}.o",
    "tests/test_api_{n}.py::test_error_handling_{m} PASSED                      [ {m}%]",
    "tests/unit/test_parser.py::TestParser::test_fail_fast_disabled_{n} PASSED   [ {m}%]",
    "[INFO] Tests run: {m}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.{n} s",
    "  -> Using cached wheel for package_{n} (errorless build cache hit {m})",
    "+ exit 0",
]
PASSING = [
    "gcc -O2 -Wall -fPIC -Iinclude -c src/module_{n}.c -o build/module_{n}.o",
    "tests/test_api_{n}.py::test_get_item_{m} PASSED                            [ {m}%]",
    "Collecting numpy==1.26.{n} (from -r requirements.txt (line {m}))",
    "  Downloading numpy-1.26.{n}-cp311-cp311-manylinux_2_17_x86_64.whl (18.{m} MB)",
    "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 18.2/18.2 MB 95.{m} MB/s eta 0:00:00",
    "Requirement already satisfied: urllib3<3,>=1.21.1 in /opt/hostedtoolcache/Python/3.11.{n}/x64/lib",
    "   Compiling serde v1.0.{n}",
    "   Compiling proc-macro2 v1.0.{m}",
    "tests/test_api_{n}.py::test_get_user_{m} PASSED                            [ {m}%]",
    "test tests::parses_input_{n} ... ok",
    "ok  \tgithub.com/acme/service/internal/store_{n}\t0.{m}s",
    "npm warn deprecated inflight@1.0.{n}: This module is not supported, and leaks memory.",
    "added {n}{m} packages, and audited {m}{n} packages in 3s",
    "#{n} [build {m}/9] RUN pip install --no-cache-dir -r requirements.txt",
    "#{n} 2.{m} Successfully installed flask-3.0.{n} werkzeug-3.0.{m}",
    "  PASS  src/components/Button_{n}.test.tsx ({m}.2 s)",
    "[INFO] Compiling {m} source files to /home/runner/work/app/app/target/classes",
    "Downloaded from central: https://repo.example/maven2/org/slf4j/slf4j-api/2.0.{n}/slf4j-api.jar",
    "Receiving objects: {m}% ({n}/{n}{m}), 1.{m} MiB | 12.{n} MiB/s, done.",
    "shell: /usr/bin/bash -e {{0}}",
    "  env:",
    "    pythonLocation: /opt/hostedtoolcache/Python/3.11.{n}/x64",
]
FAILURE = """\
=================================== FAILURES ===================================
_______________________________ test_divide_{n} ________________________________

    def test_divide_{n}():
>       assert divide(1, 0) is None
E       ZeroDivisionError: division by zero

tests/test_calc.py:11: ZeroDivisionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_divide_{n} - ZeroDivisionError: division by zero
========================= 1 failed, 9 passed in 0.31s ==========================
src/app_{n}.c:7:20: error: too many arguments to function 'add'
##[error]Process completed with exit code 1."""


def write_log(path: Path, size_mb: int, seed: int = 7) -> None:
    """Write a realistic GitHub job log of about ``size_mb`` MB to ``path``, streaming."""
    rng = random.Random(seed)
    target = size_mb * 1_000_000
    written = 0
    second = 0
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            second += 1
            lines = []
            for _ in range(2000):
                template = rng.choice(ANCHORED if rng.random() < ANCHORED_SHARE else PASSING)
                text = template.format(n=rng.randrange(100), m=rng.randrange(100))
                stamp = f"2026-11-29T12:{second // 60 % 60:02d}:{second % 60:02d}.{rng.randrange(10**7):07d}Z"
                lines.append(f"{stamp} {text}\n")
            if second % 100 == 0:
                lines.extend(f"2026-11-29T13:00:00.0000000Z {line}\n" for line in FAILURE.format(n=second).splitlines())
            chunk = "".join(lines)
            out.write(chunk)
            written += len(chunk.encode())


def _timed(command: list[str]) -> tuple[float, str]:
    """Run a command; return its wall seconds and stdout."""
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout.strip()


# The scanner's own process: imports first (not part of the throughput), then one timed scan of the log.
SCAN = """
import resource, sys, time
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import read_log
start = time.perf_counter()
with open(sys.argv[1], "rb") as stream:
    found = sum(1 for _ in read_log(stream, sys.argv[1], DEFAULT_LIMITS))
elapsed = time.perf_counter() - start
print(found, elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
IMPORTS_ONLY = """
import resource
import gauntlet.ingest.log
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def main() -> int:
    """Write (or reuse) the log, run grep and the scanner on it (best of ``--runs``), print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--log", type=Path, help="use this log instead of writing one")
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    parser.add_argument("--runs", type=int, default=3, help="take the best of this many runs of each")
    args = parser.parse_args()
    log = args.log or Path(tempfile.mkdtemp(prefix="gauntlet-bench-")) / "job.log"
    if args.log is None:
        write_log(log, args.size_mb)
    size_mb = log.stat().st_size / 1_000_000
    subprocess.run(["cat", str(log)], check=True, stdout=subprocess.DEVNULL)  # warm the page cache for both
    grep_runs = [_timed(["grep", "-c", "-E", grep_pattern(), str(log)]) for _ in range(args.runs)]
    grep_s, grep_out = min(grep_runs)
    scan_runs = [_timed([sys.executable, "-c", SCAN, str(log)]) for _ in range(args.runs)]
    wall_s, _ = min(scan_runs)
    found, scan_s, peak_kib = min((line.split() for _, line in scan_runs), key=lambda parts: float(parts[1]))
    scan_s_f = float(scan_s)
    _, imports_kib = _timed([sys.executable, "-c", IMPORTS_ONLY])
    print(f"log:         {size_mb:.0f} MB ({log})")
    print(f"grep -c -E:  {grep_s:.2f} s, {size_mb / grep_s:.0f} MB/s, {grep_out} matching lines")
    print(f"gauntlet:    scan {scan_s_f:.2f} s, {size_mb / scan_s_f:.0f} MB/s, {found} findings")
    print(f"             whole process (interpreter start and imports too) {wall_s:.2f} s, {size_mb / wall_s:.0f} MB/s")
    print(f"ratio:       {grep_s / scan_s_f:.2f}x grep's throughput (scan), {grep_s / wall_s:.2f}x (whole process)")
    print(f"peak RSS:    {int(peak_kib) / 1024:.0f} MB (after imports alone: {int(imports_kib) / 1024:.0f} MB)")
    if args.log is None and not args.keep:
        log.unlink()
        log.parent.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
